// `node scripts/vendor-docs-ui.mjs [version]`: copies the API reference UI's single-file browser
// bundle (@scalar/api-reference, MIT) into public/assets/docs/, so /docs is served from our own
// origin (offline, strict CSP) without the package's 270-package dependency tree in node_modules.
// Needs the npm registry (npm pack); run it only to change the version, then update
// SCALAR_VERSION in src/oauth/pages/docs.ts and commit both.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { root } from "./lib/local.mjs";

const MIT = `MIT License

Copyright (c) 2023-present Scalar

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`;

const version = process.argv[2] ?? "1.72.1";
const out = path.join(root, "public", "assets", "docs");
const work = mkdtempSync(path.join(tmpdir(), "scalar-"));
try {
  const tarball = execFileSync("npm", ["pack", `@scalar/api-reference@${version}`, "--silent"], {
    cwd: work,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .at(-1);
  execFileSync("tar", ["xzf", tarball, "package/dist/browser/standalone.js"], { cwd: work });
  for (const old of readdirSync(out).filter((f) => /^scalar-api-reference-.*\.js$/.test(f)))
    unlinkSync(path.join(out, old));
  copyFileSync(
    path.join(work, "package/dist/browser/standalone.js"),
    path.join(out, `scalar-api-reference-${version}.js`),
  );
  writeFileSync(
    path.join(out, "scalar-api-reference.LICENSE.txt"),
    `@scalar/api-reference ${version}, dist/browser/standalone.js\n\n${MIT}`,
  );
  console.log(
    `public/assets/docs/scalar-api-reference-${version}.js written; set SCALAR_VERSION = "${version}" in src/oauth/pages/docs.ts`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

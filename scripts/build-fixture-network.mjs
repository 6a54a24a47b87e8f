// Builds the fixture network (test/fixtures/outbound.ts: the answers to every outbound fetch of the
// test Worker, served from vitest's node process) into one module under node_modules/.cache, which
// vitest.config.ts imports. Imported by the config itself, its ~50 files were the config's
// dependencies, and vitest's transform cache (experimental.fsModuleCache) hashes the text of every
// config dependency into the key of every module it caches: ~2 s of sha1 in each run. Rebuilt only
// when one of its files changed (scripts/lib/vendor-module.mjs keeps the stamp).
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildVendorModule, root } from "./lib/vendor-module.mjs";

const OUTPUT = "node_modules/.cache/fixture-network/outbound.mjs";

/**
 * A fixture file's `import.meta.dirname` (where it finds its sites and zone files) is its own folder,
 * written relative to the built module's: the same in every checkout, wherever it sits.
 */
const sourceDirname = {
  name: "fixture-source-dirname",
  setup(build) {
    build.onLoad({ filter: /[\\/]test[\\/]fixtures[\\/].*\.ts$/ }, async (args) => {
      const from = path.relative(path.dirname(path.join(root, OUTPUT)), path.dirname(args.path));
      const contents = (await readFile(args.path, "utf8")).replaceAll(
        "import.meta.dirname",
        `__fixtureDirname(${JSON.stringify(from.split(path.sep).join("/"))})`,
      );
      return { contents, loader: "ts" };
    });
  },
};

/** The fixture network's module (built first when a file of it changed): `outbound(request)`. */
export async function fixtureNetwork() {
  await buildVendorModule({
    entry: "test/fixtures/outbound.ts",
    output: OUTPUT,
    script: "scripts/build-fixture-network.mjs",
    options: {
      platform: "node",
      target: "node22",
      conditions: [],
      minify: false,
      // Packages (iconv-lite) are imported from node_modules, as the fixtures' own imports were.
      packages: "external",
      external: [],
      banner: {
        js: 'import { join as __join } from "node:path";\nconst __fixtureDirname = (relative) => __join(import.meta.dirname, relative);',
      },
      plugins: [sourceDirname],
    },
  });
  return import(pathToFileURL(path.join(root, OUTPUT)).href);
}

// Node-side checks of the local scripts (`npm run test:scripts`, part of `npm test`): they spawn
// wrangler, so they cannot run inside workerd with the rest of the suite. Each uses its own state
// directory (PERSIST_TO) and a free port, never the developer's .wrangler/state or 8787.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";

const root = path.resolve(import.meta.dirname, "../..");
const state = mkdtempSync(path.join(tmpdir(), "scripts-test-"));
after(() => rmSync(state, { recursive: true, force: true }));

const freePort = () =>
  new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

/** Runs a script; collects stdout and stderr, and each piece of stderr as it arrived. */
function run(script, args, env) {
  const child = spawn(process.execPath, [path.join(root, script), ...args], {
    cwd: root,
    env: { ...process.env, PERSIST_TO: state, ...env },
    detached: true,
  });
  const out = { stdout: "", stderr: "", stderrPieces: [], child };
  child.stdout.on("data", (d) => (out.stdout += d));
  child.stderr.on("data", (d) => {
    out.stderr += d;
    out.stderrPieces.push(String(d));
  });
  out.done = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  return out;
}

describe("npm run seed", () => {
  it("prints progress while it works, and the credentials as the last line of stdout", async () => {
    const seed = run("scripts/seed.mjs", ["--plan", "free"]);
    assert.equal(await seed.done, 0, seed.stderr);
    const lines = seed.stderr.split("\n").filter(Boolean);
    assert.match(
      lines[0],
      /^Applying database migrations to the local D1 databases \(main and index\)… done \(\d+\.\d s\)$/,
    );
    assert.ok(
      lines.some((l) => /^Creating the demo account demo-free@example\.com and its key… done/.test(l)),
      seed.stderr,
    );
    // The first word comes before the work it names, not after the whole run: the migrations' label
    // arrives on its own, seconds before their " done" (no deadline a busy machine could miss).
    assert.match(seed.stderrPieces[0], /^Applying database migrations[^\n]*…$/, seed.stderrPieces.join("|"));
    const creds = JSON.parse(seed.stdout.trim().split("\n").at(-1));
    assert.match(creds.key, /^ck_/);
    assert.match(creds.secret, /^cs_/);
  });
});

describe("npm start without internet", () => {
  it("names an unreachable upstream in one line and prints no stack trace when a lookup fails", async () => {
    const port = await freePort();
    // .invalid never resolves (RFC 6761): the DNS-over-HTTPS upstream is unreachable on any machine.
    const start = run("scripts/start.mjs", [], { PORT: String(port), DOH_URL: "https://doh.invalid/dns-query" });
    try {
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0; ; i++) {
        try {
          if ((await fetch(`${base}/`)).ok) break;
        } catch {}
        if (i > 240) throw new Error(`npm start did not come up:\n${start.stdout}${start.stderr}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      const key = /X-Service-Key:\s+(\S+)/.exec(start.stdout)[1];
      const secret = /X-Service-Secret:\s+(\S+)/.exec(start.stdout)[1];
      const res = await fetch(`${base}/v1/email-verifier?email=someone@gmail.com`, {
        headers: { "X-Service-Key": key, "X-Service-Secret": secret },
      });
      assert.equal(res.status, 503);
      assert.equal((await res.json()).errors.type, "dns_unavailable");
      await new Promise((r) => setTimeout(r, 1_000));
      const output = start.stdout + start.stderr;
      const offline = output.split("\n").filter((l) => l.startsWith("offline: "));
      assert.equal(
        offline.filter((l) => l.startsWith("offline: doh.invalid (DNS over HTTPS (DOH_URL)) cannot be reached:"))
          .length,
        1,
        output,
      );
      assert.doesNotMatch(output, /\n\s+at [\w.<>]+ \(|stack: |ffi\.rs|getaddrinfo ENOTFOUND/, output);
      assert.match(output, /GET \/v1\/email-verifier 503/);
      // npm run seed (above, same state directory) applied the migrations: npm start does not run
      // wrangler five more times to find nothing to apply.
      assert.match(start.stderr, /^Database migrations: already applied to the local D1 databases$/m);
    } finally {
      try {
        process.kill(-start.child.pid, "SIGTERM");
      } catch {}
      await start.done;
    }
  });
});

// A throwaway `wrangler dev` for HTTP benchmarks: its own port and state directory, migrations
// applied, one scale-plan account (no rate limits) with a key, stopped and removed afterwards.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { passwordHash, root, wrangler as runWrangler, wranglerBin } from "../../scripts/lib/local.mjs";

export { root };

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

// A port nobody listens on (another dev server on a fixed port would silently answer instead).
const freePort = () =>
  new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

/** The local operator secret: wrangler dev lets .dev.vars win over --var. */
export function devOperatorSecret() {
  const file = path.join(root, ".dev.vars");
  const devVars = existsSync(file) ? readFileSync(file, "utf8") : "";
  return /^OPERATOR_SECRET=(.*)$/m.exec(devVars)?.[1] ?? randomBytes(24).toString("base64url");
}

/**
 * Starts the server and runs `body({ base, port, headers, state })`; `headers` authenticate the bench
 * account on /v1. `vars` become `--var` flags. BENCH_PORT overrides the free port (never 8787).
 * `prepare(state)` runs once the migrations are applied and the account exists, before the server
 * starts (e.g. to bulk-write rows into the state's SQLite file). `ownPorts`: a free port and a free
 * inspector port whatever BENCH_PORT says (for benches that run several servers at once).
 */
export async function withBenchServer(name, vars, body, { prepare, ownPorts = false } = {}) {
  const port = Number((!ownPorts && process.env.BENCH_PORT) || (await freePort()));
  const inspector = ownPorts ? ["--inspector-port", String(await freePort())] : [];
  if (port === 8787) throw new Error("BENCH_PORT 8787 is reserved for `npm start`.");
  const state = mkdtempSync(path.join(tmpdir(), `bench-${name}-`));
  const base = `http://127.0.0.1:${port}`;
  const wrangler = (args) => runWrangler(args, { persistTo: state });
  const sql = (command) => wrangler(["d1", "execute", "DB", "--local", "--json", "--command", command]);

  let server;
  try {
    wrangler(["d1", "migrations", "apply", "DB", "--local"]);
    const key = `ck_${randomBytes(18).toString("base64url")}`;
    const secret = `cs_${randomBytes(32).toString("base64url")}`;
    const sha = createHash("sha256").update(secret).digest("hex");
    // An account without a password cannot use the API (spec: 401), so give it one.
    const pw = passwordHash("bench");
    sql(`INSERT INTO accounts (email, confirmed, plan, kind, password_hash) VALUES ('bench@example.com', 1, 'scale', 'user', '${pw}')`);
    sql(
      `INSERT INTO api_keys (account_id, name, public_key, secret_hash, expires_at, created_at, updated_at)
       SELECT id, 'bench', '${key}', '${sha}', ${Date.now() + 86_400_000}, ${Date.now()}, ${Date.now()} FROM accounts WHERE email = 'bench@example.com'`,
    );

    if (prepare) await prepare(state);

    const varFlags = Object.entries({ ENVIRONMENT: "development", MPP_SECRET_KEY: randomBytes(32).toString("base64url"), ...vars }).flatMap(
      ([k, v]) => ["--var", `${k}:${v}`],
    );
    server = spawn(process.execPath, [wranglerBin, "dev", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", state, ...inspector, ...varFlags], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    let log = "";
    server.stdout.on("data", (d) => (log += d));
    server.stderr.on("data", (d) => (log += d));
    const started = Date.now();
    for (;;) {
      try {
        if ((await fetch(`${base}/`)).ok) break;
      } catch {}
      if (Date.now() - started > 90_000) throw new Error(`wrangler dev did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    return await body({ base, port, state, headers: { "X-Service-Key": key, "X-Service-Secret": secret } });
  } finally {
    if (server) server.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    rmSync(state, { recursive: true, force: true });
  }
}

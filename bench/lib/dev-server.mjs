// A throwaway `wrangler dev` for HTTP benchmarks: its own port and state directory, migrations
// applied, one account (scale plan, no rate limits, unless the bench names another) with a key,
// stopped and removed afterwards.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { applyMigrations, passwordHash, root, wrangler as runWrangler, wranglerBin } from "../../scripts/lib/local.mjs";

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
 * A state directory with migrations applied and one scale-plan account (no rate limits) with a key;
 * `headers` authenticate it on /v1. Remove `state` when done.
 */
export function prepareBenchState(name, plan = "scale") {
  const state = mkdtempSync(path.join(tmpdir(), `bench-${name}-`));
  applyMigrations({ persistTo: state });
  return { state, headers: addBenchAccount(state, "bench@example.com", plan) };
}

/** Adds a confirmed account of `plan` with an API key to a state directory (before its server starts); answers the key's headers. */
export function addBenchAccount(state, email, plan = "scale") {
  if (!/^[a-z-]+$/.test(plan)) throw new Error(`${plan} is not a plan name`);
  if (!/^[a-z0-9.@-]+$/.test(email)) throw new Error(`${email} is not a bench email`);
  const sql = (command) =>
    runWrangler(["d1", "execute", "DB", "--local", "--json", "--command", command], { persistTo: state });
  const key = `ck_${randomBytes(18).toString("base64url")}`;
  const secret = `cs_${randomBytes(32).toString("base64url")}`;
  const sha = createHash("sha256").update(secret).digest("hex");
  // An account without a password cannot use the API (spec: 401), so give it one.
  const pw = passwordHash("bench");
  sql(
    `INSERT INTO accounts (email, confirmed, plan, kind, password_hash) VALUES ('${email}', 1, '${plan}', 'user', '${pw}')`,
  );
  sql(
    `INSERT INTO api_keys (account_id, name, public_key, secret_hash, expires_at, created_at, updated_at)
     SELECT id, 'bench', '${key}', '${sha}', ${Date.now() + 86_400_000}, ${Date.now()}, ${Date.now()} FROM accounts WHERE email = '${email}'`,
  );
  return { "X-Service-Key": key, "X-Service-Secret": secret };
}

/** Whether something already listens on `port` (it, not the bench's server, would answer). */
const inUse = (port) =>
  new Promise((resolve) => {
    const srv = createServer()
      .once("error", () => resolve(true))
      .listen(port, "127.0.0.1", () => srv.close(() => resolve(false)));
  });

/** A port for a bench server: BENCH_PORT, or a free one (never 8787). */
export async function benchPort() {
  const port = Number(process.env.BENCH_PORT ?? (await freePort()));
  if (port === 8787) throw new Error("BENCH_PORT 8787 is reserved for `npm start`.");
  if (await inUse(port))
    throw new Error(`BENCH_PORT ${port} is in use: a server left running there would answer instead.`);
  return port;
}

/**
 * Starts `wrangler dev` on a state directory and waits until it answers. `stop(signal)` ends it and
 * every process it started (its own process group): SIGKILL is a crash.
 */
export async function startDevServer({ state, port, vars = {}, devFlags = [], wranglerEnv = {} }) {
  const base = `http://127.0.0.1:${port}`;
  const varFlags = Object.entries({ ENVIRONMENT: "development", ...vars }).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const inspectorPort = await freePort();
  const server = spawn(
    process.execPath,
    [
      wranglerBin,
      "dev",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      state,
      ...varFlags,
      ...devFlags,
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      // wrangler dev streams a trace of every event (each request, Durable Object call, storage and D1
      // query) into its local observability collector, in the same workerd process as the Worker:
      // production has no such collector on the request path, and it costs a call with a limiter
      // round trip about twice what it costs a bare route. Off unless BENCH_LOCAL_OBSERVABILITY=1.
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: "false",
        X_LOCAL_OBSERVABILITY: process.env.BENCH_LOCAL_OBSERVABILITY === "1" ? "true" : "false",
        ...wranglerEnv,
      },
      detached: true,
    },
  );
  let log = "";
  server.stdout.on("data", (d) => (log += d));
  server.stderr.on("data", (d) => (log += d));
  const exited = new Promise((resolve) => server.on("exit", resolve));
  const stop = async (signal = "SIGTERM") => {
    try {
      process.kill(-server.pid, signal);
    } catch {}
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  };
  const started = Date.now();
  for (;;) {
    try {
      if ((await fetch(`${base}/`)).ok) break;
    } catch {}
    if (Date.now() - started > 90_000) {
      await stop("SIGKILL");
      throw new Error(`wrangler dev did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  // `pid` leads the server's process group (wrangler and every workerd it started).
  return { base, inspectorPort, pid: server.pid, stop, log: () => log };
}

/**
 * Starts the server and runs `body({ base, port, inspectorPort, pid, state, headers })`; `headers`
 * authenticate the bench account on /v1. `vars` become `--var` flags, `devFlags` are added to
 * `wrangler dev`'s arguments. BENCH_PORT overrides the free port (never 8787).
 * `prepare(state)` runs once the migrations are applied and the account exists, before the server
 * starts (e.g. to bulk-write rows into the state's SQLite file). `ownPorts`: a free port whatever
 * BENCH_PORT says (for benches that run several servers at once; the inspector port is always free).
 * `plan`: the account's plan (scale by default). `wranglerEnv`: variables for wrangler itself (its own
 * switches), beside this process's environment.
 */
export async function withBenchServer(
  name,
  vars,
  body,
  { prepare, ownPorts = false, devFlags = [], plan, wranglerEnv = {} } = {},
) {
  const port = ownPorts ? await freePort() : await benchPort();
  const { state, headers } = prepareBenchState(name, plan);
  let server;
  try {
    // `prepare(state)` fills the state directory before the server opens it (seed:scale's index).
    if (prepare) await prepare(state);
    server = await startDevServer({
      state,
      port,
      vars: { MPP_SECRET_KEY: randomBytes(32).toString("base64url"), ...vars },
      devFlags,
      wranglerEnv,
    });
    return await body({
      base: server.base,
      port,
      inspectorPort: server.inspectorPort,
      pid: server.pid,
      state,
      headers,
    });
  } finally {
    await server?.stop();
    await new Promise((r) => setTimeout(r, 500));
    rmSync(state, { recursive: true, force: true });
  }
}

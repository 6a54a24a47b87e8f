// `npm start`: prepares the local database, seeds a demo account, prints its credentials and serves
// the API with `wrangler dev` on http://localhost:8787.
import { spawn } from "node:child_process";
import { ensureDevVars, root, wranglerBin } from "./lib/local.mjs";
import { seed } from "./seed.mjs";

const port = process.env.PORT ?? "8787";
const started = Date.now();
ensureDevVars();
const creds = seed(process.env.DEMO_PLAN ?? "pro");
const base = `http://localhost:${port}`;
console.log(`
  Contact Intelligence is starting on ${base}

  Demo account: ${creds.email}
    X-Service-Key:    ${creds.key}
    X-Service-Secret: ${creds.secret}

  Try:
    curl -s ${base}/v1/me -H 'X-Service-Key: ${creds.key}' -H 'X-Service-Secret: ${creds.secret}'

  (database ready in ${((Date.now() - started) / 1000).toFixed(1)} s; Ctrl+C stops the server)
`);
const child = spawn(process.execPath, [wranglerBin, "dev", "--port", port, "--ip", "127.0.0.1"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => process.exit(code ?? 0));

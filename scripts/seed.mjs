// Creates (or finds) a demo account on a plan in the local D1 database and prints its API key and
// secret as the last line of stdout: {"key": "...", "secret": "..."}.
//   npm run seed -- --plan growth
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { applyMigrations, d1, demoCredentialsFile, migrationsApplied, passwordHash, sqlText } from "./lib/local.mjs";
import { stepper } from "./lib/progress.mjs";

const PLANS = ["free", "basic", "growth", "pro", "pro-plus", "scale", "enterprise"];
export const DEMO_PASSWORD = "demo-password";
// Credentials of demo accounts are kept beside the local database (never committed) so that
// restarting `npm start` prints the same working pair.
const cacheFile = demoCredentialsFile;

const sha256 = (text) => createHash("sha256").update(text).digest("hex");
const token = (bytes) => randomBytes(bytes).toString("base64url");

/**
 * Each step is a wrangler call of a few seconds (two on a new state: the migrations, then the account
 * and its key); `progress` (stderr by default) says which one is running and how long it took.
 */
export function seed(plan = "pro", { migrate = true, progress = (text) => process.stderr.write(text) } = {}) {
  if (!PLANS.includes(plan)) throw new Error(`Unknown plan '${plan}'. Choose one of: ${PLANS.join(", ")}.`);
  const step = stepper(progress);
  if (migrate && migrationsApplied()) progress("Database migrations: already applied to the local D1 databases\n");
  else if (migrate)
    step("Applying database migrations to the local D1 databases (main and index)", () => applyMigrations());
  const email = `demo-${plan}@example.com`;
  // Each wrangler call starts node, wrangler and a workerd (~1.5 s of CPU): the account (a no-op
  // when it exists) goes into the same call as what is done with its key, read by a subquery.
  const createAccount = `INSERT OR IGNORE INTO accounts (email, first_name, last_name, password_hash, confirmed, plan, kind)
       VALUES (${sqlText(email)}, 'Demo', ${sqlText(plan)}, ${sqlText(passwordHash(DEMO_PASSWORD))}, 1, ${sqlText(plan)}, 'user')`;
  const accountId = `(SELECT id FROM accounts WHERE email = ${sqlText(email)})`;
  const cache = existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, "utf8")) : {};
  const cached = cache[plan];
  if (cached) {
    const [row] = step(`Checking the demo account ${email} and its saved key`, () =>
      d1(
        `${createAccount};
       SELECT id FROM api_keys WHERE public_key = ${sqlText(cached.key)} AND account_id = ${accountId}
       AND secret_hash = ${sqlText(sha256(cached.secret))} AND revoked_at IS NULL
       AND (expires_at IS NULL OR expires_at > ${Date.now()})`,
      ),
    );
    if (row) return { email, ...cached };
  }
  const key = `ck_${token(18)}`;
  const secret = `cs_${token(32)}`;
  const now = Date.now();
  step(cached ? "Issuing a demo key" : `Creating the demo account ${email} and its key`, () =>
    d1(
      `${createAccount};
       INSERT INTO api_keys (account_id, name, public_key, secret_hash, expires_at, created_at, updated_at)
       VALUES (${accountId}, 'Demo key', ${sqlText(key)}, ${sqlText(sha256(secret))}, ${now + 365 * 86_400_000}, ${now}, ${now})`,
    ),
  );
  mkdirSync(path.dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, JSON.stringify({ ...cache, [plan]: { key, secret } }, null, 2));
  return { email, key, secret };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { plan: { type: "string", default: "pro" } } });
  try {
    const creds = seed(values.plan);
    console.error(`Demo account ${creds.email} (plan ${values.plan}) is ready on the local database.`);
    console.log(JSON.stringify({ key: creds.key, secret: creds.secret }));
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}

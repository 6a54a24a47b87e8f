import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createApp } from "../src/app.js";
import { resetIsolateState } from "../src/platform/isolate-state.js";

const indexDatabases = [env.INDEX_0, env.INDEX_1, env.INDEX_2, env.INDEX_3];
// Every test file shares one workerd runtime (isolate: false in vitest.config.ts) and its databases, and
// globalThis with them: the migrations are applied by the runtime's first file. Asking again before
// each file found nothing to apply and cost 30-70 ms of round trips to the five databases.
const runtime = globalThis as { migrated?: Promise<void>; familyModules?: Promise<void> };
runtime.migrated ??= (async () => {
  await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
  for (const index of indexDatabases) await applyD1Migrations(index, env.TEST_INDEX_MIGRATIONS);
})();
await runtime.migrated;

// This file runs before each test file against the same D1. Emptying every table here gives each
// file the empty database it had when it ran in a runtime of its own. sqlite_sequence is kept on purpose: AUTOINCREMENT
// ids keep rising across files, so an account id (and the Durable Objects named after it, e.g. the
// account limiter) is never reused by a later file. The index databases are emptied the same way.
for (const d1 of [env.DB, ...indexDatabases]) {
  const { results } = await d1
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
    )
    .all<{ name: string }>();
  if (results.length) {
    await d1.batch([
      d1.prepare("PRAGMA defer_foreign_keys = ON"),
      ...results.map(({ name }) => d1.prepare(`DELETE FROM "${name.replaceAll('"', '""')}"`)),
    ]);
  }
}
// Per-isolate state that remembers rows of the emptied tables (or anything else a file did) goes with
// them: each file starts as a new isolate would.
resetIsolateState();

// The route families are imported on the first request that needs them (src/app.ts). Loading all of
// their modules once, here, keeps that one-time cost (the test runner transforms each module) out
// of whichever test happens to send a family's first request, and out of its timeout. The Worker's
// own app still builds each family on first use (test/http/families.test.ts covers that path);
// only the modules are loaded already.
runtime.familyModules ??= createApp().loadAll();
await runtime.familyModules;

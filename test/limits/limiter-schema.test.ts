import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { limiterFor } from "../../src/limits/admission.js";
import { LIMITER_SCHEMA_VERSION } from "../../src/limits/limiter-schema.js";
import { createAccount } from "../support/accounts.js";
import { afterRestart } from "../support/limiter.js";

// An account's limiter stores a schema version (`schema`); an object holding an older shape is
// brought to the current one once, in order, when it is loaded. Each test writes an older shape
// into a limiter's storage as that version wrote it, then builds the object again on it.

type Stub = DurableObjectStub<AccountLimiter>;
const stubOf = (accountId: number) => limiterFor(env, accountId) as unknown as Stub;

/** The repeat-window table as schema versions 1 (`withCharge` false) and 2 made it. */
function olderWindowTable(sql: SqlStorage, withCharge: boolean) {
  sql.exec("DROP TABLE IF EXISTS repeat_windows");
  sql.exec(`CREATE TABLE repeat_windows (
    fingerprint TEXT PRIMARY KEY, billed_at INTEGER NOT NULL, reservation TEXT, account_id INTEGER NOT NULL,
    capability TEXT NOT NULL, source TEXT NOT NULL, synced INTEGER NOT NULL DEFAULT 0
    ${withCharge ? ", call TEXT, charged TEXT" : ""}) WITHOUT ROWID`);
  sql.exec("CREATE INDEX repeat_windows_billed_at ON repeat_windows (billed_at)");
  sql.exec("CREATE INDEX repeat_windows_in_flight ON repeat_windows (reservation) WHERE reservation IS NOT NULL");
  sql.exec(
    "CREATE INDEX repeat_windows_unsynced ON repeat_windows (billed_at) WHERE synced = 0 AND reservation IS NULL",
  );
}

const columnsOf = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>("PRAGMA table_info(repeat_windows)")
    .toArray()
    .map((c) => c.name);

describe("the account limiter's stored schema", () => {
  it("ends a version-1 limiter's reservations once, as its sweep would, when the storage is migrated", async () => {
    const a = await createAccount({ plan: "scale" });
    const now = Date.now();
    await afterRestart(stubOf(a.accountId), async (_limiter, state) => {
      state.storage.kv.delete("schema"); // an object of the first schema
      olderWindowTable(state.storage.sql, false);
      // Charged at admission (no `amount`), its window opened in the table while its call ran.
      state.storage.kv.put("r:legacy-charged", { balance: "phone", fromPlan: 1, fromPack: 0, at: now, windows: true });
      state.storage.kv.put("credits", {
        month: new Date(now).toISOString().slice(0, 7),
        used: { search: 0, verification: 0, phone: 1 },
        pack: null,
      });
      state.storage.sql.exec(
        "INSERT INTO repeat_windows (fingerprint, billed_at, reservation, account_id, capability, source, synced) VALUES ('fp-legacy', ?, 'legacy-charged', ?, 'window-probe', 'api', 0)",
        now,
        a.accountId,
      );
    });
    const migrated = () =>
      afterRestart(stubOf(a.accountId), async (limiter, state) => ({
        // Its call ends after the move: the reservation is gone, nothing is charged, nothing billed.
        reply: await limiter.exchange({
          plan: "scale",
          settlements: [{ reservationIds: ["legacy-charged"], found: true, adjust: {} }],
        }),
        rows: state.storage.sql.exec("SELECT fingerprint FROM repeat_windows").toArray(),
        used: state.storage.kv.get<{ used: { phone: number } }>("credits")?.used.phone,
        schema: state.storage.kv.get<number>("schema"),
        columns: columnsOf(state.storage.sql),
      }));
    const first = await migrated();
    expect(first.reply.settlements[0]).toMatchObject({ billed: [], at: null });
    expect(first.rows).toEqual([]);
    expect(first.used).toBe(0); // refunded
    expect(first.schema).toBe(LIMITER_SCHEMA_VERSION);
    expect(first.columns).toEqual(expect.arrayContaining(["call", "charged"]));
    expect(first.columns).not.toContain("reservation");
    // Loaded again, nothing is refunded twice.
    await stubOf(a.accountId).exchange({ plan: "scale", admissions: [{ plan: "scale", group: null, cost: {} }] });
    const again = await migrated();
    expect(again.used).toBe(0);
    expect(again.schema).toBe(LIMITER_SCHEMA_VERSION);
  });

  it("moves a version-2 limiter's pack keys to the grant keys and drops what only the transition needed, once", async () => {
    const a = await createAccount({ plan: "scale" });
    const now = Date.now();
    const fingerprint = "fp-kept-before";
    await afterRestart(stubOf(a.accountId), async (_limiter, state) => {
      const sql = state.storage.sql;
      state.storage.kv.put("schema", 2);
      state.storage.kv.put("windows-adopted", true);
      olderWindowTable(sql, true);
      sql.exec(
        "INSERT INTO repeat_windows (fingerprint, billed_at, reservation, account_id, capability, source, synced, call, charged) VALUES (?, ?, NULL, ?, 'window-probe', 'api', 1, 'call-1', '{\"phone\":1}')",
        fingerprint,
        now - 86_400_000,
        a.accountId,
      );
      // A pack granted under an operator's key while grants shared the admissions' table.
      sql.exec(
        "CREATE TABLE IF NOT EXISTS admission_keys (key TEXT PRIMARY KEY, at INTEGER NOT NULL, result TEXT NOT NULL) WITHOUT ROWID",
      );
      sql.exec(
        "INSERT INTO admission_keys (key, at, result) VALUES ('pack:order-7', ?, ?)",
        now,
        JSON.stringify({ size: 1000, remaining: 1000 }),
      );
      state.storage.kv.put("credits", {
        month: new Date(now).toISOString().slice(0, 7),
        used: { search: 0, verification: 0, phone: 0 },
        pack: { size: 1000, remaining: 1000 },
      });
    });
    const migrated = () =>
      afterRestart(stubOf(a.accountId), async (limiter, state) => ({
        // The operator's order sent again under its key grants nothing twice.
        pack: limiter.grantPack(1000, "order-7"),
        phone: limiter.balances("scale").phone.available,
        // The window kept before the migration still makes its request a repeat.
        admission: (
          await limiter.exchange({
            plan: "scale",
            admissions: [
              {
                plan: "scale",
                group: null,
                cost: {},
                billing: {
                  accountId: a.accountId,
                  capability: "window-probe",
                  source: "api",
                  requests: [{ fingerprint, cost: { phone: 1 } }],
                },
              },
            ],
          })
        ).admissions[0],
        adopted: state.storage.kv.get("windows-adopted"),
        schema: state.storage.kv.get<number>("schema"),
        columns: columnsOf(state.storage.sql),
        grantKeys: state.storage.sql.exec("SELECT key FROM grant_keys").toArray(),
        admissionPacks: state.storage.sql.exec("SELECT key FROM admission_keys WHERE key LIKE 'pack:%'").toArray(),
      }));
    for (const round of [await migrated(), await migrated()]) {
      expect(round.pack).toEqual({ size: 1000, remaining: 1000 });
      expect(round.phone).toBe(10_000 + 1_000);
      expect(round.admission).toMatchObject({ admitted: true, repeats: { [fingerprint]: now - 86_400_000 } });
      expect(round.adopted).toBeUndefined();
      expect(round.schema).toBe(LIMITER_SCHEMA_VERSION);
      expect(round.columns).not.toContain("reservation");
      expect(round.grantKeys).toEqual([{ key: "pack:order-7" }]);
      expect(round.admissionPacks).toEqual([]);
    }
  });
});

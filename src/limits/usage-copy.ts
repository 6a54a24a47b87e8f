import type { WindowCharge } from "./repeat-windows.js";

/**
 * The D1 copy of billed requests: `billed_requests` (each request's latest billing instant, for
 * audits) and `usage_days` (charged calls per day, read by /v1/usage). The account's limiter holds
 * the truth (src/limits/repeat-windows.ts) and sends what D1 lacks, off the request path, from its
 * alarm or before /v1/usage reads (AccountLimiter.syncUsage).
 *
 * Sending the same charges twice changes nothing: a charge is counted in `usage_days` only when
 * `billed_requests` does not already hold its request billed at that instant or later, and both
 * statements run in one D1 batch (one transaction). So a copy that failed or was cut short is
 * simply sent again.
 */
export async function copyCharges(db: D1Database, charges: readonly WindowCharge[]): Promise<void> {
  const byAccount = new Map<number, WindowCharge[]>();
  for (const c of charges) byAccount.set(c.accountId, [...(byAccount.get(c.accountId) ?? []), c]);
  const statements: D1PreparedStatement[] = [];
  for (const [accountId, rows] of byAccount) {
    // One JSON parameter per statement: D1 binds at most 100 parameters.
    const json = JSON.stringify(rows.map((c) => [c.fingerprint, c.billedAt, c.capability, c.source]));
    statements.push(
      db
        .prepare(
          `INSERT INTO usage_days (account_id, day, capability, source, count)
           SELECT ?1, (json_extract(j.value, '$[1]') / 86400000) * 86400000, json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]'), count(*)
           FROM json_each(?2) AS j
           WHERE NOT EXISTS (
             SELECT 1 FROM billed_requests b
             WHERE b.account_id = ?1 AND b.fingerprint = json_extract(j.value, '$[0]') AND b.billed_at >= json_extract(j.value, '$[1]'))
           GROUP BY 2, 3, 4
           ON CONFLICT (account_id, day, capability, source) DO UPDATE SET count = count + excluded.count`,
        )
        .bind(accountId, json),
      db
        .prepare(
          `INSERT INTO billed_requests (account_id, fingerprint, billed_at)
           SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?2) WHERE true
           ON CONFLICT (account_id, fingerprint) DO UPDATE SET billed_at = max(billed_at, excluded.billed_at)`,
        )
        .bind(accountId, json),
    );
  }
  if (statements.length) await db.batch(statements);
}

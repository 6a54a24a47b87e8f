import type { Settlement, SettlementOutcome } from "../limits/limiter-messages.js";
import type { ChunkBilling } from "./job-records.js";

/** A chunk's billing still undecided this long after its rows were recorded is sent by the job itself. */
export const BILLING_RESEND_MS = 30_000;

/**
 * A bulk job's chunk billings (table `billing`): what a chunk's found rows cost, recorded with the
 * rows in one transaction, kept until the account's limiter has decided it, then applied to the
 * rows (each set to what its request was charged). The job's object sends those no delivery
 * brought to the limiter (the delivery died after recording).
 */
export class ChunkBillings {
  constructor(private readonly sql: SqlStorage) {}

  /** Keeps a chunk's billing (inside the transaction that records its rows); answers its id. */
  record(chunk: number, billing: ChunkBilling, now: number): number {
    return this.sql
      .exec<{ id: number }>(
        `INSERT INTO billing (chunk, plan, settlement, rows, at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
        chunk,
        billing.plan,
        JSON.stringify(billing.settlement),
        JSON.stringify(billing.rows),
        now,
      )
      .one().id;
  }

  /**
   * Applies the limiter's decision of billing `id` to its rows (each set to what its request was
   * charged; nothing when it was not billed) and forgets the billing. Taking a decision twice
   * changes nothing. Answers whether a row changed.
   */
  decide(id: number, outcome: SettlementOutcome): boolean {
    const [entry] = this.sql
      .exec<{ settlement: string; rows: string }>(`SELECT settlement, rows FROM billing WHERE id = ?`, id)
      .toArray();
    if (!entry) return false;
    const settlement = JSON.parse(entry.settlement) as Settlement;
    const rows = JSON.parse(entry.rows) as ChunkBilling["rows"];
    const sent = (settlement.parts ?? []).map((p) => p.fingerprint);
    const charged = (fingerprint: string): Partial<Record<"search" | "verification" | "phone", number>> | null => {
      const i = sent.indexOf(fingerprint);
      if (outcome.parts) return outcome.parts[i] ?? {};
      if (outcome.replayed) return outcome.replayed[i] ?? null;
      return outcome.billed.includes(fingerprint) ? null : {};
    };
    let changed = false;
    for (const { idx, fingerprint } of rows) {
      const credits = charged(fingerprint);
      // Billed, for an amount this limiter no longer knows (decided long ago): the row keeps its own.
      if (credits === null) continue;
      changed =
        this.sql.exec(
          `UPDATE rows SET c_search = ?1, c_verify = ?2, c_phone = ?3 WHERE idx = ?4 AND (c_search != ?1 OR c_verify != ?2 OR c_phone != ?3)`,
          credits.search ?? 0,
          credits.verification ?? 0,
          credits.phone ?? 0,
          idx,
        ).rowsWritten > 0 || changed;
    }
    this.sql.exec(`DELETE FROM billing WHERE id = ?`, id);
    return changed;
  }

  /** Whether a billing not decided yet settles any of these reservations. */
  holds(reservationIds: readonly string[]): boolean {
    if (!reservationIds.length) return false;
    const ids = new Set(reservationIds);
    return this.sql
      .exec<{ settlement: string }>(`SELECT settlement FROM billing`)
      .toArray()
      .some((b) => (JSON.parse(b.settlement) as Settlement).reservationIds.some((id) => ids.has(id)));
  }

  /** Chunk billings the limiter has not decided yet. */
  owed(): boolean {
    return this.sql.exec(`SELECT 1 FROM billing LIMIT 1`).toArray().length > 0;
  }

  /** Billings recorded BILLING_RESEND_MS before `now` or earlier and still undecided, oldest first. */
  due(now: number): { id: number; plan: string; settlement: Settlement }[] {
    return this.sql
      .exec<{ id: number; plan: string; settlement: string }>(
        `SELECT id, plan, settlement FROM billing WHERE at <= ? ORDER BY id LIMIT 20`,
        now - BILLING_RESEND_MS,
      )
      .toArray()
      .map((e) => ({ id: e.id, plan: e.plan, settlement: JSON.parse(e.settlement) as Settlement }));
  }
}

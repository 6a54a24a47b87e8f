import { DAY_MS } from "../platform/time.js";
import type { Change } from "./limiter-change.js";
import type { RateShareRequest, RateShareState } from "./limiter-messages.js";
import { type RateCounters, utcDay } from "./rate-counters.js";
import type { Limits } from "./rate-table.js";

/**
 * The isolates' shares of one account's daily rate limits (table `rate_shares`; the isolate's side
 * is isolate-rate-share.ts). A share is taken from what is left of one group's UTC day and counted
 * used there when granted: the daily counter always holds every request answered plus every unit
 * an isolate may still answer with, so however many isolates spend their shares at once, the day
 * never admits more than its limit. Only the unspent part of a share given back in its own day
 * returns to the counter; a share whose isolate died stays counted (under-serving the day by at
 * most one share per death, never over-serving it).
 *
 * Only a group whose limits in force are a daily one alone, or none (a pack that removes them), is
 * shared: a per-second or per-minute window is decided at the limiter, request by request. Every
 * request is harmless sent twice: a top-up by its sequence number, a give-back because the share is
 * remembered (closed) through the day after its own.
 */

interface ShareRow {
  grp: string;
  day: string;
  units: number;
  seq: number;
  closed: number;
}

export class RateShareBook {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS rate_shares (id TEXT PRIMARY KEY, grp TEXT NOT NULL, day TEXT NOT NULL,
        units INTEGER NOT NULL, seq INTEGER NOT NULL, closed INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID`,
    );
  }

  /**
   * A share asked for, topped up or given back, under the group's limits in force (`limits`), on
   * the limiter's clock. The counter changes and the row are written in the caller's transaction.
   */
  apply(req: RateShareRequest, limits: Limits, counters: RateCounters, now: number, change: Change): RateShareState {
    const state = counters.state(req.group, now);
    const row = this.find(req.id);
    const answer = (open: boolean, units: number, refused = false): RateShareState => ({
      id: req.id,
      open,
      units,
      msLeft: open ? Math.max(0, Date.parse(`${state.day}T00:00:00Z`) + DAY_MS - now) : 0,
      left: limits.daily ? Math.max(0, limits.daily - state.daily) : 0,
      refused,
    });
    if (req.close) {
      if (row && !row.closed) {
        // Only the unspent part of a share of this very day goes back: a past day's count is over.
        const unspent = Math.max(0, row.units - Math.min(row.units, req.spent ?? 0));
        if (row.day === state.day && unspent > 0) counters.addDaily(req.group, state, -unspent, change);
        this.sql.exec("UPDATE rate_shares SET closed = 1 WHERE id = ?", req.id);
      }
      return answer(false, row?.units ?? 0);
    }
    // Over (given back, or of a day already ended), or released before (an id unknown past its first top-up).
    if (row?.closed || (row && row.day !== state.day) || (!row && req.seq > 1)) return answer(false, row?.units ?? 0);
    if (row && req.seq <= row.seq) return answer(true, row.units);
    const want = Math.max(0, Math.floor(req.want ?? 0));
    // A window of a second or a minute is never shared; with no limit at all (a pack that removes
    // them), a share is harmless: its units are counted, nothing can be exceeded.
    const shareable = !limits.second && !limits.minute;
    const fits = shareable && (!limits.daily || state.daily + want + (req.floor ?? 0) <= limits.daily);
    if (!row) {
      if (!fits || want === 0) return answer(false, 0, true);
      // Shares of days already over are kept only through the next day: their give-back changes
      // nothing, but a late copy of a top-up (a message is given up within a minute) must find its
      // share closed rather than open a new one nobody spends.
      this.sql.exec("DELETE FROM rate_shares WHERE day < ?", utcDay(now - DAY_MS));
      this.sql.exec(
        "INSERT INTO rate_shares (id, grp, day, units, seq) VALUES (?, ?, ?, ?, ?)",
        req.id,
        req.group,
        state.day,
        want,
        req.seq,
      );
      counters.addDaily(req.group, state, want, change);
      return answer(true, want);
    }
    const granted = fits ? want : 0;
    if (granted) counters.addDaily(req.group, state, granted, change);
    this.sql.exec("UPDATE rate_shares SET units = ?, seq = ? WHERE id = ?", row.units + granted, req.seq, req.id);
    return answer(true, row.units + granted, !fits);
  }

  private find(id: string): ShareRow | undefined {
    return this.sql
      .exec<ShareRow & Record<string, SqlStorageValue>>(
        "SELECT grp, day, units, seq, closed FROM rate_shares WHERE id = ?",
        id,
      )
      .toArray()[0];
  }
}

import { type Amounts, BALANCES, type CreditBook } from "./credit-book.js";
import type { CreditBalance } from "./groups.js";
import { LEASE_TTL_MS } from "./isolate-lease.js";
import type { Change } from "./limiter-change.js";
import type { LeaseRequest, LeaseState } from "./limiter-messages.js";

/** Credits an isolate holds to answer calls before their charge reaches the limiter (an `l:` key). */
export interface Lease {
  held: Amounts;
  /** Last top-up or charge against it; the sweep releases it LEASE_TTL_MS later. */
  at: number;
  /** Sequence number of the last top-up applied (a top-up sent again is not applied twice). */
  seq: number;
}

/** The isolates' leases of one account's limiter (isolate-lease.ts is the isolate's side), held in its credit book. */
export class LeaseBook {
  private readonly leases = new Map<string, Lease>();

  constructor(private readonly credits: CreditBook) {}

  /** Holds a stored lease's credits again. */
  load(id: string, lease: Lease) {
    this.leases.set(id, lease);
    for (const b of BALANCES) this.credits.hold(b, lease.held[b] ?? 0, true);
  }

  get size(): number {
    return this.leases.size;
  }

  /**
   * A lease asked for, topped up or given back. A top-up adds, per balance, what is asked if `floor`
   * credits stay available after it (near the end of a balance every call is admitted first again);
   * any top-up, even of nothing, keeps the lease alive.
   */
  apply(req: LeaseRequest, plan: string, now: number, change: Change): LeaseState {
    let lease = this.leases.get(req.id);
    if (req.close) {
      if (lease) this.end(req.id, lease, change);
      return { id: req.id, held: {}, open: false, refused: [] };
    }
    if (lease && req.seq <= lease.seq) return { id: req.id, held: { ...lease.held }, open: true, refused: [] };
    // An id this limiter does not hold is new, unless its top-ups were seen before (released by the sweep).
    if (!lease && req.seq > 1) return { id: req.id, held: {}, open: false, refused: [] };
    const refused: CreditBalance[] = [];
    const grant: Amounts = {};
    for (const balance of BALANCES) {
      const want = req.want?.[balance] ?? 0;
      if (want <= 0) continue;
      if (this.credits.available(plan, balance, now) - want < (req.floor ?? 0)) refused.push(balance);
      else grant[balance] = want;
    }
    if (!lease) {
      if (!Object.keys(grant).length) return { id: req.id, held: {}, open: false, refused };
      lease = { held: {}, at: now, seq: 0 };
      this.leases.set(req.id, lease);
    }
    lease.seq = req.seq;
    for (const [balance, amount] of Object.entries(grant) as [CreditBalance, number][]) {
      lease.held[balance] = (lease.held[balance] ?? 0) + amount;
      this.credits.hold(balance, amount, true);
    }
    lease.at = now;
    change.put(`l:${req.id}`, lease);
    return { id: req.id, held: { ...lease.held }, open: true, refused };
  }

  /** True when lease `id` still holds all of `cost`. */
  covers(id: string | null, cost: Amounts): boolean {
    const lease = id ? this.leases.get(id) : undefined;
    return lease !== undefined && BALANCES.every((b) => (lease.held[b] ?? 0) >= (cost[b] ?? 0));
  }

  /** Takes `cost` out of lease `id` (which covers it): released from its hold, for the caller to charge. */
  spend(id: string, cost: Amounts, now: number, change: Change) {
    const lease = this.leases.get(id);
    if (!lease) throw new Error("a lease that covers a charge is missing");
    for (const b of BALANCES) {
      const amount = cost[b] ?? 0;
      if (amount <= 0) continue;
      lease.held[b] = (lease.held[b] ?? 0) - amount;
      this.credits.release(b, amount, true);
    }
    lease.at = now;
    change.put(`l:${id}`, lease);
  }

  /** Releases the leases not topped up or charged against for LEASE_TTL_MS (their isolate died or went quiet). */
  sweep(now: number, change: Change) {
    for (const [id, lease] of this.leases) if (now - lease.at >= LEASE_TTL_MS) this.end(id, lease, change);
  }

  /** When the first one expires (Infinity when none is held). */
  firstExpiry(): number {
    let first = Infinity;
    for (const l of this.leases.values()) first = Math.min(first, l.at + LEASE_TTL_MS);
    return first;
  }

  private end(id: string, lease: Lease, change: Change) {
    for (const b of BALANCES) this.credits.release(b, lease.held[b] ?? 0, true);
    this.leases.delete(id);
    change.delete(`l:${id}`);
  }
}

import { DurableObject } from "cloudflare:workers";

/**
 * One MailHostPacer per mail host paces the SMTP checks sent to it, whichever surface asked (/v1,
 * the agent surface, MCP, bulk jobs): at most `maxInFlight` checks at once and `perMinute` started
 * in any 60 s. A mail host is a provider when one provider serves many domains (every Google
 * Workspace domain lands on Google's servers, every Microsoft 365 tenant on Microsoft's), else the
 * domain's first MX host: hammering one of them gets the prober's address blocklisted for all.
 *
 * State lives in memory: an evicted object forgets its counts, which errs towards a few more checks
 * for one minute, never towards a stuck host. A slot is a lease: a caller that dies without
 * releasing it frees it after `leaseMs`.
 */

export interface PaceLimits {
  maxInFlight: number;
  perMinute: number;
  /** How long an unreleased slot stays taken (a crashed caller). */
  leaseMs: number;
}

export type PaceAnswer = { ticket: string } | { waitMs: number };

const MINUTE_MS = 60_000;

export class MailHostPacer extends DurableObject {
  private readonly leases = new Map<string, number>();
  private starts: number[] = [];

  async acquire(limits: PaceLimits): Promise<PaceAnswer> {
    const now = Date.now();
    for (const [ticket, until] of this.leases) if (until <= now) this.leases.delete(ticket);
    this.starts = this.starts.filter((t) => t > now - MINUTE_MS);
    if (this.leases.size >= limits.maxInFlight) {
      const soonest = Math.min(...this.leases.values());
      // A running check usually ends within seconds; ask again soon rather than at the lease's end.
      return { waitMs: Math.max(50, Math.min(soonest - now, 500)) };
    }
    const oldest = this.starts[0];
    if (this.starts.length >= limits.perMinute && oldest !== undefined) return { waitMs: oldest + MINUTE_MS - now };
    const ticket = crypto.randomUUID();
    this.leases.set(ticket, now + limits.leaseMs);
    this.starts.push(now);
    return { ticket };
  }

  async release(ticket: string): Promise<void> {
    this.leases.delete(ticket);
  }

  /** Checks in flight now (for tests and the operator). */
  async inFlight(): Promise<number> {
    return this.leases.size;
  }
}

/**
 * The mail host a domain's checks land on: "google" and "microsoft" for the two providers that serve
 * most companies (all their tenants share the same servers), else the first MX host.
 */
export function mailHostOf(mxHosts: readonly string[], domain: string): string {
  const first = (mxHosts[0] ?? domain).toLowerCase().replace(/\.$/, "");
  if (mxHosts.some((h) => /(^|\.)(google|googlemail)\.com\.?$/i.test(h))) return "google";
  if (mxHosts.some((h) => /\.(outlook|office365)\.com\.?$/i.test(h) || /\.protection\.outlook\./i.test(h)))
    return "microsoft";
  return first;
}

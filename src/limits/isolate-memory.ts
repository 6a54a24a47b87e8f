import { ExpiringMap } from "../platform/expiring-map.js";
import type { BalanceView, CreditBalance } from "./groups.js";
import { REPEAT_WINDOW_MS } from "./repeat-windows.js";

const MAX_OPEN_WINDOWS = 20_000;
/** Balances read from the limiter are shown for this long by /v1/me on plans without limits. */
export const BALANCES_TTL_MS = 1_000;
const MAX_BALANCE_ENTRIES = 5_000;

/**
 * What an isolate remembers of its accounts' limiters between requests, to spare round trips: the
 * balances it last read (shown by /v1/me for BALANCES_TTL_MS, unless this isolate changed them),
 * and the 30-day windows it knows to be open (exact: a kept window stays open its 30 days).
 */
export class IsolateMemory {
  /** (account, fingerprint) -> windows known kept: exact until they close (a kept window stays open 30 days). */
  private readonly openWindows = new ExpiringMap<string, true>(MAX_OPEN_WINDOWS);
  private readonly balancesSeen = new ExpiringMap<
    number,
    { plan: string; balances: Record<CreditBalance, BalanceView> }
  >(MAX_BALANCE_ENTRIES);
  /** Bumped whenever this isolate changes an account's credits: balances read before are not kept. */
  private balancesGeneration = 0;

  /** Balances read from the limiter less than BALANCES_TTL_MS ago, if this isolate has not changed the account's credits since. */
  knownBalances(accountId: number, plan: string, now: number): Record<CreditBalance, BalanceView> | undefined {
    const seen = this.balancesSeen.get(accountId, now, BALANCES_TTL_MS);
    return seen?.plan === plan ? seen.balances : undefined;
  }

  /** Remembers balances an admission answered with, as of the request's instant (unless this isolate changed them meanwhile). */
  rememberBalances(
    accountId: number,
    plan: string,
    balances: Record<CreditBalance, BalanceView>,
    readInGeneration: number,
    now: number,
  ): void {
    if (readInGeneration === this.balancesGeneration) this.balancesSeen.set(accountId, { plan, balances }, now);
  }

  get generation(): number {
    return this.balancesGeneration;
  }

  /** The account's credits changed (or may have): its next /v1/me asks the limiter. */
  forgetBalances(accountId: number): void {
    this.balancesGeneration += 1;
    this.balancesSeen.delete(accountId);
  }

  /** Remembers that the account was billed for this request at `billedAt` (its window is open from then on). */
  rememberWindow(accountId: number, fingerprint: string, billedAt: number): void {
    this.openWindows.set(`${accountId}:${fingerprint}`, true, billedAt);
  }

  /**
   * True when this isolate knows the account was billed for this request less than 30 days before
   * `now`: exact, since a kept window stays open for its 30 days whatever happens.
   */
  knownRepeat(accountId: number, fingerprint: string, now: number): boolean {
    return this.openWindows.get(`${accountId}:${fingerprint}`, now, REPEAT_WINDOW_MS) === true;
  }
}

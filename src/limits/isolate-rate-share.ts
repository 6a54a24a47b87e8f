import type { RateGroup } from "./groups.js";
import type { RateShareRequest, RateShareState } from "./limiter-messages.js";

/**
 * This isolate's share of one group's daily limit for one account (rate-share-book.ts is the
 * limiter's side): units the limiter already counted used in the group's day, so a call that spends
 * one is admitted without a round trip and sends no count. Kept exact by three rules:
 * - a unit is spent only before the share's day ends, measured on this isolate's clock from the
 *   first send of the message whose answer told the time left (that send came before the
 *   limiter's decision, so the day cannot have ended sooner);
 * - `spent` counts every unit taken, and a unit is taken only for a call about to be answered;
 * - what is given back is `units - spent`, sent once the share is closed (no unit is taken after).
 */
export class IsolateRateShare {
  readonly id = crypto.randomUUID();
  private seq = 0;
  /** Units the limiter said it granted in all. */
  private units = 0;
  private spent = 0;
  /** Spent only until then (this isolate's clock): the end of the share's UTC day, at the earliest. */
  private usableUntil = 0;
  /** No new spending: given back with the next round trip (idle, refused a top-up, or asked to). */
  private closing = false;
  /** The limiter answered it over: nothing to send for it any more. */
  ended = false;
  /** The limiter refused it a top-up (the day is near its limit): no new share before then (this isolate's clock). */
  noNewShareUntil = 0;
  private refused = false;
  private lastUse = 0;
  /** Requests of the day left at the limiter after its last answer (headers). */
  private leftAtLimiter = 0;

  constructor(
    readonly group: RateGroup,
    private readonly size: number,
    private readonly floor: number,
    private readonly idleMs: number,
  ) {}

  /** Takes one unit for a call about to be answered; false when the share cannot pay it (the call is admitted at the limiter). */
  take(now: number): boolean {
    if (this.closing || this.ended || now >= this.usableUntil || this.spent >= this.units) return false;
    this.spent += 1;
    this.lastUse = now;
    return true;
  }

  /** Stops spending: what is left goes back with the next round trip. */
  close(): void {
    this.closing = true;
  }

  /** Requests of the day this isolate may count on: what the limiter had left, plus its own unspent units. */
  left(): number {
    return this.leftAtLimiter + Math.max(0, this.units - this.spent);
  }

  /** What to send with the next round trip: a top-up when half the share is spent, the give-back once closing or idle, else nothing. */
  request(now: number): RateShareRequest | undefined {
    if (this.ended) return undefined;
    const id = this.id;
    if (this.closing) return { id, group: this.group, seq: ++this.seq, close: true, spent: this.spent };
    const unspent = this.units - this.spent;
    if (unspent * 2 > this.size && now < this.usableUntil) return undefined;
    return { id, group: this.group, seq: ++this.seq, want: this.size - unspent, floor: this.floor };
  }

  /** Wants a message of its own: it is to be given back (unused for idleMs, it is closed here). */
  givingBack(now: number): boolean {
    this.lastUse ||= now;
    if (now - this.lastUse >= this.idleMs) this.closing = true;
    return this.closing && !this.ended;
  }

  /** The limiter's answer to a round trip that carried request(), first sent at `sentAt` (this isolate's clock). */
  update(state: RateShareState, sentAt: number, now: number): void {
    this.refused ||= state.refused;
    if (!state.open) {
      this.ended = true;
      if (this.refused) this.noNewShareUntil = now + this.idleMs;
      this.closing = true;
      return;
    }
    this.units = Math.max(this.units, state.units);
    this.leftAtLimiter = state.left;
    this.usableUntil = Math.max(this.usableUntil, sentAt + state.msLeft);
    if (state.refused) this.closing = true;
  }
}

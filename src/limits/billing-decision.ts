/**
 * A call's billing, decided by its account's limiter after the call was answered: a late charge
 * (billed, or a repeat), or the settlement of a reservation (kept, or refunded). Every report of
 * the call (its log row's `cost`, a bulk row's credits) is written from this decision, never from
 * what the isolate expected, so the reports and the limiter's charges cannot disagree.
 *
 * The decision usually reaches another request than the one that answered the call (whichever
 * sends the round trip that carries it), and a request may not settle a promise another request
 * awaits: the decision is handed over as a plain value, and whoever comes second (the decision, or
 * the call asking for it) runs the follow-up in its own request's context.
 */
export class PendingDecision<T> {
  private value?: { decided: T };
  private followUp?: (decided: T) => Promise<unknown>;

  /** Hands over the limiter's decision; answers the follow-up that waited for it, to be awaited by the caller. */
  decide(decided: T): Promise<unknown> | undefined {
    if (this.value) return undefined;
    this.value = { decided };
    const followUp = this.followUp;
    this.followUp = undefined;
    return followUp?.(decided);
  }

  /** Runs `followUp` with the decision: now if it is known (the promise is the caller's to await), else when it comes. */
  whenDecided(followUp: (decided: T) => Promise<unknown>): Promise<unknown> | undefined {
    if (this.value) return followUp(this.value.decided);
    this.followUp = followUp;
    return undefined;
  }

  /** The decision if it has come. */
  get decided(): T | undefined {
    return this.value?.decided;
  }
}

/** Whether a call was billed, as the surfaces that report it see its decision. */
export interface BillingDecision {
  whenDecided(followUp: (billed: boolean) => Promise<unknown>): Promise<unknown> | undefined;
}

/** A decision of any kind, read as billed or not. */
export function billedWhen<T>(pending: PendingDecision<T>, billed: (decided: T) => boolean): BillingDecision {
  return { whenDecided: (followUp) => pending.whenDecided((decided) => followUp(billed(decided))) };
}

/** A decision known at the answer. */
export const decidedNow = (billed: boolean): BillingDecision => ({ whenDecided: (followUp) => followUp(billed) });
export const NOT_BILLED = decidedNow(false);

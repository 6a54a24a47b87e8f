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
  private followUps: ((decided: T) => Promise<unknown>)[] = [];

  /** Hands over the limiter's decision; answers the follow-ups that waited for it, to be awaited by the caller. */
  decide(decided: T): Promise<unknown> | undefined {
    if (this.value) return undefined;
    this.value = { decided };
    const waiting = this.followUps.splice(0);
    return waiting.length ? Promise.all(waiting.map((f) => f(decided))) : undefined;
  }

  /** Runs `followUp` with the decision: now if it is known (the promise is the caller's to await), else when it comes. */
  whenDecided(followUp: (decided: T) => Promise<unknown>): Promise<unknown> | undefined {
    if (this.value) return followUp(this.value.decided);
    this.followUps.push(followUp);
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

/**
 * The billing of a call that found something, sent to the limiter only when a surface takes its
 * report (asks for the decision): a request that ends before it reports its answer (cancelled,
 * answered by the deadline's 504 meanwhile) was never given it, and is charged nothing. The report
 * is the trigger, so no call is charged without a report waiting for the decision.
 */
export class BillingOnReport<T> implements BillingDecision {
  private pending?: PendingDecision<T>;

  constructor(
    private readonly send: () => PendingDecision<T>,
    private readonly billed: (decided: T) => boolean,
  ) {}

  whenDecided(followUp: (billed: boolean) => Promise<unknown>): Promise<unknown> | undefined {
    this.pending ??= this.send();
    return this.pending.whenDecided((decided) => followUp(this.billed(decided)));
  }
}

/** A decision known at the answer. */
export const decidedNow = (billed: boolean): BillingDecision => ({ whenDecided: (followUp) => followUp(billed) });
export const NOT_BILLED = decidedNow(false);

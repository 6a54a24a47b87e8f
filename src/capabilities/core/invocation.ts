import type { Env } from "../../env.js";
import type { BillingDecision } from "../../limits/billing-decision.js";
import type { CreditBalance } from "../../limits/groups.js";
import type { LimiterClient } from "../../limits/limiter-client.js";
import type { CapabilityResult } from "./registry.js";

// How a surface asks the executor to run a capability, and what it gets back; apart from
// execute.ts so that surface-log.ts can name them without an import cycle.

export interface Invocation {
  env: Env;
  waitUntil(promise: Promise<unknown>): void;
  accountId: number;
  plan: string;
  surface: "v1" | "agent" | "bulk";
  /**
   * A /v1 call a person made from the dashboard (its "Try it" page): counted under the "searches"
   * rate group (the spec's dashboard searches) instead of the capability's, billed as source "website".
   */
  fromDashboard?: boolean;
  now?: () => number;
  /**
   * The surface can take the billing decision after answering (`Execution.billing`): a call that
   * cannot be refused is then answered from the isolate's lease without waiting for its limiter.
   */
  chargeLater?: boolean;
  /** This isolate's money state (the Worker's one by default; tests play several isolates with several). */
  client?: LimiterClient;
  /**
   * The surface already answered without this call's answer (a 504 at the request's deadline): an
   * answer the caller never got is not charged, its credits released as for a not-found answer.
   */
  answerDropped?: () => boolean;
}

export interface Execution {
  response: Response;
  result?: CapabilityResult;
  /**
   * Whether credits were spent on this call, as its limiter decided: known at once for free,
   * not-found, agent-paid and 30-day repeat calls (not billed); decided after the answer for a call
   * that found something new. Every report of the call (log row, bulk row) is written from it.
   */
  billing: BillingDecision;
  /** What the call is charged, by balance, if its decision says billed (a credit-billed call that found something). */
  charged?: Partial<Record<CreditBalance, number>>;
}

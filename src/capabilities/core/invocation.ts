import type { Env } from "../../env.js";
import type { CreditBalance } from "../../limits/groups.js";
import type { PendingCharge } from "../../limits/late-charges.js";
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
   * The surface can learn whether the call was billed after answering it (`Execution.lateCharge`):
   * a call that cannot be refused is then answered without waiting for its limiter (late-charges.ts).
   */
  chargeLater?: boolean;
}

export interface Execution {
  response: Response;
  result?: CapabilityResult;
  /** Credits were spent on this call (false for free, not-found, agent-paid and 30-day repeat calls, and for late charges). */
  billed: boolean;
  /** What a billed call was charged, by balance. */
  charged?: Partial<Record<CreditBalance, number>>;
  /** A late charge: the limiter tells whether the call was billed after the answer (see Invocation.chargeLater). */
  lateCharge?: PendingCharge;
}

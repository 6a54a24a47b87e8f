import type { Env } from "../../env.js";
import type { CapabilityResult } from "./registry.js";

// How a surface asks the executor to run a capability, and what it gets back; apart from
// execute.ts so that surface-log.ts can name them without an import cycle.

export interface Invocation {
  env: Env;
  waitUntil(promise: Promise<unknown>): void;
  accountId: number;
  plan: string;
  surface: "v1" | "agent" | "bulk";
  now?: () => number;
}

export interface Execution {
  response: Response;
  result?: CapabilityResult;
  /** Credits were spent on this call (false for free, not-found, agent-paid and 30-day repeat calls). */
  billed: boolean;
}

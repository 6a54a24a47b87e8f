import type { Capability, CreditBalance } from "../capabilities/registry.js";
import type { Env } from "../env.js";

export interface AdmissionRequest {
  accountId: number;
  plan: string;
  capability: Capability;
  extraCost: Partial<Record<CreditBalance, number>>;
  now: number;
}

export type Admission =
  | {
      admitted: true;
      headers: Record<string, string>;
      /** Charges the reservation when something was found, refunds it otherwise. */
      settle(outcome: { found: boolean; extraCost?: Partial<Record<CreditBalance, number>> }): Promise<void>;
    }
  | { admitted: false; headers: Record<string, string>; refusal: Response };

/** Placeholder until the AccountLimiter lands: admits everything, charges nothing. */
export async function admitRequest(_env: Env, _req: AdmissionRequest): Promise<Admission> {
  return { admitted: true, headers: {}, settle: async () => {} };
}

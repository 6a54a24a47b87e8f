import type { CreditBalance } from "../limits/groups.js";
import { randomToken } from "../platform/crypto.js";
import { boundedMap } from "../platform/isolate-state.js";

/**
 * /v1 calls made in-process for a signed-in dashboard session (src/dashboard/v1-client.ts). The
 * dashboard opens a call for the session's account and sends its request to the app with a random
 * token in SESSION_CALL_HEADER; /v1's authentication (authenticate.ts) looks the token up here and acts for
 * that account exactly as for a key: the same account checks, limits, credits and routes. A token
 * exists only while its call is under way, in the isolate that opened it, so a request from outside
 * can never carry a live one (256 random bits, never sent off the isolate).
 */
export const SESSION_CALL_HEADER = "x-dashboard-call";

/** What the capability route tells the dashboard about a call it ran (the "Try it" page shows it). */
export interface CallCharge {
  found: boolean;
  billed: boolean;
  /** Credits taken, by balance (empty when not billed). */
  charged: Partial<Record<CreditBalance, number>>;
}

export interface SessionCall {
  readonly accountId: number;
  /** A read the dashboard makes to draw a page (not a person's action): not written to the request log. */
  readonly pageRead: boolean;
  /** Set by a capability route that ran this call. */
  charge?: CallCharge;
}

/** Calls under way; each is removed when its caller has the response (bounded: a leak cannot grow memory). */
const open = boundedMap<string, SessionCall>("dashboardCalls");

export function openSessionCall(
  accountId: number,
  pageRead: boolean,
): { token: string; call: SessionCall; close(): void } {
  const token = randomToken(32);
  const call: SessionCall = { accountId, pageRead };
  open.set(token, call);
  return { token, call, close: () => open.delete(token) };
}

/** The dashboard call a request belongs to, if it carries a live token. */
export function sessionCallOf(request: Request): SessionCall | undefined {
  const token = request.headers.get(SESSION_CALL_HEADER);
  return token ? open.get(token) : undefined;
}

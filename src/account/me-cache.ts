import { AUTH_CACHE_TTL_MS } from "../auth/auth-cache.js";
import { forgetBalances } from "../limits/admission.js";
import { expiringMap } from "../platform/isolate-state.js";

/**
 * What GET /v1/me reads from D1 besides the credential (the workspace the login belongs to),
 * remembered per isolate so a busy key's /v1/me is answered from memory. The rest it renders comes
 * from the verified-key cache (auth-cache.ts: account, plan) and from the admission: the credit
 * balances, which on a plan without limits the isolate may also answer from memory for at most
 * BALANCES_TTL_MS (1 s; src/limits/admission.ts), forgotten at once when this isolate reserves,
 * settles or grants credits for the account.
 *
 * Bound: the same as the verified-key cache: an entry is used at most AUTH_CACHE_TTL_MS after it
 * was read, and a key change through /v1/keys (revoke, reset, rename, delete) forgets the
 * account's entries, and its remembered balances, in this isolate at once.
 */
export interface MeView {
  teamId: number | null;
}

const views = expiringMap<string, MeView & { accountId: number; actorId: number }>("meViews");
const viewKey = (accountId: number, actorId: number) => `${accountId}:${actorId}`;

export function cachedMeView(accountId: number, actorId: number, now: number): MeView | undefined {
  return views.get(viewKey(accountId, actorId), now, AUTH_CACHE_TTL_MS);
}

export function rememberMeView(accountId: number, actorId: number, view: MeView, now: number): void {
  views.set(viewKey(accountId, actorId), { ...view, accountId, actorId }, now);
}

/** A key of this account changed: its logins read D1 again on their next /v1/me. */
export function forgetMeViews(accountId: number): void {
  views.deleteWhere((v) => v.accountId === accountId || v.actorId === accountId);
  forgetBalances(accountId);
}

import type { Account } from "../db/schema.js";
import type { SessionCall } from "./session-calls.js";

// Kept apart from auth.ts (no imports of the Worker's modules) so that src/env.ts can type the
// `auth` request variable without an import cycle.

/** Who a /v1 request acts for, set by the auth middleware. */
export interface AuthContext {
  /** The account whose credits, limits and usage this request uses (the workspace owner for members). */
  account: Account;
  /** The account that holds the credential. */
  actor: Account;
  keyId: number | null;
  /** The OAuth app acting for the account (bearer tokens); null for key + secret. */
  oauthClientId?: string | null;
  /** Set when a signed-in dashboard session made the call in-process (session-calls.ts). */
  session?: SessionCall;
}

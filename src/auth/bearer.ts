import { eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { type Account, accounts } from "../db/schema.js";
import type { Env } from "../env.js";
import { ApiError, type CodeWithStatus } from "../http/errors.js";
import { authorizationServer, type GrantProps, issuerFor, resourceFor, type Scope } from "./oauth-config.js";
import { TOKEN_SHAPE, whyRefused } from "./token-records.js";
import { joinWorkspaceOwner, otherOwner, owners } from "./workspace-owner.js";

export interface BearerIdentity {
  actor: Account;
  owner: Account | null;
  clientId: string;
  scope: string[];
}

const REALM = 'realm="account-api"';

function challenge(error: string, description: string, extra = ""): Record<string, string> {
  return { "WWW-Authenticate": `Bearer ${REALM}, error="${error}", error_description="${description}"${extra}` };
}

function refuse(type: Extract<CodeWithStatus<401>, `access_token_${string}`>, message: string): never {
  throw new ApiError(401, type, message, challenge("invalid_token", message));
}

/** The token in `Authorization: Bearer <token>`, or null when the header is absent or another scheme. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(.*)$/i.exec(header);
  return match?.[1]?.trim() ?? null;
}

/**
 * Resolves an access token to the account it acts for. 401 with a distinct error type for a
 * malformed, unknown, expired or revoked token, each with a `WWW-Authenticate: Bearer` challenge.
 */
export async function resolveBearer(env: Env, url: URL, token: string): Promise<BearerIdentity> {
  if (!TOKEN_SHAPE.test(token))
    refuse("access_token_malformed", "The bearer token is not an access token issued by this service.");
  const server = authorizationServer(env, url);
  const valid = await server.validateToken<GrantProps>(resourceFor(issuerFor(env, url)), token, env);
  if (!valid) {
    const reason = await whyRefused(env, token);
    if (reason === "expired")
      refuse("access_token_expired", "The access token has expired. Use your refresh token to get a new one.");
    if (reason === "revoked") refuse("access_token_revoked", "The access token was revoked. Authorize the app again.");
    refuse("access_token_invalid", "The access token is not known to this service.");
  }
  const found = await findAccount(env.DB, valid.props.accountId);
  if (!found) refuse("access_token_revoked", "The account this token was issued for no longer exists.");
  return { ...found, clientId: valid.clientId, scope: valid.scope };
}

/** Paths an `account:read` token may GET; everything else needs `api`. */
const READ_ONLY_PATHS = [/^\/v1\/me$/, /^\/v1\/usage$/, /^\/v1\/logs(\/[^/]+)?$/, /^\/v1\/rate-limits$/];

/** 403 insufficient_scope unless the token's scopes cover this request. */
export function assertScopeAllows(scope: string[], method: string, path: string): void {
  if (scope.includes("api" satisfies Scope)) return;
  const readOnly = (method === "GET" || method === "HEAD") && READ_ONLY_PATHS.some((p) => p.test(path));
  if (readOnly && scope.includes("account:read" satisfies Scope)) return;
  const message = "This token's scopes do not allow this request; it needs the api scope.";
  throw new ApiError(403, "insufficient_scope", message, {
    "WWW-Authenticate": `Bearer ${REALM}, error="insufficient_scope", error_description="${message}", scope="api"`,
  });
}

async function findAccount(
  d1: D1Database,
  accountId: number,
): Promise<{ actor: Account; owner: Account | null } | null> {
  const query = db(d1).select({ actor: accounts, owner: owners }).from(accounts).$dynamic();
  const rows = await joinWorkspaceOwner(query).where(eq(accounts.id, accountId)).limit(1);
  const row = rows[0];
  if (!row) return null;
  return { actor: row.actor, owner: otherOwner(row.actor, row.owner) };
}

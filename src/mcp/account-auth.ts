import { authenticate } from "../auth/authenticate.js";
import { apiErrorOf, errorResponse } from "../http/errors.js";
import type { Ctx } from "../http/openapi.js";
import { bearerChallenge, resourceMetadataUrl } from "./protected-resource.js";

const verifyCredentials = authenticate();
const noop = async () => {};

/**
 * The /v1 credentials, checked the /v1 way (same keys, tokens, account checks and scope rule), with
 * MCP's authorization twist: every 401 and 403 names the protected-resource metadata, so an MCP
 * client that has no token (or a bad one) can discover our authorization server and sign in.
 * Returns null and sets `auth` on the context when the caller may go on; otherwise the answer.
 */
export async function authenticateMcpCaller(c: Ctx): Promise<Response | null> {
  const url = new URL(c.req.url);
  const presented = c.req.header("x-service-key") ?? c.req.header("x-service-secret") ?? c.req.header("authorization");
  if (!presented) {
    return errorResponse(
      401,
      "authentication_failed",
      "Sign in with OAuth (an MCP client discovers how from the WWW-Authenticate header) or send X-Service-Key and X-Service-Secret.",
      { "WWW-Authenticate": bearerChallenge(url) },
    );
  }
  try {
    await verifyCredentials(c, noop);
    return null;
  } catch (err) {
    const refusal = apiErrorOf(err);
    if (!refusal || (refusal.status !== 401 && refusal.status !== 403)) throw err;
    const given = refusal.headers["WWW-Authenticate"];
    // A bearer refusal keeps its error and description; a key refusal gets the plain challenge.
    const challenge = given?.startsWith("Bearer ")
      ? `${given}, resource_metadata="${resourceMetadataUrl(url)}"`
      : bearerChallenge(url);
    return errorResponse(refusal.status, refusal.type, refusal.message, {
      ...refusal.headers,
      "WWW-Authenticate": challenge,
    });
  }
}

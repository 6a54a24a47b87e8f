import { assertPublicHost, EgressError, isLoopbackHost } from "../engine/web/egress.js";
import { type Env, isProduction } from "../env.js";
import { ApiError } from "../http/errors.js";

/**
 * Where a delivery may go. A webhook or callback URL is supplied by a user, and the Worker POSTs
 * to it later, so it must not become a way to reach private networks:
 *  - https only, on its standard port 443 (the spec wants HTTPS; production egress fetches only
 *    the standard ports, so another port is refused here, when the URL is given, not at delivery);
 *    outside production, plain http is allowed to loopback hosts so a receiver on the
 *    developer's own machine can be used;
 *  - no credentials in the URL;
 *  - the host (or every address its name resolves to, A and AAAA) must be public, judged by the
 *    one egress guard (src/engine/web/egress.ts), which also checks again at every attempt.
 */

function refuse(field: string, reason: string): never {
  throw new ApiError(400, "params_invalid", `The parameter '${field}' is invalid: ${reason}.`);
}

export async function assertDeliverableUrl(env: Env, url: string, field: string): Promise<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    refuse(field, "expected an absolute https:// URL");
  }
  if (parsed.username || parsed.password)
    refuse(field, "URLs with credentials are not accepted; send secrets as webhook headers instead");
  const loopback = isLoopbackHost(parsed);
  if (loopback && !isProduction(env) && parsed.protocol === "http:") return parsed;
  if (parsed.protocol !== "https:") refuse(field, "the URL must use https");
  // The URL parser drops an explicit :443, so any port left is another one.
  if (parsed.port) {
    throw new ApiError(
      422,
      "url_not_allowed",
      `The parameter '${field}' is not allowed: HTTPS deliveries go to port 443 only, and this URL names port ${parsed.port}. Drop the port or serve the receiver on 443.`,
    );
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (loopback || (!host.includes(".") && !host.includes(":")))
    refuse(field, "the host is not a public name; private, loopback and link-local hosts are refused");
  try {
    await assertPublicHost(env, parsed.hostname, parsed.href);
  } catch (err) {
    if (!(err instanceof EgressError)) throw err;
    if (err.kind === "no_such_host") refuse(field, `the host ${host} does not resolve`);
    if (err.kind === "refused")
      refuse(
        field,
        `the host ${host} is not public (${err.reason}): private, loopback and link-local addresses are refused`,
      );
    throw err;
  }
  return parsed;
}

import { getDomain } from "tldts";
import type { Env } from "../../env.js";
import { EgressError, guardedFetch, TEXT_TYPES } from "./egress.js";

export { CRAWLER_USER_AGENT } from "./egress.js";

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
}

export type PageFetch =
  | { kind: "ok"; url: string; status: number; contentType: string; body: string; truncated: boolean }
  /** The server answered, but not with a page we can use (4xx, non-text, an off-site redirect, a refused host). */
  | { kind: "unusable"; url: string; status: number; reason: string; refused?: boolean }
  /** Nothing usable came back: network failure, 5xx, or the time ran out. */
  | { kind: "unreachable"; url: string; reason: string; timedOut: boolean; noSuchHost?: boolean };

/**
 * GETs one page through the egress guard (every hop's URL and addresses checked, redirects kept on
 * the page's registrable domain, body cut at `maxBytes`, the whole exchange bounded by `timeoutMs`)
 * and sorts the outcome into what the crawler can use.
 */
export async function fetchPage(start: string, env: Env, limits: FetchLimits): Promise<PageFetch> {
  const site = getDomain(start) ?? undefined;
  try {
    const res = await guardedFetch(env, start, { timeoutMs: limits.timeoutMs, maxBytes: limits.maxBytes, maxRedirects: limits.maxRedirects ?? 4, site });
    if (res.status >= 500) return { kind: "unreachable", url: res.url, reason: `HTTP ${res.status}`, timedOut: false };
    if (res.status >= 300) return { kind: "unusable", url: res.url, status: res.status, reason: `HTTP ${res.status}` };
    const contentType = res.contentType || "text/html";
    if (!res.body || !TEXT_TYPES.test(contentType)) return { kind: "unusable", url: res.url, status: res.status, reason: `content type ${contentType}` };
    return { kind: "ok", url: res.url, status: res.status, contentType, body: res.text(), truncated: res.truncated };
  } catch (err) {
    if (!(err instanceof EgressError)) throw err;
    if (err.kind === "refused") return { kind: "unusable", url: err.url, status: 0, reason: err.reason, refused: true };
    return {
      kind: "unreachable",
      url: err.url,
      reason: err.kind === "timeout" ? "timed out" : err.reason,
      timedOut: err.kind === "timeout",
      ...(err.kind === "no_such_host" ? { noSuchHost: true } : {}),
    };
  }
}

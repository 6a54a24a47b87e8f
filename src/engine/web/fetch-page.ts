import { getDomain } from "tldts";
import type { Env } from "../../env.js";
import { consentAcceptLink } from "./consent.js";
import type { CookieJar } from "./cookies.js";
import { EgressError, guardedFetch, TEXT_TYPES } from "./egress.js";
import { type RateAllowance, readRateLimit } from "./rate-limit-fields.js";

export { CRAWLER_USER_AGENT } from "./egress.js";

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  /** Also read PDF documents (as bytes, kind "document"); otherwise they are not downloaded. */
  documents?: boolean;
  /** The caller's clock (a Retry-After date is read against it). */
  now?: () => number;
  /** The pass's cookies for this site: with them, a consent wall's accept link is followed (consent.ts). */
  cookies?: CookieJar;
  /** Ends the ask early (the pass stops waiting for it): answered as a time-out. */
  signal?: AbortSignal;
}

/** What the answer's rate-limit fields said (rate-limit-fields.ts), when it carried any. */
interface Paced {
  rateLimit?: RateAllowance;
}

export type PageFetch = (
  | { kind: "ok"; url: string; status: number; contentType: string; body: string; truncated: boolean }
  /** A PDF or an Office document (contentType "docx"/"xlsx"), when asked for (`documents`): its bytes, to be read by pdf-text.ts or office-text.ts. */
  | { kind: "document"; url: string; status: number; contentType: string; bytes: Uint8Array; truncated: boolean }
  /**
   * The server answered, but not with a page we can use (4xx, non-text, an off-site redirect, a
   * refused host). `challenge`: a bot challenge (403 `cf-mitigated: challenge`, "Just a moment..."),
   * not worth retrying; `transient`: a 429, worth one later try after `retryAfterMs`.
   */
  | {
      kind: "unusable";
      url: string;
      status: number;
      reason: string;
      refused?: boolean;
      challenge?: boolean;
      transient?: boolean;
      retryAfterMs?: number;
      /**
       * A consent wall's accept link, not followed: the site's stated allowance had no room for it
       * and the page it sends back to. Asking this URL once the window turns reads the page.
       */
      deferredAccept?: string;
    }
  /** Nothing usable came back: network failure, 5xx, or the time ran out. Worth one later try, except a challenge. */
  | {
      kind: "unreachable";
      url: string;
      reason: string;
      timedOut: boolean;
      noSuchHost?: boolean;
      status?: number;
      challenge?: boolean;
      retryAfterMs?: number;
    }
) &
  Paced;

const PDF_TYPES = /^application\/(pdf|x-pdf|octet-stream)|^binary\/octet-stream/i;
/** Office documents (.docx, .xlsx), read like PDFs (office-text.ts). */
const OFFICE_TYPES = /^application\/(vnd\.openxmlformats-officedocument\.|vnd\.ms-excel|msword|zip)/i;
/** How much of an error page is read to tell a bot challenge from a plain refusal. */
const ERROR_BODY_BYTES = 16 * 1024;

/**
 * GETs one page through the egress guard (every hop's URL and addresses checked, redirects kept on
 * the page's registrable domain, body cut at `maxBytes` after inline base64 payloads are dropped,
 * the whole exchange bounded by `timeoutMs`) and sorts the outcome into what the crawler can use.
 */
export async function fetchPage(
  start: string,
  env: Env,
  limits: FetchLimits & { documents?: false },
): Promise<Exclude<PageFetch, { kind: "document" }>>;
export async function fetchPage(start: string, env: Env, limits: FetchLimits): Promise<PageFetch>;
export async function fetchPage(start: string, env: Env, limits: FetchLimits): Promise<PageFetch> {
  return fetchOnce(start, env, limits, false);
}

async function fetchOnce(start: string, env: Env, limits: FetchLimits, consented: boolean): Promise<PageFetch> {
  const site = getDomain(start) ?? undefined;
  try {
    const res = await guardedFetch(env, start, {
      timeoutMs: limits.timeoutMs,
      maxBytes: limits.maxBytes,
      maxRedirects: limits.maxRedirects ?? 4,
      site,
      dropInlineData: true,
      errorBodyBytes: ERROR_BODY_BYTES,
      ...(limits.cookies ? { cookies: limits.cookies } : {}),
      ...(limits.signal ? { signal: limits.signal } : {}),
      ...(limits.documents
        ? { accept: new RegExp(`${TEXT_TYPES.source}|${PDF_TYPES.source}|${OFFICE_TYPES.source}`, "i") }
        : {}),
    });
    const now = (limits.now ?? Date.now)();
    const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"), now);
    const rateLimit = readRateLimit(res.headers, now);
    const paced = rateLimit ? { rateLimit } : {};
    const retry = retryAfterMs === null ? paced : { retryAfterMs, ...paced };
    const errorText = res.status >= 300 && res.body ? res.text() : "";
    if (isBotChallenge(res.status, res.headers, errorText)) {
      return {
        kind: "unusable",
        url: res.url,
        status: res.status,
        reason: `bot challenge (HTTP ${res.status})`,
        challenge: true,
        ...paced,
      };
    }
    if (res.status >= 500)
      return {
        kind: "unreachable",
        url: res.url,
        reason: `HTTP ${res.status}`,
        timedOut: false,
        status: res.status,
        ...retry,
      };
    if (res.status === 429)
      return { kind: "unusable", url: res.url, status: 429, reason: "HTTP 429", transient: true, ...retry };
    if (res.status >= 300)
      return { kind: "unusable", url: res.url, status: res.status, reason: `HTTP ${res.status}`, ...paced };
    const contentType = res.contentType || "text/html";
    if (res.body && limits.documents && isOfficeDocument(contentType, res.url, res.body)) {
      return {
        kind: "document",
        url: res.url,
        status: res.status,
        contentType: /\.xlsx($|\?)/i.test(res.url) || /sheet|excel/i.test(contentType) ? "xlsx" : "docx",
        bytes: res.body,
        truncated: res.truncated,
        ...paced,
      };
    }
    if (res.body && limits.documents && isPdf(contentType, res.url, res.body)) {
      return {
        kind: "document",
        url: res.url,
        status: res.status,
        contentType: "application/pdf",
        bytes: res.body,
        truncated: res.truncated,
        ...paced,
      };
    }
    if (!res.body || !TEXT_TYPES.test(contentType))
      return { kind: "unusable", url: res.url, status: res.status, reason: `content type ${contentType}`, ...paced };
    const body = res.text();
    // A challenge page may also come with 200 (a JavaScript check before the real page).
    if (isBotChallenge(res.status, res.headers, body))
      return { kind: "unusable", url: res.url, status: res.status, reason: "bot challenge", challenge: true, ...paced };
    const page = {
      kind: "ok" as const,
      url: res.url,
      status: res.status,
      contentType,
      body,
      truncated: res.truncated,
      ...paced,
    };
    // A wall sent us to its consent page: accept once (the cookie is kept) and be sent back.
    const accept = limits.cookies && !consented ? consentAcceptLink(start, res.url, body) : null;
    // The accept and the page it sends back to are two more requests: a site whose stated allowance
    // has no room for both is not asked into a 429 (which would turn the whole site away).
    if (accept && rateLimit && rateLimit.remaining < 2)
      return {
        kind: "unusable",
        url: res.url,
        status: res.status,
        reason: "consent wall: no room in the rate limit to accept",
        deferredAccept: accept,
        // Nothing else fits either: a page asked now meets the wall again.
        rateLimit: { ...rateLimit, remaining: 0 },
      };
    if (accept) {
      const back = await fetchOnce(accept, env, { ...limits, documents: false }, true);
      if (back.kind === "ok") return back;
      // The accept did not go through for now (a rate limit): the page is not read yet, not read as the wall.
      if (back.kind === "unreachable" || (back.kind === "unusable" && (back.transient || back.challenge))) return back;
    }
    return page;
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

/** An Office document: a zip under an Office (or zip) type or a .docx/.xlsx address. */
function isOfficeDocument(contentType: string, url: string, bytes: Uint8Array): boolean {
  const zip = bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
  return zip && (OFFICE_TYPES.test(contentType) || /\.(docx|xlsx)($|\?)/i.test(url));
}

/** A PDF by its type, or an octet stream that starts like one (`%PDF-`) under a `.pdf` address. */
function isPdf(contentType: string, url: string, bytes: Uint8Array): boolean {
  const magic = bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46;
  if (/^application\/(x-)?pdf/i.test(contentType)) return true;
  return PDF_TYPES.test(contentType) && magic && /\.pdf($|\?)/i.test(url);
}

/**
 * Cloudflare marks its challenges with `cf-mitigated: challenge`; other defences (and older
 * Cloudflare pages) are known by their interstitial: "Just a moment...", "Attention Required!",
 * "Checking your browser", a challenge-platform script. Only short pages qualify: a real page
 * that quotes the phrase is not a challenge.
 */
export function isBotChallenge(status: number, headers: Headers, body: string): boolean {
  if (/\bchallenge\b/i.test(headers.get("cf-mitigated") ?? "")) return true;
  if (status !== 403 && status !== 503 && status !== 429 && status !== 200) return false;
  if (body.length > 64 * 1024) return false;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim() ?? "";
  if (
    /^(just a moment\.*|attention required!.*|one more step|please wait\.*|checking your browser.*|ddos-guard)$/i.test(
      title,
    )
  ) {
    return status !== 200 || /challenge|captcha|cf-chl|enable javascript and cookies/i.test(body);
  }
  return status !== 200 && /\/cdn-cgi\/challenge-platform\/|window\._cf_chl_opt|cf-browser-verification/i.test(body);
}

/** `Retry-After` in milliseconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

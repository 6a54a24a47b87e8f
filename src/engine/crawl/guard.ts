import { parse } from "tldts";
import { type Env, isProduction } from "../../env.js";
import { ApiError } from "../../http/errors.js";

/**
 * What the crawler may fetch. In production, URLs that come from user input must be public
 * http(s) hosts: no IP literals, no loopback/intranet names, no hosts outside the public suffix
 * list. (Cloudflare's own fetch cannot reach private networks either; this refuses them early and
 * with a clear message.) Tests and local runs use `.test` hosts, so the host check is
 * production-only; the scheme check applies everywhere.
 */
const INTERNAL_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home|corp|localdomain|home\.arpa)$/i;

export function refusalReason(url: URL, env: Pick<Env, "ENVIRONMENT">): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "only http and https URLs can be fetched";
  if (url.username || url.password) return "URLs with credentials are not fetched";
  if (!isProduction(env)) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const info = parse(host);
  if (info.isIp || /^[\d.]+$/.test(host) || host.includes(":")) return "IP addresses are not fetched";
  if (INTERNAL_NAMES.test(host)) return "private and loopback hosts are not fetched";
  if (!info.domain || !(info.isIcann || info.isPrivate)) return "the host is not under a public domain suffix";
  if (url.port && url.port !== "80" && url.port !== "443") return "only the standard web ports are fetched";
  return null;
}

export function assertFetchable(url: URL, env: Pick<Env, "ENVIRONMENT">): void {
  const reason = refusalReason(url, env);
  if (reason) throw new ApiError(422, "url_not_allowed", `The URL ${url.href} cannot be fetched: ${reason}.`);
}

/** True for IPv4 addresses in private, loopback, link-local or otherwise non-public ranges. */
export function isPrivateIPv4(ip: string): boolean {
  const parts = ip.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return false;
  const [a, b] = parts as [number, number, number, number];
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
}

/**
 * Parses user input as a URL; a missing scheme means https (SDK examples pass "example.com/post").
 * Throws 400 for text that is not a URL.
 */
export function parseUserUrl(input: string, env: Pick<Env, "ENVIRONMENT">): URL {
  const raw = input.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(raw) && !/^[^:/]+:\d+/.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw new ApiError(400, "params_invalid", `The parameter 'url' is invalid: "${raw.slice(0, 100)}" is not a URL.`);
  }
  if (!url.hostname.includes(".")) {
    throw new ApiError(400, "params_invalid", `The parameter 'url' is invalid: "${raw.slice(0, 100)}" has no domain.`);
  }
  assertFetchable(url, env);
  return url;
}

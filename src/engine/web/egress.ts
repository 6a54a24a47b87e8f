import { getDomain, parse } from "tldts";
import { type Env, isProduction } from "../../env.js";
import { DnsUnavailableError, resolverFor } from "../dns/resolver.js";
import { brotliDecoding } from "./brotli.js";
import { bomEncoding, decodeBody } from "./charset.js";
import type { CookieJar } from "./cookies.js";
import { EgressError } from "./egress-error.js";
import { InlineDataFilter } from "./inline-data.js";
import { classifyAddress, isAllowedAddress } from "./ip-ranges.js";

/**
 * THE egress guard: every outbound request the service makes on behalf of a caller (crawler pages,
 * robots.txt, sitemaps, author-finder articles, technology home pages, company facts, callbacks and
 * webhooks) goes through `guardedFetch`. No other module calls `fetch` on a URL that a caller,
 * a crawled page or a DNS answer chose.
 *
 * For the first URL and every redirect hop it checks:
 *   - the URL itself (http/https, no credentials; in production no IP literals, no intranet names,
 *     a public suffix and the standard ports);
 *   - the host's addresses: A and AAAA are both resolved over DNS-over-HTTPS and any answer that is
 *     private, loopback, link-local, CGNAT or otherwise reserved refuses the request (an IP literal
 *     is checked the same way, in every environment: `127.1` and `0x7f.1` are 127.0.0.1);
 *   - optionally that the hop stays on one registrable domain (`site`).
 * Then the body is read up to `maxBytes` and only when the content type is one the caller accepts.
 *
 * What stays outside: the DNS-over-HTTPS resolver itself and the Reacher SMTP backend are
 * operator-configured URLs (`DOH_URL`, `REACHER_URL`), never chosen by a caller, and a self-hosted
 * Reacher may legitimately live on a private network. Residual risk: the Workers runtime resolves
 * the name again when it connects (DNS rebinding between check and connect); in production
 * Cloudflare's fetch cannot reach private networks, which closes that gap.
 */

export const CRAWLER_USER_AGENT = "ContactIntelligenceBot/1.0 (+https://contact-intelligence.example/bot)";

export { EgressError, type EgressFailure } from "./egress-error.js";

export interface GuardedFetchInit {
  method?: "GET" | "HEAD" | "POST" | "PUT" | "PATCH";
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whole exchange, all hops and the body included. */
  timeoutMs: number;
  /** The body is cut here (`truncated: true`); nothing beyond it is read from the network. */
  maxBytes: number;
  /**
   * Drop the payloads of base64 `data:` URIs while reading (inline-data.ts): they do not count
   * against `maxBytes`, and at most 8 × `maxBytes` is read from the network in all.
   */
  dropInlineData?: boolean;
  /** Bytes of a non-2xx body to read (a 403 page saying it is a bot challenge); default 0: not read. */
  errorBodyBytes?: number;
  /** Content types whose body is read; any other type gets `body: null` and is not downloaded. Default: text-like types. */
  accept?: RegExp;
  /** Redirects followed by hand, each hop checked; default 4 for GET and 0 for other methods (a 3xx is returned). */
  maxRedirects?: number;
  /** Registrable domain every hop must stay on (redirects off it refuse with kind "refused"). */
  site?: string;
  /**
   * Outside production only: a loopback host (`localhost`, 127.0.0.0/8, ::1) is allowed, so a
   * webhook receiver on the developer's own machine can be used. Never in production.
   */
  loopbackOutsideProduction?: boolean;
  signal?: AbortSignal;
  /** Cookies of this site's crawl pass: sent on every hop, and what each answer sets is kept. */
  cookies?: CookieJar;
}

export interface GuardedResponse {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  headers: Headers;
  contentType: string;
  /**
   * Null when the content type is not accepted or the status is not 2xx (the body was not
   * downloaded), except the first `errorBodyBytes` of a text error page.
   */
  body: Uint8Array | null;
  truncated: boolean;
  /** The body as text in its encoding (charset.ts: BOM, header, <meta>, else UTF-8 or windows-1252; "" when not read). */
  text(): string;
}

export const TEXT_TYPES =
  /^(text\/|application\/(xhtml\+xml|xml|rss\+xml|atom\+xml|ld\+json|json|(x-)?javascript|ecmascript))/i;
const DEFAULT_ACCEPT_HEADER = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5";

const INTERNAL_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home|corp|localdomain|home\.arpa)$/i;

/** Why a URL may not be fetched before any DNS lookup; null when its form is acceptable. */
export function urlRefusal(url: URL, env: Pick<Env, "ENVIRONMENT">): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "only http and https URLs can be fetched";
  if (url.username || url.password) return "URLs with credentials are not fetched";
  const host = bareHost(url);
  const literal = isIpLiteral(host);
  // In every environment: an IP literal must be public (WHATWG URL parsing already turned `127.1`,
  // `0x7f.1` and `2130706433` into 127.0.0.1).
  if (literal && !isAllowedAddress(host, isProduction(env)))
    return `${classifyAddress(host).why ?? "non-public"} addresses are not fetched`;
  if (/^localhost$/i.test(host) || /\.localhost$/i.test(host)) return "private and loopback hosts are not fetched";
  if (!isProduction(env)) return null;
  const info = parse(host);
  if (literal || info.isIp) return "IP addresses are not fetched";
  if (INTERNAL_NAMES.test(host)) return "private and loopback hosts are not fetched";
  if (!info.domain || !(info.isIcann || info.isPrivate)) return "the host is not under a public domain suffix";
  if (url.port && url.port !== "80" && url.port !== "443") return "only the standard web ports are fetched";
  return null;
}

const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, "");
const isIpLiteral = (host: string) => host.includes(":") || /^\d+\.\d+\.\d+\.\d+$/.test(host);

/**
 * Resolves A and AAAA and refuses when any answer is not public. Throws EgressError: "refused"
 * for a non-public answer, "no_such_host" when the name has no address, "unreachable" when DNS
 * cannot answer.
 */
export async function assertPublicHost(
  env: Pick<Env, "DOH_URL" | "ENVIRONMENT">,
  host: string,
  url = host,
): Promise<void> {
  const name = host.replace(/^\[|\]$/g, "");
  if (isIpLiteral(name)) {
    if (!isAllowedAddress(name, isProduction(env)))
      throw new EgressError("refused", url, `${name} is a ${classifyAddress(name).why} address`);
    return;
  }
  const resolver = resolverFor(env);
  let answers: string[];
  try {
    const [a, aaaa] = await Promise.all([resolver.lookup(name, "A"), resolver.lookup(name, "AAAA")]);
    answers = [...a.records, ...aaaa.records];
  } catch (err) {
    if (err instanceof DnsUnavailableError)
      throw new EgressError("unreachable", url, `DNS for ${name} could not be resolved (${err.reason})`);
    throw err;
  }
  if (answers.length === 0) throw new EgressError("no_such_host", url, `${name} has no address`);
  for (const address of answers) {
    if (!isAllowedAddress(address, isProduction(env))) {
      throw new EgressError(
        "refused",
        url,
        `${name} points to a ${classifyAddress(address).why ?? "non-public"} address`,
      );
    }
  }
}

/** `localhost`, a name under `.localhost`, or a loopback literal. */
export function isLoopbackHost(url: URL): boolean {
  const host = bareHost(url).toLowerCase();
  return (
    /^localhost$/.test(host) ||
    /\.localhost$/.test(host) ||
    (isIpLiteral(host) && classifyAddress(host).why === "loopback")
  );
}

/** Checks one hop: the URL's form, the site rule and every address of its host. */
async function checkHop(
  env: Env,
  url: URL,
  site: string | undefined,
  loopbackOutsideProduction = false,
): Promise<void> {
  if (loopbackOutsideProduction && !isProduction(env) && isLoopbackHost(url)) return;
  const refused = urlRefusal(url, env);
  if (refused) throw new EgressError("refused", url.href, refused);
  if (site && getDomain(bareHost(url)) !== site && bareHost(url) !== site) {
    throw new EgressError("refused", url.href, `leaves ${site} for ${url.hostname}`);
  }
  await assertPublicHost(env, url.hostname, url.href);
}

/** The one outbound fetch for caller-influenced URLs. See the module comment for what it checks. */
export async function guardedFetch(env: Env, start: string | URL, init: GuardedFetchInit): Promise<GuardedResponse> {
  const method = init.method ?? "GET";
  const maxRedirects = init.maxRedirects ?? (method === "GET" || method === "HEAD" ? 4 : 0);
  const timeout = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
  let url: URL;
  try {
    url = new URL(start);
  } catch {
    throw new EgressError("refused", String(start), "not a URL");
  }
  const headers = { "user-agent": CRAWLER_USER_AGENT, accept: DEFAULT_ACCEPT_HEADER, ...init.headers };
  try {
    for (let hop = 0; ; hop++) {
      await checkHop(env, url, init.site, init.loopbackOutsideProduction);
      if (signal.aborted) throw new EgressError("timeout", url.href, "timed out");
      const cookie = init.cookies?.header();
      const res = await fetch(url.href, {
        method,
        headers: cookie ? { ...headers, cookie } : headers,
        body: init.body,
        redirect: "manual",
        signal,
      });
      init.cookies?.store(res.headers);
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location && hop < maxRedirects) {
        await res.body?.cancel();
        try {
          url = new URL(location, url);
        } catch {
          throw new EgressError("refused", url.href, "redirects to something that is not a URL");
        }
        continue;
      }
      if (res.status >= 300 && res.status < 400 && location && maxRedirects > 0) {
        await res.body?.cancel();
        throw new EgressError("refused", url.href, "too many redirects");
      }
      return await respond(url, res, init, signal);
    }
  } catch (err) {
    if (err instanceof EgressError) throw err;
    if (signal.aborted || (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError"))) {
      throw new EgressError("timeout", url.href, "timed out");
    }
    throw new EgressError("unreachable", url.href, err instanceof Error ? err.message : String(err));
  }
}

async function respond(url: URL, res: Response, init: GuardedFetchInit, signal: AbortSignal): Promise<GuardedResponse> {
  const contentType = res.headers.get("content-type") ?? "";
  const readable = res.ok && (init.accept ?? TEXT_TYPES).test(contentType || "text/html");
  const errorBody = !res.ok && (init.errorBodyBytes ?? 0) > 0 && TEXT_TYPES.test(contentType || "text/html");
  let body: Uint8Array | null = null;
  let truncated = false;
  if (readable)
    ({ bytes: body, truncated } = await readCapped(
      await decodedStream(res),
      res.url,
      init.maxBytes,
      signal,
      init.dropInlineData ?? false,
    ));
  else if (errorBody)
    ({ bytes: body, truncated } = await readCapped(
      await decodedStream(res),
      res.url,
      Math.min(init.errorBodyBytes ?? 0, init.maxBytes),
      signal,
      false,
    ));
  else await res.body?.cancel();
  const bytes = body;
  return {
    url: url.href,
    status: res.status,
    headers: res.headers,
    contentType,
    body: bytes,
    truncated,
    text: () => (bytes ? decodeBody(bytes, contentType, truncated) : ""),
  };
}

/**
 * The body as content: a gzip, deflate or brotli `Content-Encoding` the runtime left encoded is
 * decoded here (a production fetch decodes it itself; the bytes' own signature says which
 * happened, and brotli, which has none, is taken as decoded when it starts as text does). The
 * caps then count decoded bytes, so a small compressed answer cannot grow past them.
 */
async function decodedStream(res: Response): Promise<ReadableStream<Uint8Array> | null> {
  const coding = (res.headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (!res.body || !/^(x-)?gzip$|^deflate$|^br$/.test(coding)) return res.body;
  const reader = res.body.getReader();
  // The signature may straddle the first chunks: read until two bytes are in (sixteen for brotli).
  const want = coding === "br" ? 16 : 2;
  const held: Uint8Array[] = [];
  let size = 0;
  while (size < want) {
    const next = await reader.read();
    if (next.done) break;
    held.push(next.value);
    size += next.value.byteLength;
  }
  if (size === 0) return null;
  const head = held.length === 1 && held[0] ? held[0] : new Uint8Array(await new Blob(held).arrayBuffer());
  const rest = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(head),
    pull: async (controller) => {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  const [b0 = 0, b1 = 0] = head;
  const zlib = head.length > 1 && (b0 & 0x0f) === 8 && ((b0 << 8) | b1) % 31 === 0;
  if (coding.endsWith("gzip") && gzip) return rest.pipeThrough(new DecompressionStream("gzip"));
  if (coding === "deflate" && zlib) return rest.pipeThrough(new DecompressionStream("deflate"));
  if (coding === "br" && !startsAsText(head)) return rest.pipeThrough(brotliDecoding());
  return rest;
}

/** Sixteen bytes (or all there are) of printable ASCII or a byte-order mark: decoded text, not brotli. */
function startsAsText(head: Uint8Array): boolean {
  if (bomEncoding(head)) return true;
  return head.subarray(0, 16).every((b) => b === 9 || b === 10 || b === 13 || (b >= 0x20 && b < 0x7f));
}

/** Reads at most `maxBytes` of the body and cancels the rest, so a 50 MB answer costs 50 MB of nobody's memory. */
async function readCapped(
  stream: ReadableStream<Uint8Array> | null,
  url: string,
  maxBytes: number,
  signal: AbortSignal,
  dropInlineData: boolean,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const reader = stream?.getReader();
  if (!reader) return { bytes: new Uint8Array(), truncated: false };
  const filter = dropInlineData ? new InlineDataFilter() : null;
  const maxWire = dropInlineData ? 8 * maxBytes : maxBytes;
  const chunks: Uint8Array[] = [];
  let size = 0;
  let wire = 0;
  let truncated = false;
  for (;;) {
    if (signal.aborted) {
      await reader.cancel();
      throw new EgressError("timeout", url, "timed out while reading the body");
    }
    const read = await reader.read();
    if (read.done) break;
    wire += read.value.byteLength;
    const value = filter ? filter.push(read.value) : read.value;
    if (wire > maxWire && size + value.byteLength <= maxBytes) {
      // Mostly payload and still coming: stop at the wire limit.
      chunks.push(value);
      size += value.byteLength;
      truncated = true;
      await reader.cancel();
      break;
    }
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return { bytes, truncated };
}

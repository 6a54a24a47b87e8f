import type { Env } from "../../env.js";
import { boundedMap } from "../../platform/isolate-state.js";
import { MX_PROVIDERS } from "../data/mail-providers.js";
import { Unavailable } from "../errors.js";

/**
 * DNS over HTTPS (JSON API, `application/dns-json`). Workers cannot open UDP sockets, so every
 * lookup goes through a resolver over HTTPS. Answers are cached per isolate for their TTL.
 *
 * Two outcomes must never be confused: NXDOMAIN is a definitive "this domain does not exist",
 * while SERVFAIL, a timeout or an unreachable resolver means "we do not know". The second throws
 * `DnsUnavailableError` (a 503), so no capability answers a 200 built on a guess.
 */

export const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";
const LOOKUP_TIMEOUT_MS = 5_000;
/** Ceiling on any cached answer, so a long TTL cannot pin a stale record for a day. */
const MAX_CACHE_TTL_S = 3_600;
/** Negative answers (NXDOMAIN, no records) when the resolver gives no SOA to say how long. */
const DEFAULT_NEGATIVE_TTL_S = 60;
const MAX_CACHE_ENTRIES = 5_000;

export type RecordType = "A" | "AAAA" | "MX" | "TXT" | "CNAME" | "NS";
const TYPE_CODES: Record<RecordType, number> = { A: 1, NS: 2, CNAME: 5, MX: 15, TXT: 16, AAAA: 28 };
const SOA_CODE = 6;

export interface DnsLookup {
  /** The name does not exist at all (RCODE 3). `records` is then empty. */
  nxdomain: boolean;
  /** Record data of the asked type, as the resolver wrote it (MX: "10 mx.example.com."). */
  records: string[];
  /** Seconds this answer stays valid. */
  ttl: number;
}

export class DnsUnavailableError extends Unavailable {
  constructor(
    readonly domain: string,
    readonly reason: string,
  ) {
    super(
      "dns",
      `The DNS lookup for ${domain} could not be completed (${reason}), so no verdict was given and nothing was charged. Try again in a minute.`,
      30,
    );
    this.name = "DnsUnavailableError";
  }
}

interface DohAnswer {
  Status?: number;
  Answer?: { name?: string; type?: number; TTL?: number; data?: string }[];
  Authority?: { type?: number; TTL?: number; data?: string }[];
}

export interface ResolverOptions {
  url?: string;
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
}

type CacheEntry = { expiresAt: number; value: DnsLookup };

export class DohResolver {
  private readonly url: string;
  private readonly fetcher: typeof fetch;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<DnsLookup>>();

  constructor(options: ResolverOptions = {}) {
    this.url = options.url || DEFAULT_DOH_URL;
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? LOOKUP_TIMEOUT_MS;
  }

  async lookup(name: string, type: RecordType): Promise<DnsLookup> {
    const qname = name.trim().toLowerCase().replace(/\.$/, "");
    const key = `${type} ${qname}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.value;
    if (cached) this.cache.delete(key);

    // Concurrent requests for the same name share one round trip.
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const promise = this.query(qname, type).finally(() => this.inflight.delete(key));
    this.inflight.set(key, promise);
    const value = await promise;
    if (value.ttl > 0) this.remember(key, value);
    return value;
  }

  /** Number of cached answers (for tests and diagnostics). */
  get size(): number {
    return this.cache.size;
  }

  private remember(key: string, value: DnsLookup) {
    if (this.cache.size >= MAX_CACHE_ENTRIES) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(key, { expiresAt: this.now() + value.ttl * 1000, value });
  }

  private async query(name: string, type: RecordType): Promise<DnsLookup> {
    const url = new URL(this.url);
    url.searchParams.set("name", name);
    url.searchParams.set("type", type);
    let res: Response;
    try {
      res = await this.fetcher(url.toString(), {
        headers: { accept: "application/dns-json" },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      throw new DnsUnavailableError(name, timedOut ? "the resolver timed out" : "the resolver could not be reached");
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new DnsUnavailableError(name, `the resolver answered HTTP ${res.status}`);
    }
    let body: DohAnswer;
    try {
      body = (await res.json()) as DohAnswer;
    } catch {
      throw new DnsUnavailableError(name, "the resolver sent an unreadable answer");
    }

    if (body.Status === 3) return { nxdomain: true, records: [], ttl: negativeTtl(body) };
    if (body.Status !== 0) {
      const reason =
        body.Status === 2 ? "SERVFAIL" : body.Status === 5 ? "REFUSED" : `DNS status ${body.Status ?? "missing"}`;
      throw new DnsUnavailableError(name, reason);
    }
    // The answer section can also hold the CNAME chain that led here; keep the asked type only.
    const answers = (body.Answer ?? []).filter(
      (a): a is typeof a & { data: string } => a.type === TYPE_CODES[type] && typeof a.data === "string",
    );
    if (answers.length === 0) return { nxdomain: false, records: [], ttl: negativeTtl(body) };
    const ttl = Math.min(MAX_CACHE_TTL_S, ...answers.map((a) => Math.max(0, a.TTL ?? 0)));
    return { nxdomain: false, records: answers.map((a) => a.data), ttl };
  }
}

/** RFC 2308: a negative answer lives for min(SOA TTL, SOA MINIMUM). */
function negativeTtl(body: DohAnswer): number {
  const soa = body.Authority?.find((a) => a.type === SOA_CODE && typeof a.data === "string");
  if (typeof soa?.data !== "string") return DEFAULT_NEGATIVE_TTL_S;
  const minimum = Number(soa.data.trim().split(/\s+/).at(-1));
  const ttl = Math.min(soa.TTL ?? DEFAULT_NEGATIVE_TTL_S, Number.isFinite(minimum) ? minimum : DEFAULT_NEGATIVE_TTL_S);
  return Math.max(0, Math.min(MAX_CACHE_TTL_S, ttl));
}

// One resolver (and so one cache) per isolate and resolver URL.
const resolvers = boundedMap<string, DohResolver>("dnsResolvers");

export function resolverFor(env: Pick<Env, "DOH_URL">): DohResolver {
  const url = env.DOH_URL || DEFAULT_DOH_URL;
  let r = resolvers.get(url);
  if (!r) {
    r = new DohResolver({ url });
    resolvers.set(url, r);
  }
  return r;
}

export interface MxRecord {
  preference: number;
  /** Host name without the trailing dot; "" for the null MX target ".". */
  exchange: string;
}

export interface MxLookup {
  nxdomain: boolean;
  /** RFC 7505 null MX (`0 .`): the domain says it accepts no mail at all. */
  nullMx: boolean;
  /** Sorted by preference, null MX target excluded. */
  records: MxRecord[];
}

export function parseMx(data: string): MxRecord | null {
  const m = /^\s*(\d+)\s+(\S+)\s*$/.exec(data);
  if (!m) return null;
  const [, preference, exchange = ""] = m;
  return { preference: Number(preference), exchange: exchange.toLowerCase().replace(/\.$/, "") };
}

export async function resolveMx(env: Pick<Env, "DOH_URL">, domain: string): Promise<MxLookup> {
  const answer = await resolverFor(env).lookup(domain, "MX");
  const parsed = answer.records.map(parseMx).filter((r): r is MxRecord => r !== null);
  const nullMx = parsed.some((r) => r.exchange === "");
  const records = parsed
    .filter((r) => r.exchange !== "")
    .sort((a, b) => a.preference - b.preference || a.exchange.localeCompare(b.exchange));
  return { nxdomain: answer.nxdomain, nullMx, records };
}

/**
 * TXT data arrives as one or more quoted character-strings ("v=spf1 " "include:..."); a record's
 * value is their concatenation, with \" \\ and \DDD escapes undone.
 */
export function parseTxt(data: string): string {
  const trimmed = data.trim();
  if (!trimmed.startsWith('"')) return trimmed;
  let out = "";
  const re = /"((?:[^"\\]|\\.)*)"/g;
  for (const [, quoted = ""] of trimmed.matchAll(re)) {
    out += quoted.replace(/\\(\d{3}|.)/g, (_, esc: string) =>
      /^\d{3}$/.test(esc) ? String.fromCharCode(Number(esc)) : esc,
    );
  }
  return out;
}

export async function resolveTxt(
  env: Pick<Env, "DOH_URL">,
  domain: string,
): Promise<{ nxdomain: boolean; records: string[] }> {
  const answer = await resolverFor(env).lookup(domain, "TXT");
  return { nxdomain: answer.nxdomain, records: answer.records.map(parseTxt) };
}

export async function resolveA(
  env: Pick<Env, "DOH_URL">,
  domain: string,
): Promise<{ nxdomain: boolean; records: string[] }> {
  const answer = await resolverFor(env).lookup(domain, "A");
  return { nxdomain: answer.nxdomain, records: answer.records };
}

export async function resolveAaaa(
  env: Pick<Env, "DOH_URL">,
  domain: string,
): Promise<{ nxdomain: boolean; records: string[] }> {
  const answer = await resolverFor(env).lookup(domain, "AAAA");
  return { nxdomain: answer.nxdomain, records: answer.records };
}

/**
 * Whether the domain has an A or AAAA record (RFC 5321 §5.1 implicit MX). One family that answers
 * is enough; when neither answers and one of them failed, the truth is unknown and this throws.
 */
export async function hasAddress(env: Pick<Env, "DOH_URL">, domain: string): Promise<boolean> {
  const [a, aaaa] = await Promise.allSettled([resolveA(env, domain), resolveAaaa(env, domain)]);
  if (
    (a.status === "fulfilled" && a.value.records.length > 0) ||
    (aaaa.status === "fulfilled" && aaaa.value.records.length > 0)
  )
    return true;
  if (a.status === "rejected") throw a.reason;
  if (aaaa.status === "rejected") throw aaaa.reason;
  return false;
}

/** The hosted mail service behind these MX hosts, or null when none is recognised. */
export function detectMailProvider(mxHosts: readonly string[]): string | null {
  for (const raw of mxHosts) {
    const host = raw.toLowerCase().replace(/\.$/, "");
    for (const [suffix, provider] of MX_PROVIDERS) {
      if (host === suffix || host.endsWith(`.${suffix}`)) return provider;
    }
  }
  return null;
}

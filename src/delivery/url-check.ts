import { resolverFor } from "../engine/dns.js";
import { isPrivateIPv4 } from "../engine/crawl/guard.js";
import { type Env, isProduction } from "../env.js";
import { ApiError } from "../http/errors.js";

/**
 * Where a delivery may go. A webhook or callback URL is supplied by a user, and the Worker POSTs
 * to it later, so it must not become a way to reach private networks:
 *  - https only; outside production, plain http is allowed to loopback hosts so a receiver on
 *    the developer's own machine can be used;
 *  - no credentials in the URL;
 *  - the host (or every address its name resolves to, A and AAAA) must be public: no private,
 *    loopback, link-local, unique-local, multicast or reserved address.
 * The consumer checks again before each attempt, since DNS answers can change after the check.
 */

const LOOPBACK_NAMES = /^(localhost|.*\.localhost)$/i;

function refuse(field: string, reason: string): never {
  throw new ApiError(400, "params_invalid", `The parameter '${field}' is invalid: ${reason}.`);
}

/** Expands an IPv6 literal to its eight 16-bit groups; null when the text is not IPv6. */
export function ipv6Groups(ip: string): number[] | null {
  let text = ip.replace(/^\[|\]$/g, "").toLowerCase();
  if (!text.includes(":")) return null;
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  // A trailing dotted IPv4 (::ffff:10.0.0.1) stands for the last two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const parts = v4[1]!.split(".").map(Number);
    if (parts.some((p) => p > 255)) return null;
    text = text.slice(0, -v4[1]!.length) + `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.some((g) => Number.isNaN(g)) ? null : groups;
}

/** True unless the IPv6 address is global unicast (2000::/3) outside the documentation and tunnelling ranges. */
export function isPrivateIPv6(ip: string): boolean {
  const g = ipv6Groups(ip);
  if (!g) return true;
  const embeddedV4 = () => `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach an IPv4 host: judge that host.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return isPrivateIPv4(embeddedV4());
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isPrivateIPv4(embeddedV4());
  if (g[0]! < 0x2000 || g[0]! > 0x3fff) return true; // ::, ::1, fc00::/7, fe80::/10, ff00::/8, ...
  if (g[0] === 0x2001 && (g[1] === 0x0db8 || g[1]! < 0x0200)) return true; // documentation, Teredo and IETF protocol ranges
  if (g[0] === 0x2002) return true; // 6to4 relays can reach any IPv4 address
  return false;
}

const isIPv4Literal = (host: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host);

export async function assertDeliverableUrl(env: Env, url: string, field: string): Promise<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    refuse(field, "expected an absolute https:// URL");
  }
  if (parsed.username || parsed.password) refuse(field, "URLs with credentials are not accepted; send secrets as webhook headers instead");
  const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const loopbackHost = LOOPBACK_NAMES.test(host) || host === "::1" || (isIPv4Literal(host) && host.startsWith("127."));
  if (parsed.protocol === "http:" && loopbackHost && !isProduction(env)) return parsed;
  if (parsed.protocol !== "https:") refuse(field, "the URL must use https");

  if (isIPv4Literal(host) || host.includes(":")) {
    const isPrivate = host.includes(":") ? isPrivateIPv6(host) : isPrivateIPv4(host);
    if (isPrivate) refuse(field, "the address is private, loopback or link-local");
    return parsed;
  }
  if (LOOPBACK_NAMES.test(host) || !host.includes(".")) refuse(field, "the host is not a public name");
  const addresses = await resolveAddresses(env, host);
  if (addresses.length === 0) refuse(field, `the host ${host} does not resolve`);
  const blocked = addresses.find((ip) => (ip.includes(":") ? isPrivateIPv6(ip) : isPrivateIPv4(ip)));
  if (blocked) refuse(field, `the host ${host} resolves to a private, loopback or link-local address`);
  return parsed;
}

/** Every A and AAAA address of a host (DNS over HTTPS). */
export async function resolveAddresses(env: Env, host: string): Promise<string[]> {
  const resolver = resolverFor(env);
  const [a, aaaa] = await Promise.all([resolver.lookup(host, "A"), resolver.lookup(host, "AAAA")]);
  return [...a.records, ...aaaa.records].map((r) => r.trim());
}

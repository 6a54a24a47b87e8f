/**
 * Which IP addresses the service may connect to. Only global unicast space is public; everything
 * a hostile DNS answer could use to reach an internal service (private, loopback, link-local,
 * CGNAT, benchmarking, NAT64, 6to4 and Teredo tunnels, multicast, reserved) is refused.
 *
 * The documentation ranges (TEST-NET-1/2/3, 2001:db8::/32) are never routed on the Internet; they
 * are refused in production and allowed elsewhere because the local fixture network uses them.
 */

type Cidr = readonly [network: bigint, prefix: number];

export type AddressVerdict = "public" | "documentation" | "blocked";

const V4_BLOCKED: [string, number, string][] = [
  ["0.0.0.0", 8, "this network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.88.99.0", 24, "6to4 relay"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const V4_DOCUMENTATION: [string, number][] = [
  ["192.0.2.0", 24],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
];

/** Inside global unicast (2000::/3), the special-purpose blocks that are not reachable hosts. */
const V6_BLOCKED_IN_GLOBAL: [string, number, string][] = [
  ["2001::", 23, "IETF protocol assignments (Teredo, benchmarking, ORCHID)"],
  ["2002::", 16, "6to4"],
  ["3fff::", 20, "documentation"],
];
const V6_DOCUMENTATION: [string, number][] = [["2001:db8::", 32]];

/** Parses dotted-quad IPv4 (the canonical form the URL parser produces); null otherwise. */
export function parseIPv4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    value = (value << 8n) | BigInt(Number(p));
  }
  return value;
}

/** Parses IPv6 text (with `::` and an optional dotted IPv4 tail, brackets and zone id tolerated); null otherwise. */
export function parseIPv6(text: string): bigint | null {
  let s = text
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "")
    .toLowerCase();
  if (!s.includes(":")) return null;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const [dotted] = tail;
    const v4 = parseIPv4(dotted);
    if (v4 === null) return null;
    s = `${s.slice(0, -dotted.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  let value = 0n;
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  return value;
}

/** A range of the tables below as numbers; a malformed entry is a programming error found at load. */
const cidr =
  (parse: (ip: string) => bigint | null) =>
  ([ip, prefix]: readonly [string, number, ...unknown[]]): Cidr => {
    const network = parse(ip);
    if (network === null) throw new Error(`The range ${ip}/${prefix} is not a valid address range.`);
    return [network, prefix];
  };
const cidr4 = cidr(parseIPv4);
const cidr6 = cidr(parseIPv6);
const inCidr = (value: bigint, bits: number, [network, prefix]: Cidr) =>
  value >> BigInt(bits - prefix) === network >> BigInt(bits - prefix);

const V4_BLOCKED_CIDRS = V4_BLOCKED.map((r) => [cidr4(r), r[2]] as const);
const V4_DOC_CIDRS = V4_DOCUMENTATION.map(cidr4);
const V6_GLOBAL = cidr6(["2000::", 3]);
const V6_BLOCKED_CIDRS = V6_BLOCKED_IN_GLOBAL.map((r) => [cidr6(r), r[2]] as const);
const V6_DOC_CIDRS = V6_DOCUMENTATION.map(cidr6);

export interface Classified {
  verdict: AddressVerdict;
  /** Why it is not public ("loopback", "private", ...); null for public addresses. */
  why: string | null;
}

/** Classifies an IPv4 or IPv6 address; text that is not an address is "blocked" (never connect to what we cannot read). */
export function classifyAddress(address: string): Classified {
  const v4 = parseIPv4(address.trim());
  if (v4 !== null) {
    if (V4_DOC_CIDRS.some((c) => inCidr(v4, 32, c)))
      return { verdict: "documentation", why: "documentation (TEST-NET)" };
    const blocked = V4_BLOCKED_CIDRS.find(([c]) => inCidr(v4, 32, c));
    return blocked ? { verdict: "blocked", why: blocked[1] } : { verdict: "public", why: null };
  }
  const v6 = parseIPv6(address.trim());
  if (v6 === null) return { verdict: "blocked", why: "not an IP address" };
  if (V6_DOC_CIDRS.some((c) => inCidr(v6, 128, c)))
    return { verdict: "documentation", why: "documentation (2001:db8::/32)" };
  // Outside 2000::/3 lie ::1, ::, ::ffff:0:0/96 (IPv4-mapped), 64:ff9b::/96 (NAT64), fc00::/7, fe80::/10, ff00::/8...
  if (!inCidr(v6, 128, V6_GLOBAL)) return { verdict: "blocked", why: describeNonGlobal(v6) };
  const blocked = V6_BLOCKED_CIDRS.find(([c]) => inCidr(v6, 128, c));
  return blocked ? { verdict: "blocked", why: blocked[1] } : { verdict: "public", why: null };
}

function describeNonGlobal(v6: bigint): string {
  if (v6 === 1n) return "loopback";
  if (v6 === 0n) return "unspecified";
  if (v6 >> 32n === 0xffffn) return "IPv4-mapped";
  if (v6 >> 32n === 0x64ff9bn << 64n) return "NAT64";
  const top = Number(v6 >> 112n);
  if ((top & 0xfe00) === 0xfc00) return "unique local (private)";
  if ((top & 0xffc0) === 0xfe80) return "link-local";
  if ((top & 0xff00) === 0xff00) return "multicast";
  return "reserved";
}

/** Whether the service may connect to this address (documentation ranges only outside production). */
export function isAllowedAddress(address: string, production: boolean): boolean {
  const { verdict } = classifyAddress(address);
  return verdict === "public" || (verdict === "documentation" && !production);
}

/**
 * The URI a request-log row keeps. Logs must not become a second copy of the data callers look up,
 * so the path and the parameter names stay (support needs them) while values are bounded and the
 * personal ones masked: an address keeps its first letter and its domain (`j***@acme.com`), a phone
 * number its last two digits (`***42`), a name or profile handle its first letter (`J***`). Any
 * other value is cut at MAX_VALUE characters.
 *
 * Only the query parameters the route declares are stored: anything else a caller appends
 * (`access_token`, `client_secret`, `code`, `key`, ...) may be a credential and is dropped, name and
 * value. A declared value that is itself a URL (`webhook_url`) keeps its origin and path; its own
 * query values, fragment and user info are masked, since receivers often take a token there.
 */

const MAX_VALUE = 64;
const MAX_URI = 1024;
const EMAIL = /^[^@\s]+@([^@\s]+)$/;
const EMAIL_ANYWHERE = /[^@\s/&=?]+@[^@\s/&=?]+/g;
/** Seven or more digits with the usual separators: a phone number. */
const PHONE = /^\+?[\d\s().-]{7,}$/;
const PERSONAL_PARAMS = new Set([
  "first_name",
  "last_name",
  "full_name",
  "name",
  "linkedin",
  "linkedin_handle",
  "linkedin_url",
  "twitter",
  "twitter_handle",
  "handle",
  "profile",
]);
const PHONE_PARAMS = new Set(["phone", "phone_number", "number", "mobile"]);

const maskEmail = (value: string) => value.replace(EMAIL, (_, domain: string) => `${[...value][0]}***@${domain}`);
const maskPhone = (value: string) => `***${value.replace(/\D/g, "").slice(-2)}`;
const maskName = (value: string) => (value ? `${[...value][0]}***` : "");
// A string of at most MAX_VALUE UTF-16 units has at most MAX_VALUE characters: nothing to count.
const cut = (value: string) =>
  value.length > MAX_VALUE && [...value].length > MAX_VALUE ? `${[...value].slice(0, MAX_VALUE).join("")}…` : value;
/** A path segment that is a plain word (`v1`, `phone-validator`): no address, number or URL to mask. */
const PLAIN_SEGMENT = /^[A-Za-z][A-Za-z_-]*\d?$/;

/** An absolute http(s) URL given as a value, with what may carry a secret masked; null when not a URL. */
function maskUrlValue(value: string): string | null {
  if (!/^https?:\/\//i.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const query = [...url.searchParams.keys()].map((k) => `${k}=***`).join("&");
  const hidden = url.username || url.password ? "***@" : "";
  return `${url.protocol}//${hidden}${url.host}${url.pathname}${query ? `?${query}` : ""}${url.hash ? "#***" : ""}`;
}

/** One value, masked by what it looks like (and, for query parameters, by the parameter's name). */
export function maskValue(value: string, param?: string): string {
  const v = value.trim();
  const name = param?.toLowerCase();
  const url = maskUrlValue(v);
  if (url !== null) return cut(url);
  if (EMAIL.test(v)) return cut(maskEmail(v));
  if ((name && PHONE_PARAMS.has(name)) || PHONE.test(v)) return v ? maskPhone(v) : "";
  if (name && PERSONAL_PARAMS.has(name)) return maskName(v);
  return cut(v.replace(EMAIL_ANYWHERE, (m) => maskEmail(m)));
}

/** Path and query of `url` as a log row stores them; `declared`: the query parameters the route takes. */
export function loggedUri(url: URL, declared: Iterable<string>): string {
  const kept = new Set(declared);
  const path = url.pathname
    .split("/")
    .map((segment) => {
      if (segment.length <= MAX_VALUE && PLAIN_SEGMENT.test(segment)) return segment;
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        decoded = segment;
      }
      const masked = maskValue(decoded);
      return masked === decoded ? cut(segment) : encodeURIComponent(masked).replace(/%40/g, "@").replace(/%2A/gi, "*");
    })
    .join("/");
  const query = new URLSearchParams();
  for (const [name, value] of url.searchParams) if (kept.has(name)) query.append(cut(name), maskValue(value, name));
  const search = query.toString().replace(/%40/g, "@").replace(/%2A/gi, "*");
  const uri = search ? `${path}?${search}` : path;
  return uri.length > MAX_URI ? `${uri.slice(0, MAX_URI)}…` : uri;
}

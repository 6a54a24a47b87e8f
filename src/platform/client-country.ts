import { expiringMap } from "./isolate-state.js";

/**
 * The caller's country for its request-log row, without reading `request.cf` on every request.
 *
 * `request.cf` is built from its whole serialised form (a kilobyte of geolocation, TLS and bot
 * fields) the first time a request reads it: measured at ~3% of a billed call's CPU in workerd, for
 * one two-letter field. So the country comes from the CF-IPCountry header when the edge sets it
 * (zones with IP geolocation on), else from the last `cf` read for the same client address in this
 * isolate, for at most COUNTRY_TTL_MS: an API caller calls from a few fixed addresses, and an
 * address's country does not change between two of its calls.
 */
export const COUNTRY_TTL_MS = 10 * 60_000;
const byAddress = expiringMap<string, string | null>("clientCountries");

export function clientCountry(request: Request, now: number): string | null {
  const header = request.headers.get("cf-ipcountry");
  if (header) return header;
  const address = request.headers.get("cf-connecting-ip");
  if (address) {
    const known = byAddress.get(address, now, COUNTRY_TTL_MS);
    if (known !== undefined) return known;
  }
  const country = (request as { cf?: { country?: string } }).cf?.country ?? null;
  if (address) byAddress.set(address, country, now);
  return country;
}

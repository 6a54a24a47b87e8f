import {
  type CountryCode,
  isSupportedCountry,
  ParseError,
  type PhoneNumber,
  parsePhoneNumberWithError,
} from "libphonenumber-js/max";
import { COUNTRY_TIMEZONES } from "../data/country-timezones.js";

/**
 * Phone facts a caller can trust: everything here comes from libphonenumber's full metadata
 * (validity, line type, formats) and the IANA zone table. Carrier data is not shipped with
 * libphonenumber-js, so `carrier` stays "" rather than being guessed.
 */
export interface PhoneFacts {
  valid: boolean;
  e164_format: string | null;
  intl_format: string | null;
  local_format: string | null;
  rfc3966_format: string | null;
  country_code: string | null;
  line_type: string | null;
  carrier: string;
  timezones: string[];
}

export class PhoneInputError extends Error {}

/** The country code, upper-cased, when libphonenumber knows it; otherwise a PhoneInputError. */
export function phoneCountry(value: string | undefined): CountryCode | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const upper = value.trim().toUpperCase();
  if (!isSupportedCountry(upper))
    throw new PhoneInputError(`'${value}' is not an ISO 3166 alpha-2 country code with a phone numbering plan.`);
  return upper as CountryCode;
}

/**
 * Parses a number in E.164 or national form. A national number without a country is a caller
 * error (PhoneInputError): which country's plan applies cannot be known. Text that is too short,
 * too long or not a number at all is a definitive "not valid".
 */
export function phoneFacts(raw: string, country?: CountryCode): PhoneFacts {
  let parsed: PhoneNumber;
  try {
    parsed = parsePhoneNumberWithError(raw.trim(), country);
  } catch (err) {
    if (err instanceof ParseError && err.message === "INVALID_COUNTRY") {
      throw new PhoneInputError(
        "The number has no international prefix: write it as +<country code><number> or pass country_code.",
      );
    }
    return invalidFacts(country ?? null);
  }
  const countryCode = parsed.country ?? country ?? null;
  // Formats of a number that fails validation would look authoritative while being wrong.
  if (!parsed.isValid()) return invalidFacts(countryCode);
  return {
    valid: true,
    e164_format: parsed.number,
    intl_format: parsed.formatInternational(),
    local_format: parsed.formatNational(),
    rfc3966_format: parsed.getURI(),
    country_code: countryCode,
    line_type: parsed.getType() ?? "UNKNOWN",
    carrier: "",
    timezones: countryCode ? timezonesOf(countryCode) : [],
  };
}

function invalidFacts(country: string | null): PhoneFacts {
  return {
    valid: false,
    e164_format: null,
    intl_format: null,
    local_format: null,
    rfc3966_format: null,
    country_code: country,
    line_type: null,
    carrier: "",
    timezones: [],
  };
}

/**
 * Zones of the number's country. libphonenumber-js has no per-prefix zone data, so a number in a
 * country spanning several zones lists all of them: each is possible, none is invented.
 */
export function timezonesOf(country: string): string[] {
  return [...(COUNTRY_TIMEZONES[country] ?? [])];
}

/** E.164 of a valid number, or null. */
export function toE164(raw: string, country?: CountryCode): string | null {
  try {
    const parsed = parsePhoneNumberWithError(raw.trim(), country);
    return parsed.isValid() ? parsed.number : null;
  } catch {
    return null;
  }
}

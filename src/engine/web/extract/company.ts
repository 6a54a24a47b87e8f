import {
  type CountryCode,
  findPhoneNumbersInText,
  isSupportedCountry,
  parsePhoneNumberFromString,
} from "libphonenumber-js/max";
import { getDomain, getPublicSuffix } from "tldts";
import { isolateValue } from "../../../platform/isolate-state.js";
import { type JsonNode, strings, text, typesOf } from "./jsonld.js";

/** Company facts a site states about itself. Every field is null unless a page said it. */
export interface CompanyFacts {
  name: string | null;
  description: string | null;
  logo: string | null;
  founded: string | null;
  employeeCount: number | null;
  country: string | null;
  state: string | null;
  city: string | null;
  streetAddress: string | null;
  postalCode: string | null;
  phone: string | null;
  linkedinUrl: string | null;
  twitterUrl: string | null;
  facebookUrl: string | null;
  instagramUrl: string | null;
  githubUrl: string | null;
  youtubeUrl: string | null;
  sameAs: string[];
  keywords: string[];
}

export function emptyCompanyFacts(): CompanyFacts {
  return {
    name: null,
    description: null,
    logo: null,
    founded: null,
    employeeCount: null,
    country: null,
    state: null,
    city: null,
    streetAddress: null,
    postalCode: null,
    phone: null,
    linkedinUrl: null,
    twitterUrl: null,
    facebookUrl: null,
    instagramUrl: null,
    githubUrl: null,
    youtubeUrl: null,
    sameAs: [],
    keywords: [],
  };
}

/** Fills the null fields of `into` from `from` (the first page that states a fact wins). */
export function mergeCompanyFacts(into: CompanyFacts, from: CompanyFacts): CompanyFacts {
  const out = { ...into };
  for (const key of Object.keys(from) as (keyof CompanyFacts)[]) {
    if (key === "sameAs" || key === "keywords") out[key] = [...new Set([...into[key], ...from[key]])];
    else if (out[key] === null && from[key] !== null) (out as Record<string, unknown>)[key] = from[key];
  }
  return out;
}

const ORG_TYPES =
  /^(Organization|Corporation|Company|LocalBusiness|NGO|EducationalOrganization|GovernmentOrganization|NewsMediaOrganization|OnlineBusiness|OnlineStore|ProfessionalService|Store|\w+Business)$/;

function pickOrganization(nodes: JsonNode[], targetDomain: string): JsonNode | null {
  const orgs = nodes.filter((n) => typesOf(n).some((t) => ORG_TYPES.test(t)) && text(n.name));
  const own = orgs.find((o) => {
    const url = text(o.url);
    return url ? getDomain(url) === targetDomain : false;
  });
  return own ?? orgs[0] ?? null;
}

const regionCodes = isolateValue<Map<string, string>>("regionCodes");
/** ISO 3166 alpha-2 from a code or an English country name ("Germany" → "DE"); null when unknown. */
export function countryCode(value: string | null): string | null {
  if (!value) return null;
  const v = value.trim();
  if (/^[A-Za-z]{2}$/.test(v)) return v.toUpperCase() === "UK" ? "GB" : v.toUpperCase();
  let codes = regionCodes.get();
  if (!codes) {
    codes = regionCodes.set(new Map());
    try {
      const names = new Intl.DisplayNames(["en"], { type: "region" });
      for (let a = 65; a <= 90; a++)
        for (let b = 65; b <= 90; b++) {
          const code = String.fromCharCode(a, b);
          const name = names.of(code);
          if (name && name !== code) codes.set(name.toLowerCase(), code);
        }
    } catch {
      /* without ICU region names only codes are understood */
    }
    for (const [name, code] of [
      ["usa", "US"],
      ["united states of america", "US"],
      ["deutschland", "DE"],
      ["uk", "GB"],
      ["england", "GB"],
      ["österreich", "AT"],
      ["schweiz", "CH"],
    ] as const)
      codes.set(name, code);
  }
  return codes.get(v.toLowerCase()) ?? null;
}

/** Country implied by a country-code TLD (acme.de → DE), used as the default for local phone numbers. */
export function countryOfDomain(domain: string): CountryCode | undefined {
  const tld = (getPublicSuffix(domain) ?? "").split(".").pop()?.toUpperCase() ?? "";
  const code = tld === "UK" ? "GB" : tld;
  return code.length === 2 && isSupportedCountry(code) ? (code as CountryCode) : undefined;
}

export function toE164(raw: string, country?: CountryCode): string | null {
  const parsed = parsePhoneNumberFromString(raw.replace(/^tel:/i, "").trim(), country);
  return parsed?.isValid() ? parsed.number : null;
}

const PHONE_HINT = /\b(tel|telefon|telephone|phone|fon|call|mobile|mobil|hotline|ph)\b|^\s*\+\d/i;

/** Phone numbers written in lines that announce one ("Tel: +49 30 1234567"); fax-only lines are skipped. */
export function phonesInLines(lines: readonly string[], country?: CountryCode): string[] {
  const out = new Set<string>();
  for (const line of lines) {
    if (line.length > 300 || !PHONE_HINT.test(line)) continue;
    if (/\bfax\b/i.test(line) && !/\b(tel|telefon|phone|fon)\b/i.test(line)) continue;
    for (const found of findPhoneNumbersInText(line, country ? { defaultCountry: country } : undefined)) {
      if (found.number.isValid()) out.add(found.number.number);
    }
  }
  return [...out];
}

type SocialKey = "linkedinUrl" | "twitterUrl" | "facebookUrl" | "instagramUrl" | "githubUrl" | "youtubeUrl";
const SOCIAL: [RegExp, SocialKey, RegExp?][] = [
  [/^(www\.|[a-z]{2}\.)?linkedin\.com$/, "linkedinUrl", /^\/(company|school|showcase)\/[^/]+/],
  [
    /^(www\.|mobile\.)?(twitter|x)\.com$/,
    "twitterUrl",
    /^\/(?!intent|share|home|hashtag|search|i\/)[A-Za-z0-9_]{1,15}\/?$/,
  ],
  [/^(www\.|m\.|[a-z]{2}-[a-z]{2}\.)?facebook\.com$/, "facebookUrl", /^\/(?!sharer|share|dialog|plugins|tr)[^/]+/],
  [/^(www\.)?instagram\.com$/, "instagramUrl", /^\/(?!p\/|explore|reel)[^/]+/],
  [/^(www\.)?github\.com$/, "githubUrl", /^\/[^/]+\/?$/],
  [/^(www\.|m\.)?youtube\.com$/, "youtubeUrl", /^\/(channel\/|c\/|user\/|@)[^/]+/],
];

/** Which company profile a link is, with a clean URL (no query, no trailing slash); null for anything else. */
export function socialProfile(href: string): { key: SocialKey; url: string } | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase();
  for (const [hostRe, key, pathRe] of SOCIAL) {
    if (!hostRe.test(host) || (pathRe && !pathRe.test(url.pathname))) continue;
    return { key, url: `https://${host.replace(/^(m|mobile)\./, "www.")}${url.pathname.replace(/\/+$/, "")}` };
  }
  return null;
}

/** Facts from JSON-LD Organization, meta tags and profile links of one page. */
export function companyFactsFrom(input: {
  nodes: JsonNode[];
  meta: Map<string, string>;
  links: readonly string[];
  targetDomain: string;
}): CompanyFacts {
  const facts = emptyCompanyFacts();
  const org = pickOrganization(input.nodes, input.targetDomain);
  if (org) {
    facts.name = text(org.name);
    facts.description = text(org.description);
    facts.logo = strings(org.logo)[0] ?? null;
    facts.founded = text(org.foundingDate);
    const employees = org.numberOfEmployees;
    const count = Number(
      typeof employees === "object" && employees
        ? ((employees as JsonNode).value ?? (employees as JsonNode).maxValue)
        : employees,
    );
    facts.employeeCount = Number.isInteger(count) && count > 0 ? count : null;
    const address = (Array.isArray(org.address) ? org.address[0] : org.address) as JsonNode | string | undefined;
    if (address && typeof address === "object") {
      facts.country = countryCode(text(address.addressCountry));
      facts.state = text(address.addressRegion);
      facts.city = text(address.addressLocality);
      facts.streetAddress = text(address.streetAddress);
      facts.postalCode = text(address.postalCode);
    }
    const country = (facts.country as CountryCode | null) ?? countryOfDomain(input.targetDomain);
    const tel = text(org.telephone);
    facts.phone = tel ? toE164(tel, country) : null;
    facts.sameAs = strings(org.sameAs).filter((u) => /^https?:\/\//i.test(u));
    if (typeof org.keywords === "string")
      facts.keywords = org.keywords
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean);
  }
  facts.name ??= input.meta.get("og:site_name") ?? null;
  facts.description ??= input.meta.get("description") ?? input.meta.get("og:description") ?? null;
  const keywords = input.meta.get("keywords");
  if (facts.keywords.length === 0 && keywords) {
    facts.keywords = keywords
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean)
      .slice(0, 20);
  }
  for (const href of [...facts.sameAs, ...input.links]) {
    const profile = socialProfile(href);
    if (profile && facts[profile.key] === null) facts[profile.key] = profile.url;
  }
  return facts;
}

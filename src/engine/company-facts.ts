import type { Env } from "../env.js";
import { ApiError } from "../http/errors.js";
import { fetchPage } from "./crawl/fetch-page.js";
import { type CompanyFacts, emptyCompanyFacts, mergeCompanyFacts } from "./extract/company.js";
import { extractPage } from "./extract/page.js";
import { companyByDomain, type CompanyRecord } from "./people-index.js";

/**
 * Company facts for a domain the index has not seen yet, read from the domain's own site (home,
 * about and contact pages, with the crawler's extraction: JSON-LD Organization, og:site_name,
 * social links, tel: links and announced numbers) and stored so the next request is a D1 read.
 */
const PAGES = ["/", "/about", "/contact"];
const LIMITS = { timeoutMs: 8_000, maxBytes: 1_500_000 };

/** False for no row, and for a row holding only technologies (from a technology lookup). */
export function hasFacts(c: CompanyRecord | null): c is CompanyRecord {
  return !!c && !!(c.name || c.description || c.logo || c.source === "import");
}

/** The stored company, or facts fetched from its site now. Throws 502 when the site cannot be reached at all. */
export async function companyOrFetch(env: Env, domain: string): Promise<CompanyRecord | null> {
  const stored = await companyByDomain(env, domain);
  if (hasFacts(stored)) return stored;
  const fetched = await fetchCompanyFacts(env, domain);
  if (!fetched) return null;
  await storeFacts(env, domain, fetched.facts, fetched.phones);
  return companyByDomain(env, domain);
}

async function fetchCompanyFacts(env: Env, domain: string): Promise<{ facts: CompanyFacts; phones: { e164: string; uri: string }[] } | null> {
  let facts = emptyCompanyFacts();
  const phones: { e164: string; uri: string }[] = [];
  let reached = false;
  const results = await Promise.all(PAGES.map((p) => fetchPage(`https://${domain}${p}`, env, LIMITS)));
  for (const page of results) {
    if (page.kind === "unreachable") continue;
    reached = true;
    if (page.kind !== "ok") continue;
    const extraction = await extractPage(page.body, page.url, domain, page.contentType);
    facts = mergeCompanyFacts(facts, extraction.company);
    for (const e164 of extraction.phones) if (!phones.some((p) => p.e164 === e164)) phones.push({ e164, uri: page.url });
  }
  if (!reached) {
    throw new ApiError(502, "site_unreachable", `The site of ${domain} could not be reached, so nothing was charged. Try again later.`);
  }
  if (facts.phone && !phones.some((p) => p.e164 === facts.phone)) phones.unshift({ e164: facts.phone, uri: `https://${domain}/` });
  const known = Object.entries(facts).some(([, v]) => (Array.isArray(v) ? v.length > 0 : v !== null));
  return known || phones.length ? { facts, phones } : null;
}

const FACT_COLUMNS = [
  "name", "description", "logo", "founded", "employee_count", "country", "state", "city", "street_address", "postal_code", "phone",
  "linkedin_url", "twitter_url", "facebook_url", "instagram_url", "github_url", "youtube_url", "keywords", "same_as",
];

async function storeFacts(env: Env, domain: string, f: CompanyFacts, phones: { e164: string; uri: string }[]) {
  const now = Date.now();
  const stmts = [
    env.DB.prepare(
      `INSERT INTO companies (domain, name, description, logo, founded, employee_count, country, state, city, street_address, postal_code, phone,
         linkedin_url, twitter_url, facebook_url, instagram_url, github_url, youtube_url, keywords, same_as, source, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, 'crawl', ?21)
       ON CONFLICT(domain) DO UPDATE SET ${FACT_COLUMNS.map((c) => `${c} = COALESCE(companies.${c}, excluded.${c})`).join(", ")}`,
    ).bind(
      domain,
      f.name,
      f.description,
      f.logo,
      f.founded,
      f.employeeCount,
      f.country,
      f.state,
      f.city,
      f.streetAddress,
      f.postalCode,
      f.phone ?? phones[0]?.e164 ?? null,
      f.linkedinUrl,
      f.twitterUrl,
      f.facebookUrl,
      f.instagramUrl,
      f.githubUrl,
      f.youtubeUrl,
      f.keywords.length ? JSON.stringify(f.keywords) : null,
      f.sameAs.length ? JSON.stringify(f.sameAs) : null,
      now,
    ),
    ...phones.map((p) =>
      env.DB.prepare(
        `INSERT INTO phones (domain, email, professional_network_url, e164, source_uri, source, first_seen_at, last_seen_at)
         SELECT ?1, NULL, NULL, ?2, ?3, 'crawl', ?4, ?4 WHERE NOT EXISTS (SELECT 1 FROM phones WHERE domain = ?1 AND e164 = ?2 AND email IS NULL)`,
      ).bind(domain, p.e164, p.uri, now),
    ),
  ];
  await env.DB.batch(stmts);
}

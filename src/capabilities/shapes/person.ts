import { isDisposableDomain, isWebmailDomain } from "../../engine/data/domain-lists.js";
import {
  acceptAllOf,
  type CompanyRecord,
  evidenceScore,
  jsonList,
  type PersonRecord,
  sourcesOf,
} from "../../engine/index/people.js";
import type { Env } from "../../env.js";
import { rfc3339 } from "../../platform/time.js";
import { socialFields } from "./social-fields.js";

/** Wire shapes of stored people and companies (docs/wire-contract.md §4.3, §8.2), from the index's records. */

/** FinderData (docs/wire-contract.md §4.3) for a stored person; also carries the neutral field names. */
export async function storedPersonData(env: Env, person: PersonRecord, company: CompanyRecord | null) {
  const domain = person.domain;
  const [sources, acceptAll] = await Promise.all([
    person.email ? sourcesOf(env, person.email) : [],
    acceptAllOf(env, domain),
  ]);
  return {
    email: person.email,
    first_name: person.firstName,
    last_name: person.lastName,
    full_name: person.fullName,
    website_url: domain,
    company: company?.name ?? null,
    position: person.position,
    department: person.department,
    seniority: person.seniority,
    type: person.type,
    country: person.country,
    gender: person.gender,
    ...socialFields({ microblog: person.microblog, professionalNetwork: person.professionalNetworkUrl }),
    // A bool on the wire (strict clients declare it so); the number itself is phone_data's job.
    phone_number: person.hasPhone,
    accept_all: acceptAll,
    disposable: isDisposableDomain(domain),
    webmail: isWebmailDomain(domain),
    score: person.email ? evidenceScore(person.source, sources) : 0,
    // No verification is run here; the verifier endpoint gives one.
    verification: { date: null, status: null },
    sources,
  };
}

/** The flat organization of `companies/find` (docs/wire-contract.md §8.2). */
export function flatOrganization(c: CompanyRecord) {
  return {
    name: c.name,
    domain: c.domain,
    website_url: c.domain,
    description: c.description,
    logo: c.logo,
    industries: c.industry,
    country: c.country,
    city: c.city,
    state: c.state,
    street_address: c.streetAddress,
    postal_code: c.postalCode,
    founded: c.founded,
    company_size: c.companySize,
    company_type: c.companyType,
    revenue: c.revenue,
    employee_count: c.employeeCount,
    phone_number: c.phone ?? "",
    linkedin_url: c.linkedinUrl,
    twitter_url: c.twitterUrl,
    facebook_url: c.facebookUrl,
    instagram_url: c.instagramUrl,
    github_url: c.githubUrl,
    youtube_url: c.youtubeUrl,
    keywords: jsonList(c.keywords),
    same_as: jsonList(c.sameAs),
    technologies: jsonList(c.technologies),
    source: c.source,
    last_updated: rfc3339(c.updatedAt),
  };
}

/** `people/find` data: FinderData's person fields plus type and seniority (docs/wire-contract.md §8.2). */
export async function personFindData(env: Env, person: PersonRecord, company: CompanyRecord | null) {
  const f = await storedPersonData(env, person, company);
  return {
    email: f.email,
    first_name: f.first_name,
    last_name: f.last_name,
    full_name: f.full_name,
    gender: f.gender,
    position: f.position,
    department: f.department,
    seniority: f.seniority,
    company: f.company,
    website_url: f.website_url,
    phone_number: f.phone_number,
    country: f.country,
    ...socialFields({ microblog: f.microblog, professionalNetwork: f.professional_network }),
    score: f.score,
    type: f.type,
    accept_all: f.accept_all,
    disposable: f.disposable,
    webmail: f.webmail,
    verification: f.verification,
    sources: f.sources,
  };
}

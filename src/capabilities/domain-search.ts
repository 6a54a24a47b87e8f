import { z } from "@hono/zod-openapi";
import { inArray } from "drizzle-orm";
import { people } from "../db/schema-index.js";
import { groupByIndex, type IndexEnv } from "../db/shards.js";
import { isDisposableDomain, isWebmailDomain } from "../engine/data/domain-lists.js";
import { matchPatterns } from "../engine/finder/patterns.js";
import { filterClaimed } from "../engine/index/claims.js";
import { ensureIndexed } from "../engine/index/ensure-indexed.js";
import {
  type CompanyRow,
  companyOf,
  countriesOf,
  domainRow,
  type EmailRow,
  emailsOfDomain,
  formatsOf,
  liveSourceCounts,
  sourcesOf,
} from "../engine/index/read.js";
import { phoneDataFor } from "../engine/phones/phone-data.js";
import { verifyEmail } from "../engine/verify/verifier.js";
import { queryBool, queryIntOr } from "../http/validation.js";
import { rfc3339 } from "../platform/time.js";
import { type BulkOptionValues, defineCapability } from "./core/registry.js";
import { BULK_FIELDS, BULK_OPTIONS, inPriorityOrder, pick, withheldBecause } from "./shapes/bulk-fields.js";
import { extraPhoneCost } from "./shapes/enrichment-params.js";
import { departmentParam, domainOrCompany, resolveTarget, SourceSchema, VerificationSchema } from "./shapes/finder.js";
import { PhoneDataSchema } from "./shapes/phone.js";
import { SocialFieldsSchema, type SocialProfiles, socialFields } from "./shapes/social-fields.js";

/**
 * Score of a listed address, from what the index knows about it: 40 for being published at all,
 * +10 per page still showing it (up to +30), +15 when a person's name is attached, +10 for a
 * personal address in the domain's main format; an address no page shows any more loses 30.
 */
export function listingScore(row: EmailRow, live: number, mainPattern: boolean): number {
  let score = 40 + Math.min(30, live * 10) + (row.firstName && row.lastName ? 15 : 0) + (mainPattern ? 10 : 0);
  if (live === 0) score -= 30;
  return Math.max(1, Math.min(99, score));
}

function organization(
  domain: string,
  company: CompanyRow | undefined,
  pattern: string | null,
  acceptAll: boolean | null,
  updatedAt: number | null,
) {
  const list = (json: string | null | undefined) => {
    try {
      const v = json ? JSON.parse(json) : [];
      return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
    } catch {
      return [];
    }
  };
  return {
    organization: company?.name ?? null,
    website_url: domain,
    description: company?.description ?? null,
    industries: company?.industry ?? null,
    founded: company?.founded ?? null,
    company_size: company?.companySize ?? null,
    company_type: company?.companyType ?? null,
    revenue: company?.revenue ?? null,
    employee_count: company?.employeeCount ?? null,
    logo: company?.logo ?? null,
    location: {
      country: company?.country ?? null,
      city: company?.city ?? null,
      state: company?.state ?? null,
      street_address: company?.streetAddress ?? null,
      postal_code: company?.postalCode ?? null,
    },
    social_links: {
      twitter_url: company?.twitterUrl ?? null,
      facebook_url: company?.facebookUrl ?? null,
      linkedin_url: company?.linkedinUrl ?? null,
      instagram_url: company?.instagramUrl ?? null,
      github_url: company?.githubUrl ?? null,
      youtube_url: company?.youtubeUrl ?? null,
    },
    // A string here (the per-email field is a bool): "" when the site gives no number.
    phone_number: company?.phone ?? "",
    disposable: isDisposableDomain(domain),
    webmail: isWebmailDomain(domain),
    accept_all: acceptAll ?? false,
    pattern,
    keywords: list(company?.keywords),
    last_updated: rfc3339(updatedAt),
    // Not measured by this service: left null rather than invented.
    total_similar: null,
    ranking: null,
    domain_score: null,
    whois: { registrar_name: null, created_date: null, referral_url: null },
  };
}

/** Profiles the people index holds for the listed addresses (one query for the page; at most 100). */
async function profilesOf(env: IndexEnv, addresses: readonly string[]): Promise<Map<string, SocialProfiles>> {
  const out = new Map<string, SocialProfiles>();
  if (addresses.length === 0) return out;
  for (const [index, group] of await groupByIndex(env, addresses)) {
    const rows = await index
      .select({ email: people.email, microblog: people.microblog, professionalNetwork: people.professionalNetworkUrl })
      .from(people)
      .where(inArray(people.email, group))
      .all();
    for (const r of rows)
      if (r.email) out.set(r.email, { microblog: r.microblog, professionalNetwork: r.professionalNetwork });
  }
  return out;
}

const EmailSchema = z.object({
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  full_name: z.string().nullable(),
  gender: z.string().nullable(),
  phone_number: z
    .boolean()
    .openapi({ description: "With enrich_mobile=true: true when phone_data holds a number of this person" }),
  phone_data: PhoneDataSchema.nullable()
    .optional()
    .openapi({ description: "Only with enrich_mobile=true: the person's best stored number, or null" }),
  type: z.enum(["personal", "generic"]),
  country: z.string().nullable(),
  position: z.string().nullable(),
  department: z.string().nullable(),
  seniority: z.string().nullable(),
  ...SocialFieldsSchema.shape,
  score: z.number().int(),
  accept_all: z.boolean(),
  pattern: z.string().nullable(),
  last_updated: z.string().nullable(),
  verification: VerificationSchema,
  sources: z.array(SourceSchema),
});

const ResponseSchema = z
  .object({
    data: z.object({ organization: z.record(z.string(), z.unknown()), emails: z.array(EmailSchema) }),
    meta: z.object({
      total: z.number().int(),
      pageSize: z.number().int(),
      current: z.number().int(),
      total_pages: z.number().int(),
      params: z.object({
        domain: z.string(),
        page: z.number().int(),
        limit: z.number().int(),
        department: z.string().nullable(),
        country: z.string().nullable(),
        type: z.string(),
        live: z.boolean(),
      }),
    }),
  })
  .openapi("DomainSearch");

/** Whether the job's email_type and departments options are ones the search applies itself (mode only, at most one department). */
function searchFiltersItself(options: BulkOptionValues): boolean {
  const departments = Array.isArray(options.departments) ? options.departments : [];
  return (
    (options.email_type_mode ?? "only") === "only" &&
    (options.departments_mode ?? "only") === "only" &&
    departments.length <= 1
  );
}

export const domainSearch = defineCapability({
  acceptsCallback: true,
  name: "domain-search",
  label: "Domain Search",
  summary: "Email addresses published on a company's website, with their sources, names and positions",
  tag: "Finder",
  paths: ["/domain-search"],
  agentPath: "/domain-search",
  params: z.object({
    ...domainOrCompany,
    limit: queryIntOr(10, { min: 1, max: 100 }),
    page: queryIntOr(1, { min: 1, max: 10_000 }),
    department: departmentParam,
    country: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, { message: "expected a two-letter country code" })
      .optional()
      .openapi({ description: "ISO 3166 alpha-2: only people known to be in this country" }),
    type: z.enum(["personal", "generic"]).optional(),
    enrich_mobile: queryBool().openapi({
      description: "true: add emails[].phone_data and set phone_number (one phone credit per number found)",
    }),
  }),
  rateGroup: "search",
  cost: { balance: "search", amount: 1 },
  estimatedCostHeader: "X-Estimated-Cost",
  // At least one phone credit must be available; the answer is trued up to the numbers it found.
  extraCostFor: extraPhoneCost,
  usageCategory: "search",
  response: ResponseSchema,
  bulk: {
    type: "search",
    label: "Domain Search",
    description: "Addresses published on each company's website",
    fields: [BULK_FIELDS.domain, BULK_FIELDS.company],
    primaryParam: "domain",
    requires: [["domain"], ["company"]],
    options: [
      BULK_OPTIONS.max_emails_per_domain,
      BULK_OPTIONS.email_type,
      BULK_OPTIONS.email_type_mode,
      BULK_OPTIONS.departments,
      BULK_OPTIONS.departments_mode,
      {
        ...BULK_OPTIONS.verify_emails,
        description:
          "Verify each listed address (default false: the search lists what the pages show); adds the verification column",
      },
      {
        ...BULK_OPTIONS.boost_score_from_sources,
        description: "Always true: listed addresses are scored from the pages showing them (false is refused)",
      },
      BULK_OPTIONS.include_sources,
    ],
    // The search filters itself when it can (one type or one department, mode only); otherwise it
    // lists up to 100 addresses and `run` filters, orders and caps them.
    paramsFor: (cells, options) => {
      const params: Record<string, string> = pick(cells, ["domain", "company"]);
      const plain = searchFiltersItself(options);
      if (!plain) params.limit = "100";
      else if (typeof options.max_emails_per_domain === "number") params.limit = String(options.max_emails_per_domain);
      if (plain && (options.email_type === "personal" || options.email_type === "generic"))
        params.type = options.email_type;
      const departments = options.departments;
      const [only, ...more] = Array.isArray(departments) ? departments : [];
      if (plain && only !== undefined && more.length === 0) params.department = only;
      return params;
    },
    resultColumns: {
      "organization.name": "organization.organization",
      "organization.pattern": "organization.pattern",
      emails: "emails",
    },
    optionColumns: { verify_emails: { verification: "emails.verification.status" } },
    isValid: (data) => ((data as { emails?: unknown[] } | null)?.emails?.length ?? 0) > 0,
    async run(params, ctx, options, answer) {
      const result = await answer(params);
      if (searchFiltersItself(options) && options.verify_emails !== true) return result;
      type Listed = {
        email: string;
        type: string;
        department: string | null;
        verification: { date: string | null; status: string | null };
      };
      const body = result.body as { data: { organization: unknown; emails: Listed[] }; meta: unknown };
      const kept = inPriorityOrder(
        body.data.emails.filter((e) => !withheldBecause(e, options)),
        options,
      );
      let emails =
        typeof options.max_emails_per_domain === "number" ? kept.slice(0, options.max_emails_per_domain) : kept;
      if (options.verify_emails === true) {
        emails = await Promise.all(
          emails.map(async (e) => {
            const verdict = await verifyEmail(ctx.env, e.email, { memo: ctx.memo }).catch(() => null);
            return {
              ...e,
              verification: { date: verdict ? rfc3339(ctx.now()) : null, status: verdict?.data.email.status ?? null },
            };
          }),
        );
      }
      const withheld = body.data.emails.length - kept.length;
      const note =
        emails.length === 0 && withheld > 0
          ? `${withheld} address${withheld === 1 ? "" : "es"} found, none kept by the job's email_type and departments filters`
          : undefined;
      return { body: { ...body, data: { ...body.data, emails } }, found: emails.length > 0, ...(note ? { note } : {}) };
    },
  },
  async handler(params, ctx) {
    const domain = await resolveTarget(ctx.env, params);
    const state = await ensureIndexed(ctx, domain);
    const [rows, company, dom] = await Promise.all([
      emailsOfDomain(ctx.env, domain),
      companyOf(ctx.env, domain),
      domainRow(ctx.env, domain),
    ]);
    const country = params.country?.toUpperCase() ?? null;
    const countries = country ? await countriesOf(ctx.env, domain) : new Map<string, string>();
    const visible = new Set(
      await filterClaimed(
        ctx.env,
        "email",
        rows.map((r) => r.email),
      ),
    );
    const inference = formatsOf(dom, rows);
    const main = inference.shares[0]?.pattern ?? null;

    const matching = rows.filter(
      (r) =>
        visible.has(r.email) &&
        (!params.type || r.type === params.type) &&
        (!params.department || r.department === params.department) &&
        (!country || countries.get(r.email) === country),
    );
    // The ranking needs every matching address (live pages, the domain's main format), but only
    // how many pages still show each: full sources and profiles are read for the page alone.
    const live = await liveSourceCounts(
      ctx.env,
      matching.map((r) => r.email),
    );
    const scored = matching
      .map((r) => {
        const pattern =
          r.type === "personal" && r.firstName && r.lastName
            ? (matchPatterns(r.localPart, {
                first: r.firstName,
                last: r.lastName,
                ...(r.middleName ? { middle: r.middleName } : {}),
              }).patterns[0] ?? null)
            : null;
        return {
          row: r,
          pattern,
          score: listingScore(r, live.get(r.email) ?? 0, pattern !== null && pattern === main),
        };
      })
      .sort((a, b) => b.score - a.score || a.row.email.localeCompare(b.row.email));
    const total = scored.length;
    const pageRows = scored.slice((params.page - 1) * params.limit, params.page * params.limit);
    const pageEmails = pageRows.map(({ row }) => row.email);
    const [sources, profiles] = await Promise.all([sourcesOf(ctx.env, pageEmails), profilesOf(ctx.env, pageEmails)]);

    const phones = params.enrich_mobile
      ? await Promise.all(pageRows.map(({ row }) => phoneDataFor(ctx.env, { email: row.email })))
      : null;
    const emailsOut = pageRows.map(({ row, score, pattern }, i) => ({
      email: row.email,
      first_name: row.firstName,
      last_name: row.lastName,
      full_name: row.firstName && row.lastName ? `${row.firstName} ${row.lastName}` : null,
      gender: null,
      phone_number: phones?.[i] != null,
      ...(phones ? { phone_data: phones[i] ?? null } : {}),
      type: row.type as "personal" | "generic",
      country: countries.get(row.email) ?? null,
      position: row.position,
      department: row.department,
      seniority: row.seniority,
      ...socialFields(profiles.get(row.email) ?? { microblog: null, professionalNetwork: null }),
      score,
      accept_all: dom?.acceptAll ?? false,
      pattern,
      last_updated: rfc3339(row.lastSeenAt),
      // Domain search lists what the pages show; it does not run the verifier on each address.
      verification: { date: null, status: null },
      sources: sources.get(row.email) ?? [],
    }));
    return {
      body: {
        data: {
          organization: organization(
            domain,
            company,
            main,
            dom?.acceptAll ?? null,
            company?.updatedAt ?? dom?.crawledAt ?? null,
          ),
          emails: emailsOut,
        },
        meta: {
          total,
          pageSize: params.limit,
          current: params.page,
          total_pages: Math.ceil(total / params.limit),
          params: {
            domain,
            page: params.page,
            limit: params.limit,
            department: params.department ?? null,
            country,
            type: params.type ?? "all",
            live: state.live,
          },
        },
      },
      found: total > 0,
      extraCost: { phone: phones?.filter((p) => p !== null).length ?? 0 },
    };
  },
});

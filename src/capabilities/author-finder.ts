import { z } from "@hono/zod-openapi";
import { getDomain } from "tldts";
import { type FinderAnswer, findEmail } from "../engine/finder/email-finder.js";
import { ensureIndexed } from "../engine/index/ensure-indexed.js";
import { splitFullName } from "../engine/people/names.js";
import { extractAuthor } from "../engine/web/extract/author.js";
import { extractPage } from "../engine/web/extract/page.js";
import { fetchPage } from "../engine/web/fetch-page.js";
import { parseUserUrl } from "../engine/web/user-url.js";
import { ApiError } from "../http/errors.js";
import { defineCapability } from "./core/registry.js";
import { BULK_FIELDS, pick } from "./shapes/bulk-fields.js";
import { FinderDataSchema, finderData } from "./shapes/finder.js";
import { SocialFieldsSchema, socialFields } from "./shapes/social-fields.js";

const ARTICLE_LIMITS = { timeoutMs: 10_000, maxBytes: 2 * 1024 * 1024 };

const AuthorInfoSchema = z
  .object({
    url: z.string(),
    title: z.string().nullable(),
    og_image: z.string().nullable(),
    description: z.string().nullable(),
    full_name: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    article_domain: z.string(),
    same_as_domain: z.string().nullable(),
    ...SocialFieldsSchema.shape,
    email: z.string().nullable(),
    image: z.string().nullable(),
    gravatar: z.boolean().openapi({ description: "Always false: Gravatar is not queried" }),
    emails: z.array(z.string()),
    author_score: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Confidence in the author name by the page rule that gave it (100 = JSON-LD)" }),
  })
  .openapi("AuthorInfo");

const NOTHING: FinderAnswer = {
  email: null,
  score: null,
  pattern: null,
  verbatim: false,
  position: null,
  department: null,
  seniority: null,
  sources: [],
  verification: { date: null, status: null },
  acceptAll: null,
  company: null,
};

/**
 * The author of an article and their address: the article is fetched (public http(s) URLs only),
 * its author read by the usual page rules, then the email finder runs on the article's domain.
 * No author, or a name without a family name, is a 200 with `email: null` (not billed).
 */
export const authorFinder = defineCapability({
  acceptsCallback: true,
  name: "author-finder",
  label: "Author Finder",
  summary:
    "The email address of an article's author: author read from the page, then the email finder on the site's domain",
  tag: "Finder",
  paths: ["/author-finder"],
  agentPath: "/author-finder",
  params: z.object({
    url: z
      .string()
      .trim()
      .min(1, { message: "must not be empty" })
      .max(2048)
      .openapi({ description: "Article URL (the scheme may be left out)", example: "blog.acme.com/2024/launch" }),
  }),
  rateGroup: "author",
  cost: { balance: "search", amount: 1 },
  usageCategory: "search",
  response: z.object({ data: FinderDataSchema.extend({ info: AuthorInfoSchema }) }),
  bulk: {
    type: "author",
    label: "Author Finder",
    description: "Author and email address of each article",
    fields: [BULK_FIELDS.url],
    primaryParam: "url",
    requires: [["url"]],
    options: [],
    paramsFor: (cells) => pick(cells, ["url"]),
    resultColumns: {
      email: "email",
      score: "score",
      first_name: "first_name",
      last_name: "last_name",
      company: "company",
      website_url: "website_url",
      "info.title": "info.title",
    },
    isValid: (data) => typeof (data as { email?: unknown } | null)?.email === "string",
  },
  async handler(params, ctx) {
    const url = parseUserUrl(params.url, ctx.env);
    const domain = getDomain(url.hostname);
    if (!domain)
      throw new ApiError(
        400,
        "params_invalid",
        `The parameter 'url' is invalid: ${url.hostname} is not under a public domain.`,
      );
    const page = await fetchPage(url.href, ctx.env, ARTICLE_LIMITS);
    if (page.kind === "unreachable" && page.noSuchHost) {
      throw new ApiError(422, "domain_not_found", `The article at ${url.href} cannot be fetched: ${page.reason}.`);
    }
    if (page.kind === "unreachable") {
      throw page.timedOut
        ? new ApiError(504, "site_timeout", `The article at ${url.href} did not load in time; nothing was charged.`)
        : new ApiError(
            502,
            "site_unreachable",
            `The article at ${url.href} could not be fetched (${page.reason}); nothing was charged.`,
          );
    }
    if (page.kind === "unusable" && page.refused) {
      throw new ApiError(422, "url_not_allowed", `The URL ${url.href} cannot be fetched: ${page.reason}.`);
    }
    if (page.kind === "unusable") {
      throw new ApiError(422, "article_unavailable", `The article at ${url.href} cannot be read: ${page.reason}.`);
    }
    const [author, extraction] = await Promise.all([
      extractAuthor(page.body),
      extractPage(page.body, page.url, domain, page.contentType),
    ]);
    const name = author.name ? splitFullName(author.name) : null;

    let answer = NOTHING;
    if (name) {
      await ensureIndexed(ctx, domain);
      answer = await findEmail(ctx, domain, name);
    }
    const base = name
      ? finderData(domain, name, answer)
      : {
          ...finderData(domain, { first: "", last: "" }, NOTHING),
          first_name: null,
          last_name: null,
          full_name: author.name,
        };
    // Profiles the article links for its author (sameAs, twitter:creator), under both names.
    const profiles = socialFields({ microblog: author.twitter, professionalNetwork: author.linkedin });
    const info = {
      url: page.url,
      title: author.title,
      og_image: author.ogImage,
      description: author.description,
      full_name: author.name,
      first_name: name?.first ?? null,
      last_name: name?.last ?? null,
      article_domain: domain,
      same_as_domain: name ? domain : null,
      ...profiles,
      email: answer.email,
      image: author.image,
      gravatar: false,
      emails: extraction.addresses.map((a) => a.email),
      author_score: author.confidence,
    };
    return {
      body: { data: { ...base, ...profiles, info } },
      found: answer.email !== null,
    };
  },
});

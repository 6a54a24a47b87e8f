import { z } from "@hono/zod-openapi";
import { getDomain } from "tldts";
import { isWebmailDomain } from "../engine/data/domain-lists.js";
import { assertNotClaimed, normaliseEmail } from "../engine/index/claims.js";
import { ensureIndexed } from "../engine/index/ensure-indexed.js";
import { sourcesOf } from "../engine/index/read.js";
import { ApiError } from "../http/errors.js";
import { defineCapability } from "./core/registry.js";
import { SourceSchema } from "./shapes/finder.js";

export const emailSources = defineCapability({
  name: "email-sources",
  label: "Email Sources",
  summary: "Pages where an address was found, with first and last sighting and whether it is still there",
  tag: "Finder",
  paths: ["/email-sources", "/email-sources/{email}"],
  // The JavaScript client calls /email-sources/?email= (trailing slash, query parameter).
  aliases: ["/email-sources/"],
  agentPath: "/email-sources",
  params: z.object({
    email: z
      .string()
      .trim()
      .min(1, { message: "must not be empty" })
      .max(254)
      .openapi({ description: "The address", example: "jane@acme.com" }),
  }),
  rateGroup: "sources",
  // One search credit, refunded when no page shows the address (the spec answers an exhausted
  // balance here with 429, so the endpoint is charged).
  cost: { balance: "search", amount: 1 },
  exhaustedAs: "rate_limit",
  usageCategory: "sources",
  response: z.object({ email: z.string(), data: z.array(SourceSchema) }).openapi("EmailSources"),
  async handler(params, ctx) {
    const email = normaliseEmail(params.email);
    const domain = email ? getDomain(email.slice(email.lastIndexOf("@") + 1)) : null;
    if (!email || !domain || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
      throw new ApiError(
        400,
        "params_invalid",
        `The parameter 'email' is invalid: "${params.email.slice(0, 100)}" is not an email address.`,
      );
    }
    await assertNotClaimed(ctx.env, "email", email);
    // A company domain is crawled on demand; webmail providers publish no one's address.
    if (!isWebmailDomain(domain)) await ensureIndexed(ctx, domain);
    const data = (await sourcesOf(ctx.env, [email])).get(email) ?? [];
    return { body: { email, data }, found: data.length > 0 };
  },
});

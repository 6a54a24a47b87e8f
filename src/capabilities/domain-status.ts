import { z } from "@hono/zod-openapi";
import { isDisposableDomain, isWebmailDomain } from "../engine/data/domain-lists.js";
import { toAsciiDomain } from "../engine/verify/email-syntax.js";
import { ApiError } from "../http/errors.js";
import { defineCapability } from "./core/registry.js";

export const domainStatus = defineCapability({
  name: "domain-status",
  label: "Domain Status",
  summary: "Whether a domain (or an address's domain) is a webmail provider or a disposable email service",
  tag: "Verification",
  paths: ["/domain-status"],
  agentPath: "/domain-status",
  params: z.object({
    domain: z.string().trim().max(1024).optional().openapi({ description: "Domain name", example: "gmail.com" }),
    email: z
      .string()
      .trim()
      .max(1024)
      .optional()
      .openapi({ description: "Alternatively an address; its domain is checked" }),
  }),
  rateGroup: null,
  cost: null,
  usageCategory: "verifier",
  response: z.object({ domain: z.string(), webmail: z.boolean(), disposable: z.boolean() }).openapi("DomainStatus"),
  async handler(params) {
    const given = params.domain || (params.email ? params.email.slice(params.email.lastIndexOf("@") + 1) : "");
    if (!given) throw new ApiError(400, "params_invalid", "The parameter 'domain' is required (or pass 'email').");
    const domain = given.toLowerCase().replace(/\.$/, "");
    const ascii = toAsciiDomain(domain);
    // The documented behaviour: a domain that cannot exist is reported as disposable.
    if (!ascii) return { body: { domain, webmail: false, disposable: true }, found: true };
    const disposable = isDisposableDomain(ascii);
    return { body: { domain, webmail: !disposable && isWebmailDomain(ascii), disposable }, found: true };
  },
});

import { z } from "@hono/zod-openapi";
import type { Account } from "../db/schema.js";
import type { Env } from "../env.js";
import { type ApiApp, type Ctx, defineRoute } from "../http/openapi.js";
import { rfc3339 } from "../http/time.js";
import { planFor } from "../limits/plans.js";
import { ErrorResponses, security } from "./openapi-shared.js";
import { creditSummary, type CreditSummary } from "./credits.js";

const MeSchema = z.object({ data: z.record(z.string(), z.unknown()) }).openapi("Me");

export function registerMeRoute(v1: ApiApp) {
  defineRoute(
    v1,
    {
      method: "get",
      path: "/me",
      tags: ["Account"],
      security,
      summary: "The account, its plan, caps and credit balances",
      responses: { 200: { description: "Account", content: { "application/json": { schema: MeSchema } } }, ...ErrorResponses },
    },
    async (c: Ctx) => c.json({ data: await renderMe(c.env, c.get("auth").account, c.get("auth").actor, c.get("admittedBalances")) }, 200),
  );
}

async function renderMe(env: Env, account: Account, actor: Account, known?: CreditSummary) {
  const plan = planFor(account.plan);
  const credits = await creditSummary(env, account, Date.now(), known);
  const isMember = account.id !== actor.id;
  return {
    user_id: actor.id,
    secret_token: "",
    role: isMember ? 2 : 1,
    confirmed: actor.confirmed,
    blocked: actor.blocked,
    deleted: false,
    newsletter: false,
    activity: true,
    has_password: actor.passwordHash !== null,
    first_name: actor.firstName,
    last_name: actor.lastName,
    email: actor.email,
    phone: null,
    image: null,
    provider: null,
    timezone: "UTC",
    title: null,
    country: null,
    ip: null,
    created_at: rfc3339(actor.createdAt),
    issued: rfc3339(actor.createdAt),
    expired: rfc3339(account.subscriptionExpiresAt),
    expired_subscription: rfc3339(account.subscriptionExpiresAt),
    plan: plan.name,
    pricing: {
      name: plan.label,
      pricing_id: plan.id,
      available_searches: credits.search.available,
      available_verifications: credits.verification.available,
      available_phones: credits.phone.available,
      available_leads: plan.caps.leads,
      available_list: plan.caps.lists,
      available_attr: plan.caps.attributes,
      available_keys: plan.caps.keys,
      available_teams: plan.caps.teams,
      available_b2b: credits.search.available,
      available_sources: credits.search.available,
      available_email_count: credits.search.available,
      available_similar: credits.search.available,
      available_technologies: credits.search.available,
      frequency: plan.frequency,
      price_monthly: plan.priceMonthly,
      price_yearly: plan.priceYearly,
      update_url: null,
      cancel_url: null,
    },
    teams: isMember
      ? { team_id: null, role: "member", workspace: true, export: true, bulks: true, limit: null, owner: { name: account.email, available_teams: plan.caps.teams, available_searches: credits.search.available, available_verifications: credits.verification.available, usage: credits.search.used + credits.verification.used } }
      : { team_id: null, role: "owner", workspace: false, export: true, bulks: true, limit: null, owner: null },
    requests: {
      domains: credits.search,
      verifications: credits.verification,
      phones: credits.phone,
      b2b: credits.search,
      count: credits.search,
      similar: credits.search,
      technologies: credits.search,
    },
    credits,
  };
}

import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { type Account, workspaceMembers, workspaces } from "../../db/schema.js";
import type { Env } from "../../env.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { tableLimit } from "../../limits/middleware.js";
import { planFor } from "../../limits/plans.js";
import { rfc3339 } from "../../platform/time.js";
import { type CreditSummary, creditSummary } from "../credits.js";
import { cachedMeView, rememberMeView } from "../me-cache.js";

/** GET /v1/me (docs/wire-contract.md §9.1), typed the way the strictest clients unmarshal it. */

const int = () => z.number().int();
const str = () => z.string().nullable();
const Balance = z.object({ available: int(), used: int(), allowance: int() });

const MeDataSchema = z
  .object({
    user_id: int(),
    secret_token: z.string(),
    role: int(),
    confirmed: z.boolean(),
    blocked: z.boolean(),
    deleted: z.boolean(),
    newsletter: z.boolean(),
    activity: z.boolean(),
    has_password: z.boolean(),
    first_name: str(),
    last_name: str(),
    email: z.string(),
    phone: str(),
    image: str(),
    provider: str(),
    timezone: str(),
    title: str(),
    country: str(),
    ip: str(),
    created_at: str().openapi({ description: "RFC 3339" }),
    issued: str(),
    expired: str(),
    expired_subscription: str(),
    plan: z.string(),
    pricing: z.object({
      name: z.string(),
      pricing_id: int(),
      available_searches: int(),
      available_verifications: int(),
      available_phones: int(),
      available_leads: int(),
      available_list: int(),
      available_attr: int(),
      available_keys: int(),
      available_teams: int(),
      available_b2b: int(),
      available_sources: int(),
      available_email_count: int(),
      available_similar: int(),
      available_technologies: int(),
      frequency: z.string(),
      price_monthly: z.string().openapi({ description: 'A string, e.g. "49"' }),
      price_yearly: z.string(),
      update_url: z.null(),
      cancel_url: z.null(),
    }),
    teams: z.object({
      team_id: int().nullable().openapi({ description: "The workspace id, for members and owners of a workspace" }),
      role: z.string(),
      workspace: z.boolean(),
      export: z.boolean(),
      bulks: z.boolean(),
      limit: z.object({ search: int(), verifier: int(), domain: int(), finder: int() }).openapi({
        description: "Credits this login may use: the account's available search and verification credits",
      }),
      owner: z
        .object({
          name: z.string(),
          available_teams: int(),
          available_searches: int(),
          available_verifications: int(),
          usage: int(),
        })
        .nullable(),
    }),
    requests: z.record(
      z.enum(["domains", "verifications", "phones", "b2b", "count", "similar", "technologies"]),
      Balance,
    ),
    credits: z.record(z.enum(["search", "verification", "phone"]), Balance),
    available: int().openapi({ description: "Legacy: search credits left" }),
    used: int().openapi({ description: "Legacy: search credits used this period" }),
    payment_status: z.boolean().openapi({ description: "Legacy: true while a paid subscription is current" }),
    time: z
      .object({ date: z.string(), timezone_type: int(), timezone: z.string() })
      .openapi({ description: "Legacy: server time, as `2026-11-23 09:37:08.000000` in UTC (timezone_type 3)" }),
  })
  .openapi("Me");

export type MeData = z.infer<typeof MeDataSchema>;

const route = createRoute({
  method: "get",
  path: "/me",
  // /v1/me shows the credit balances: the admission brings them back in its one round trip.
  middleware: tableLimit("me", { withBalances: true }),
  tags: ["Account"],
  security,
  summary: "The account, its plan, caps and credit balances",
  responses: {
    200: { description: "Account", content: { "application/json": { schema: z.object({ data: MeDataSchema }) } } },
    ...ErrorResponses,
  },
});

export function registerMeRoute(v1: ApiApp) {
  v1.openapi(route, async (c) =>
    c.json(
      {
        data: await renderMe(c.env, c.get("auth").account, c.get("auth").actor, Date.now(), c.get("admittedBalances")),
      },
      200,
    ),
  );
}

/** The workspace the login belongs to: as a member, else as its owner (remembered per isolate, me-cache.ts). */
async function teamIdOf(env: Env, account: Account, actor: Account, now: number): Promise<number | null> {
  const known = cachedMeView(account.id, actor.id, now);
  if (known) return known.teamId;
  const teamId = await readTeamId(env, account, actor);
  rememberMeView(account.id, actor.id, { teamId }, now);
  return teamId;
}

async function readTeamId(env: Env, account: Account, actor: Account): Promise<number | null> {
  const store = db(env.DB);
  if (account.id !== actor.id) {
    const [m] = await store
      .select({ id: workspaceMembers.workspaceId })
      .from(workspaceMembers)
      .where(eq(workspaceMembers.accountId, actor.id))
      .limit(1);
    return m?.id ?? null;
  }
  const [w] = await store
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.ownerAccountId, account.id))
    .limit(1);
  return w?.id ?? null;
}

/** `2026-11-23 09:37:08.000000`: the `time.date` layout existing clients read (UTC). */
const legacyDate = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.(\d{3})Z$/, ".$1000");

async function renderMe(
  env: Env,
  account: Account,
  actor: Account,
  now: number,
  known?: CreditSummary,
): Promise<MeData> {
  const plan = planFor(account.plan);
  const [credits, teamId] = await Promise.all([creditSummary(env, account, known), teamIdOf(env, account, actor, now)]);
  const isMember = account.id !== actor.id;
  const paid = plan.name !== "free" && (account.subscriptionExpiresAt === null || account.subscriptionExpiresAt > now);
  const limit = {
    search: credits.search.available,
    verifier: credits.verification.available,
    domain: credits.search.available,
    finder: credits.search.available,
  };
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
    teams: {
      team_id: teamId,
      role: isMember ? "member" : "owner",
      workspace: teamId !== null,
      export: true,
      bulks: true,
      limit,
      owner: isMember
        ? {
            name: account.email,
            available_teams: plan.caps.teams,
            available_searches: credits.search.available,
            available_verifications: credits.verification.available,
            usage: credits.search.used + credits.verification.used,
          }
        : null,
    },
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
    available: credits.search.available,
    used: credits.search.used,
    payment_status: paid,
    time: { date: legacyDate(now), timezone_type: 3, timezone: "UTC" },
  };
}

import { createRoute, z } from "@hono/zod-openapi";
import { desc, eq } from "drizzle-orm";
import { forgetAccountKeys } from "../../auth/auth-cache.js";
import type { AuthContext } from "../../auth/auth-context.js";
import { requireRole } from "../../auth/roles.js";
import { db } from "../../db/client.js";
import { accounts, purchases } from "../../db/schema.js";
import type { Env } from "../../env.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp, Ctx } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { forgetBalances, limiterFor, planChanged } from "../../limits/admission.js";
import { PLAN_NAMES, planFor } from "../../limits/plans.js";
import { CREDIT_PACKS, creditPack } from "../../platform/credit-packs.js";
import { DAY_MS } from "../../platform/time.js";
import { productionGate } from "../app.js";
import { chargeFor, type GateDeps, type Payment } from "../payment-gate.js";

/**
 * What an account buys: credit packs and months of a plan, paid with the Machine Payments Protocol
 * exactly as the agent surface is paid (the same method, USDC or USDT; locally the development
 * method), through the same gate (chargeFor: validate, hold, settle, then deliver). Billing is the
 * owner's alone. Each payment leaves a receipt (the `purchases` table, GET /v1/purchases); a
 * credential pays once (its challenge id is the receipt's and the pack grant's key).
 *
 * A plan bought runs 30 days from the payment; moving to another paid plan buys a month of it at
 * once (no proration); moving to Free is free and immediate. Unused monthly allowance does not
 * carry over; pack credits stay until used whatever the plan (docs/plans.md).
 */
const doc = { tags: ["Account"], security };
const json = <T extends z.ZodType>(description: string, schema: T) =>
  ({ description, content: { "application/json": { schema } } }) as const;

const Receipt = z
  .object({
    id: z.number().int(),
    item: z.string(),
    description: z.string(),
    credits: z.number().int(),
    amount: z.string().openapi({ description: "US dollars" }),
    currency: z.string(),
    method: z.string(),
    reference: z.string(),
    created_at: z.string(),
  })
  .openapi("Purchase");
export type Purchase = z.infer<typeof Receipt>;
const PackParam = z.object({
  pack: z.string().openapi({ param: { name: "pack", in: "path" }, example: "pack-10k" }),
});
const PlanBody = z.strictObject({ plan: z.enum(PLAN_NAMES) }).openapi("PlanChange");

const listPacks = createRoute({
  method: "get",
  path: "/credit-packs",
  ...doc,
  summary: "The credit packs on sale (the operator grants the same packs)",
  responses: {
    200: json(
      "Packs",
      z.object({ data: z.array(z.object({ id: z.string(), credits: z.number(), price: z.string() })) }),
    ),
    ...ErrorResponses,
  },
});
const buyPack = createRoute({
  method: "post",
  path: "/credit-packs/{pack}",
  ...doc,
  summary:
    "Buy a credit pack: 402 with MPP challenges (USDC, USDT), then the same request with Authorization: Payment <credential>; owner only; use key + secret to authenticate",
  request: { params: PackParam },
  responses: {
    200: json("Bought: the pack and its receipt", z.object({ data: Receipt })),
    402: { description: "Payment required: one WWW-Authenticate Payment challenge per currency" },
    ...ErrorResponses,
  },
});
const changePlan = createRoute({
  method: "post",
  path: "/plan",
  ...doc,
  summary:
    "Change plan: Free at once; a paid plan is a month paid with MPP (402, then Authorization: Payment); owner only",
  request: { body: { required: true, content: { "application/json": { schema: PlanBody } } } },
  responses: {
    200: json("Changed", z.object({ data: z.object({ plan: z.string(), receipt: Receipt.nullable() }) })),
    402: { description: "Payment required: one WWW-Authenticate Payment challenge per currency" },
    ...ErrorResponses,
  },
});
const listPurchases = createRoute({
  method: "get",
  path: "/purchases",
  ...doc,
  summary: "The account's receipts, newest first",
  responses: { 200: json("Receipts", z.object({ data: z.array(Receipt) })), ...ErrorResponses },
});

type PurchaseRow = typeof purchases.$inferSelect;
const renderReceipt = (p: PurchaseRow): Purchase => ({
  id: p.id,
  item: p.item,
  description: p.description,
  credits: p.credits,
  amount: p.amount,
  currency: p.currency,
  method: p.method,
  reference: p.reference,
  created_at: new Date(p.createdAt).toISOString(),
});

async function record(
  env: Env,
  auth: AuthContext,
  item: { item: string; description: string; credits: number; amount: string },
  payment: Payment,
): Promise<PurchaseRow> {
  const [row] = await db(env.DB)
    .insert(purchases)
    .values({
      accountId: auth.account.id,
      actorAccountId: auth.actor.id,
      ...item,
      currency: payment.currencySymbol,
      method: payment.method,
      reference: payment.reference,
      challengeId: payment.challengeId,
      createdAt: Date.now(),
    })
    .onConflictDoNothing()
    .returning();
  if (row) return row;
  const [known] = await db(env.DB).select().from(purchases).where(eq(purchases.challengeId, payment.challengeId));
  if (!known) throw new Error("a purchase neither inserted nor found");
  return known;
}

const ok = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json; charset=utf-8" } });

/** The gate's request for a /v1 purchase: the credential rides in Authorization beside the key and secret. */
function paidRequest(c: Ctx) {
  return {
    env: c.env,
    query: {},
    host: new URL(c.req.url).hostname,
    authorization: c.req.header("authorization"),
    clientIp: c.req.header("cf-connecting-ip"),
    waitUntil: (p: Promise<unknown>) => c.executionCtx.waitUntil(p),
  };
}

async function setPlan(env: Env, accountId: number, plan: string, now = Date.now()) {
  await db(env.DB)
    .update(accounts)
    .set({ plan, subscriptionExpiresAt: plan === "free" ? null : now + 30 * DAY_MS })
    .where(eq(accounts.id, accountId))
    .run();
  forgetAccountKeys(accountId);
  await planChanged(env, accountId, plan);
}

export function registerPurchaseRoutes(v1: ApiApp, gate: GateDeps = productionGate) {
  v1.openapi(listPacks, (c) => c.json({ data: [...CREDIT_PACKS] }, 200));

  v1.openapi(listPurchases, async (c) => {
    const rows = await db(c.env.DB)
      .select()
      .from(purchases)
      .where(eq(purchases.accountId, c.get("auth").account.id))
      .orderBy(desc(purchases.createdAt), desc(purchases.id))
      .limit(100);
    return c.json({ data: rows.map(renderReceipt) }, 200);
  });

  v1.openapi(buyPack, async (c) => {
    const auth = c.get("auth");
    await requireRole(c.env.DB, auth, "billing");
    const pack = creditPack(c.req.valid("param").pack);
    if (!pack)
      throw new ApiError(
        404,
        "unknown_record",
        `No credit pack named ${c.req.valid("param").pack}; GET /v1/credit-packs lists them.`,
      );
    const item = {
      item: pack.id,
      description: `${pack.credits.toLocaleString("en")} credits`,
      credits: pack.credits,
      amount: pack.price,
    };
    return chargeFor(
      {
        endpoint: `/v1/credit-packs/${pack.id}`,
        price: pack.price,
        label: `Credit pack of ${item.description}`,
        run: async () => ok({}),
        fulfil: async (payment) => {
          // Keyed by the credential: delivered twice (a retried request), it grants once.
          await limiterFor(c.env, auth.account.id).grantPack(pack.credits, `mpp:${payment.challengeId}`);
          forgetBalances(auth.account.id);
          return ok({ data: renderReceipt(await record(c.env, auth, item, payment)) });
        },
      },
      paidRequest(c),
      gate,
    ) as never;
  });

  v1.openapi(changePlan, async (c) => {
    const auth = c.get("auth");
    await requireRole(c.env.DB, auth, "billing");
    const plan = planFor(c.req.valid("json").plan);
    if (plan.name === "free") {
      await setPlan(c.env, auth.account.id, "free");
      return c.json({ data: { plan: "free", receipt: null } }, 200);
    }
    const item = {
      item: `plan:${plan.name}`,
      description: `${plan.label} plan, 30 days`,
      credits: 0,
      amount: plan.priceMonthly,
    };
    return chargeFor(
      {
        endpoint: `/v1/plan/${plan.name}`,
        price: plan.priceMonthly,
        label: item.description,
        run: async () => ok({}),
        fulfil: async (payment) => {
          await setPlan(c.env, auth.account.id, plan.name);
          return ok({ data: { plan: plan.name, receipt: renderReceipt(await record(c.env, auth, item, payment)) } });
        },
      },
      paidRequest(c),
      gate,
    ) as never;
  });
}

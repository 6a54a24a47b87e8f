import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { db } from "../../db/client.js";
import { accounts } from "../../db/schema.js";
import type { AppBindings } from "../../env.js";
import { ApiError } from "../../http/errors.js";
import { jsonBodyOr400 } from "../../http/json-body.js";
import type { ApiApp } from "../../http/openapi.js";
import { forgetBalances, limiterFor } from "../../limits/admission.js";
import { CREDIT_PACKS, creditPack } from "../../platform/credit-packs.js";

/** A pack on sale by its id (the same packs the dashboard and /v1 sell), or a number of credits. */
const Body = z.union([
  z.strictObject({ pack: z.enum(CREDIT_PACKS.map((p) => p.id) as [string, ...string[]]) }),
  z.strictObject({ credits: z.number().int().min(1).max(10_000_000) }),
]);
const creditsOf = (body: z.infer<typeof Body>) =>
  "pack" in body ? (creditPack(body.pack)?.credits ?? 0) : body.credits;

const accountId = (text: string | undefined) => Number(text);

/** The account id is checked before the body is read. */
const positiveAccountId: MiddlewareHandler<AppBindings> = async (c, next) => {
  const id = accountId(c.req.param("id"));
  if (!Number.isInteger(id) || id < 1)
    throw new ApiError(400, "params_invalid", "The account id must be a positive integer.");
  await next();
};

const route = createRoute({
  method: "post",
  path: "/accounts/{id}/credit-packs",
  middleware: [positiveAccountId, jsonBodyOr400('Send a JSON body like {"pack": "pack-10k"} or {"credits": 5000}.')],
  request: {
    params: z.object({ id: z.string() }),
    body: { required: true, content: { "application/json": { schema: Body } } },
  },
  responses: { 200: { description: "The pack granted" } },
});

/**
 * POST /operator/accounts/{id}/credit-packs {pack} (a pack on sale: src/platform/credit-packs.ts) or
 * {credits}: sells a credit pack to an account. While the
 * pack has credits its limits are the higher of plan and pack; 50,000 credits or more lifts them.
 */
export function registerCreditPackRoute(app: ApiApp) {
  app.openapi(route, async (c) => {
    const id = accountId(c.req.valid("param").id);
    const [account] = await db(c.env.DB).select().from(accounts).where(eq(accounts.id, id)).limit(1);
    if (!account) throw new ApiError(404, "unknown_record", `No account with id ${id}.`);
    // Granted once per operator request: the RPC sent again (or the request retried with the same
    // Idempotency-Key) grants nothing twice.
    const key = c.req.header("idempotency-key") ?? crypto.randomUUID();
    const pack = await limiterFor(c.env, account.id).grantPack(creditsOf(c.req.valid("json")), `operator:${key}`);
    forgetBalances(account.id);
    return c.json({ data: { account_id: account.id, pack } }, 200);
  });
}

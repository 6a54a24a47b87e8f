import type { Hono } from "hono";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { db } from "../db/client.js";
import { accounts } from "../db/schema.js";
import type { AppBindings } from "../env.js";
import { ApiError } from "../http/errors.js";
import { describeIssue } from "../http/validation.js";
import { limiterFor } from "../limits/admission.js";

const Body = z.object({ credits: z.number().int().min(1).max(10_000_000) });

/**
 * POST /operator/accounts/{id}/credit-packs {credits}: sells a credit pack to an account. While the
 * pack has credits its limits are the higher of plan and pack; 50,000 credits or more lifts them.
 */
export function registerCreditPackRoute(app: Hono<AppBindings>) {
  app.post("/accounts/:id/credit-packs", async (c) => {
    const id = Number(c.req.param("id"));
    if (!Number.isInteger(id) || id < 1) throw new ApiError(400, "params_invalid", "The account id must be a positive integer.");
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      throw new ApiError(400, "params_invalid", "Send a JSON body like {\"credits\": 5000}.");
    }
    const parsed = Body.safeParse(raw);
    if (!parsed.success) throw new ApiError(400, "params_invalid", describeIssue(parsed.error, raw));
    const [account] = await db(c.env.DB).select().from(accounts).where(eq(accounts.id, id)).limit(1);
    if (!account) throw new ApiError(404, "unknown_record", `No account with id ${id}.`);
    const pack = await limiterFor(c.env, account.id).grantPack(parsed.data.credits, Date.now());
    return c.json({ data: { account_id: account.id, pack } }, 200);
  });
}

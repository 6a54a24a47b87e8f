import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { SessionCall } from "../../src/auth/session-calls.js";
import { mountCapabilities } from "../../src/capabilities/core/mount-v1.js";
import { defineCapability } from "../../src/capabilities/core/registry.js";
import type { Account } from "../../src/db/schema.js";
import type { AppBindings, Env } from "../../src/env.js";
import { withDeadline } from "../../src/http/request-limits.js";
import { flushOwed, limiterFor } from "../../src/limits/admission.js";
import { createAccount } from "../support/accounts.js";
import { settle } from "../support/settle.js";

const DEADLINE_MS = 50;
const HANDLER_MS = 400;
const RECEIVER = "https://receiver.test";

/** A search capability that finds something, slower than the deadline; it takes a webhook_url. */
const slow = defineCapability({
  name: "slow-find",
  label: "slow-find",
  summary: "test double slower than the deadline",
  tag: "Test",
  paths: ["/slow-find"],
  params: z.object({ q: z.string() }),
  rateGroup: "search",
  cost: { balance: "search", amount: 1 },
  usageCategory: "search",
  acceptsCallback: true,
  handler: async (params) => {
    await new Promise((resolve) => setTimeout(resolve, HANDLER_MS));
    return { body: { data: { q: params.q } }, found: true };
  },
});

/** /v1 with the request deadline, the slow capability, and an account (and maybe a dashboard session) already authenticated. */
function appFor(account: Pick<Account, "id" | "plan">, session?: SessionCall) {
  const app = new OpenAPIHono<AppBindings>();
  app.use("*", withDeadline(DEADLINE_MS));
  app.use("*", async (c, next) => {
    c.set("auth", { account: account as Account, actor: account as Account, keyId: null, session });
    await next();
  });
  mountCapabilities(app, [slow]);
  return app;
}

/** The test env with a deliveries queue that records what it is sent. */
function recordingDeliveries() {
  const sent: unknown[] = [];
  const queue = {
    send: async (body: unknown) => void sent.push(body),
    sendBatch: async (batch: { body: unknown }[]) => void sent.push(...batch.map((m) => m.body)),
  };
  return { env: { ...(env as unknown as Env), DELIVERY_QUEUE: queue } as unknown as Env, sent };
}

async function answeredAtDeadline(app: OpenAPIHono<AppBindings>, testEnv: Env) {
  const ctx = createExecutionContext();
  const url = `https://api.test/slow-find?q=x&webhook_url=${encodeURIComponent(`${RECEIVER}/hook`)}`;
  const res = await app.fetch(new Request(url), testEnv, ctx);
  // The handler goes on after the 504: let it finish and everything it left behind run.
  await new Promise((resolve) => setTimeout(resolve, HANDLER_MS + 200));
  await waitOnExecutionContext(ctx);
  return res;
}

describe("a call answered 504 at the deadline", () => {
  it("is neither charged nor sent to its webhook_url, and its reservation is released (dashboard session)", async () => {
    const a = await createAccount({ plan: "pro" });
    const before = (await limiterFor(env as unknown as Env, a.accountId).balances("pro")).search;
    const session: SessionCall = { accountId: a.accountId, pageRead: false };
    const { env: testEnv, sent } = recordingDeliveries();
    const res = await answeredAtDeadline(appFor({ id: a.accountId, plan: "pro" }, session), testEnv);
    expect(res.status).toBe(504);
    expect(sent).toEqual([]);
    expect(session.charge?.billed ?? false).toBe(false);
    await flushOwed(testEnv, a.accountId);
    await settle(async () => {
      const now = (await limiterFor(env as unknown as Env, a.accountId).balances("pro")).search;
      return now.used === before.used && now.available === before.available;
    });
  });

  it("is neither charged nor sent to its webhook_url, and its reservation is released (API key)", async () => {
    const a = await createAccount({ plan: "pro" });
    const before = (await limiterFor(env as unknown as Env, a.accountId).balances("pro")).search;
    const { env: testEnv, sent } = recordingDeliveries();
    const res = await answeredAtDeadline(appFor({ id: a.accountId, plan: "pro" }), testEnv);
    expect(res.status).toBe(504);
    expect(sent).toEqual([]);
    await flushOwed(testEnv, a.accountId);
    await settle(async () => {
      const now = (await limiterFor(env as unknown as Env, a.accountId).balances("pro")).search;
      return now.used === before.used && now.available === before.available;
    });
  });

  it("is neither charged nor sent to its webhook_url when an isolate's lease paid it (scale plan)", async () => {
    const a = await createAccount({ plan: "scale" });
    const { env: testEnv, sent } = recordingDeliveries();
    const app = appFor({ id: a.accountId, plan: "scale" });
    // Twice: the first call may go by a round trip, the second is paid from the lease the first topped up.
    for (const _ of [1, 2]) expect((await answeredAtDeadline(app, testEnv)).status).toBe(504);
    expect(sent).toEqual([]);
    await flushOwed(testEnv, a.accountId);
    expect((await limiterFor(env as unknown as Env, a.accountId).balances("scale")).search.used).toBe(0);
  });
});

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { claims } from "../../src/db/schema-index.js";
import { signingSecret } from "../../src/delivery/index.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { call, createAccount, json } from "../support/accounts.js";
import { RECEIVER, receivedBy, releaseHeld, uniqueKey, waitForRequests } from "./support.js";

/**
 * A call whose waitUntil work has settled when it returns, with what it put on the deliveries queue
 * meanwhile (the Worker's handler called with a watched queue).
 */
async function callSettled(path: string, headers: Record<string, string>) {
  type DeliveryQueue = NonNullable<Env["DELIVERY_QUEUE"]>;
  const queue = (env as Env).DELIVERY_QUEUE!;
  const queued: unknown[] = [];
  const watched: Pick<DeliveryQueue, "send" | "sendBatch"> = {
    send: (message, options) => {
      queued.push(message);
      return queue.send(message, options);
    },
    sendBatch: (messages, options) => {
      const list = [...messages];
      queued.push(...list.map((m) => m.body));
      return queue.sendBatch(list, options);
    },
  };
  const ctx = createExecutionContext();
  const watchedEnv = { ...env, DELIVERY_QUEUE: watched } as unknown as Env;
  const res = await worker.fetch!(new Request(`https://api.test${path}`, { headers }), watchedEnv, ctx);
  await waitOnExecutionContext(ctx);
  return { res, queued };
}

const verifier = (hook: string) =>
  `/v1/email-verifier?email=jane.doe%40acme-verify.test&webhook_url=${encodeURIComponent(hook)}`;

describe("webhook_url callbacks", () => {
  it("POSTs the answer's data with meta.endpoint and an ISO 8601 timestamp, signed with the account's secret", async () => {
    const { accountId, headers } = await createAccount();
    const key = uniqueKey();
    const res = await call(verifier(`${RECEIVER}/ok/${key}`), { headers });
    expect(res.status).toBe(200);
    const answer = await json(res);

    const [got] = await waitForRequests(key, 1);
    expect(got!.method).toBe("POST");
    expect(got!.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(got!.body);
    expect(body.data).toEqual(answer.data);
    expect(body.meta.endpoint).toBe("/v1/email-verifier");
    expect(new Date(body.meta.timestamp).toISOString()).toBe(body.meta.timestamp);
    const secret = await signingSecret(env, accountId, "webhooks");
    expect(() => new Webhook(secret).verify(got!.body, got!.headers)).not.toThrow();
  });

  it("refuses a webhook_url on a port other than 443 when the call is made (422 url_not_allowed), and nothing is sent", async () => {
    const { headers } = await createAccount();
    const key = uniqueKey();
    const res = await call(verifier(`https://receiver.test:8443/ok/${key}`), { headers });
    expect(res.status).toBe(422);
    const body = await json(res);
    expect(body.errors.type).toBe("url_not_allowed");
    expect(body.errors.message).toMatch(/'webhook_url'.*port 443 only/);
  });

  it("refuses a webhook_url that is not https with 400 params_invalid", async () => {
    const { headers } = await createAccount();
    const key = uniqueKey();
    const res = await call(verifier(`http://receiver.test/ok/${key}`), { headers });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.errors.type).toBe("params_invalid");
    expect(body.errors.message).toContain("webhook_url");
  });

  it("refuses a webhook_url whose host resolves to a private address", async () => {
    const { headers } = await createAccount();
    const res = await call(verifier("https://intranet-hook.test/hook"), { headers });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.type).toBe("params_invalid");
  });

  it("answers before a slow receiver has even finished", async () => {
    const { headers } = await createAccount();
    const key = uniqueKey();
    // The receiver answers only when released below: had the API waited for it, the call would not return.
    const res = await call(verifier(`${RECEIVER}/held/${key}`), { headers });
    expect(res.status).toBe(200);
    const got = await waitForRequests(key, 1);
    expect(got[0]!.answered).toBe(false);
    await releaseHeld(key);
  }, 20_000);

  it("sends nothing for an answer that is an error", async () => {
    const { headers } = await createAccount();
    await db(env.DB).insert(claims).values({ kind: "email", value: "removed.person@acme-verify.test" });
    // Once the call's own work (its waitUntil) has settled, a callback is queued or sent, or never
    // will be: no wall-clock wait for something that should not come. The 200 beside it shows the
    // queue watched here is the one a callback goes through.
    const ok = await callSettled(verifier(`${RECEIVER}/ok/${uniqueKey()}`), headers);
    expect(ok.res.status).toBe(200);
    expect(ok.queued).toHaveLength(1);
    const key = uniqueKey();
    const refused = await callSettled(
      `/v1/email-verifier?email=removed.person%40acme-verify.test&webhook_url=${encodeURIComponent(`${RECEIVER}/ok/${key}`)}`,
      headers,
    );
    expect(refused.res.status).toBe(451);
    expect(refused.queued).toHaveLength(0);
    expect(await receivedBy(key)).toHaveLength(0);
  });

  it("is declared on the callback capabilities in /v1/openapi.json", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    for (const path of [
      "/email-verifier",
      "/email-finder",
      "/domain-search",
      "/author-finder",
      "/phone-finder",
      "/phone-validator",
      "/enrich",
      "/professional-network",
    ]) {
      const names = (doc.paths[path].get.parameters as { name: string }[]).map((p) => p.name);
      expect(names, path).toContain("webhook_url");
    }
    expect(doc.paths["/email-count"].get.parameters.map((p: { name: string }) => p.name)).not.toContain("webhook_url");
  });

  it("also works on POST /v1/reveal/search", async () => {
    const { headers } = await createAccount();
    const key = uniqueKey();
    const res = await call("/v1/reveal/search", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ query: "software", webhook_url: `${RECEIVER}/ok/${key}` }),
    });
    expect(res.status).toBe(200);
    const answer = await json(res);
    const [got] = await waitForRequests(key, 1);
    const body = JSON.parse(got!.body);
    expect(body.data).toEqual(answer.data);
    expect(body.meta.endpoint).toBe("/v1/reveal/search");
  });
});

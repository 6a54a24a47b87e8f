import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { RECEIVER, receivedBy, uniqueKey, waitForRequests } from "../delivery/support.js";
import { importRows } from "../people/support.js";
import { createAccount } from "../support/accounts.js";
import { eventually } from "../support/settle.js";
import { send } from "./support.js";

type Headers = Record<string, string>;

async function createHook(headers: Headers, over: Record<string, unknown> = {}) {
  return send("POST", "/v1/webhooks", headers, {
    name: `hook ${uniqueKey().slice(0, 6)}`,
    url: `${RECEIVER}/ok/${uniqueKey()}`,
    ...over,
  });
}

async function waitForLog(headers: Headers, hookId: number, predicate: (rows: { status: string }[]) => boolean) {
  let rows: { status: string; attempt: number; response_code: number | null; duration_ms: number }[] = [];
  await eventually(
    async () => {
      rows = (await send("GET", `/v1/webhooks/${hookId}/deliveries`, headers)).body.data.deliveries;
      expect(predicate(rows)).toBe(true);
    },
    { timeout: 20_000, interval: 150 },
  );
  return rows;
}

describe("webhook configurations", () => {
  it("creates, lists, reads, updates, disables, enables and deletes a webhook", async () => {
    const { headers } = await createAccount();
    const created = await createHook(headers, { name: "CRM", method: "PUT", headers: { Authorization: "Bearer t" } });
    expect(created.status).toBe(200);
    const hook = created.body.data;
    expect(hook).toMatchObject({
      name: "CRM",
      method: "PUT",
      headers: { Authorization: "Bearer t" },
      status: "enabled",
      event: "save_lead",
    });

    expect((await send("GET", "/v1/webhooks", headers)).body.data.webhooks.map((h: { id: number }) => h.id)).toEqual([
      hook.id,
    ]);
    expect((await send("GET", `/v1/webhooks/${hook.id}`, headers)).body.data).toEqual(hook);

    const updated = await send("PUT", `/v1/webhooks/${hook.id}`, headers, { name: "CRM sync", headers: {} });
    expect(updated.body).toMatchObject({ status: true, data: { name: "CRM sync", headers: {}, method: "PUT" } });

    expect((await send("POST", `/v1/webhooks/${hook.id}/disable`, headers)).body.data.status).toBe("disabled");
    expect((await send("POST", `/v1/webhooks/${hook.id}/enable`, headers)).body.data.status).toBe("enabled");

    expect((await send("DELETE", `/v1/webhooks/${hook.id}`, headers, {})).body).toMatchObject({ status: true });
    expect((await send("GET", `/v1/webhooks/${hook.id}`, headers)).status).toBe(404);
  });

  it("refuses a duplicate name (422), a non-HTTPS or private URL, reserved headers, unknown events and empty updates (400)", async () => {
    const { headers } = await createAccount();
    await createHook(headers, { name: "Only" });
    const dup = await createHook(headers, { name: "only" });
    expect(dup.status).toBe(422);
    expect(dup.body.errors.type).toBe("duplicate_record");
    for (const over of [
      { url: `http://receiver.test/ok/${uniqueKey()}` },
      { url: "https://intranet-hook.test/x" },
      { headers: { "webhook-signature": "forged" } },
      { headers: { "bad header": "x" } },
      { event: "delete_lead" },
      { method: "GET" },
    ]) {
      const res = await createHook(headers, over);
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.errors.type).toBe("params_invalid");
    }
    const hook = (await createHook(headers)).body.data;
    expect((await send("PUT", `/v1/webhooks/${hook.id}`, headers, {})).status).toBe(400);
    expect((await send("PUT", `/v1/webhooks/${hook.id}`, headers, { url: "http://receiver.test/x" })).status).toBe(400);
  });

  it("refuses a webhook URL on a port other than 443 at create and update (422 url_not_allowed), not later at delivery", async () => {
    const { headers } = await createAccount();
    const created = await createHook(headers, {
      url: `${RECEIVER.replace("://receiver.test", "://receiver.test:8443")}/ok/${uniqueKey()}`,
    });
    expect(created.status).toBe(422);
    expect(created.body.errors.type).toBe("url_not_allowed");
    expect(created.body.errors.message).toMatch(/'url'.*port 443 only.*8443/);
    const hook = (await createHook(headers)).body.data;
    const updated = await send("PUT", `/v1/webhooks/${hook.id}`, headers, { url: "https://receiver.test:444/x" });
    expect(updated.status).toBe(422);
    expect(updated.body.errors.type).toBe("url_not_allowed");
  });

  it("keeps other accounts' webhooks out of reach", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const hook = (await createHook(owner.headers)).body.data;
    for (const [method, path] of [
      ["GET", ""],
      ["PUT", ""],
      ["DELETE", ""],
      ["POST", "/disable"],
      ["GET", "/deliveries"],
    ] as const) {
      const res = await send(
        method,
        `/v1/webhooks/${hook.id}${path}`,
        other.headers,
        method === "PUT" ? { name: "mine" } : undefined,
      );
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.errors.type).toBe("unknown_record");
    }
  });

  it("serves and rotates the signing secret", async () => {
    const { headers } = await createAccount();
    const first = await send("GET", "/v1/webhooks/secret", headers);
    expect(first.body.data).toMatchObject({ secret: expect.stringMatching(/^whsec_/), rotated_at: null });
    const rotated = await send("POST", "/v1/webhooks/secret/rotate", headers);
    expect(rotated.body.data.secret).not.toBe(first.body.data.secret);
    expect(rotated.body.data.rotated_at).not.toBeNull();
    expect((await send("GET", "/v1/webhooks/secret", headers)).body.data.secret).toBe(rotated.body.data.secret);
  });
});

describe("save_lead", () => {
  it("delivers {data: Lead} on save and on update with the configured method and headers and a verifiable signature", async () => {
    const { headers } = await createAccount();
    const key = uniqueKey();
    const hook = (
      await createHook(headers, {
        url: `${RECEIVER}/ok/${key}`,
        method: "PATCH",
        headers: { Authorization: "Bearer crm-token" },
      })
    ).body.data;
    const secret = (await send("GET", "/v1/webhooks/secret", headers)).body.data.secret;

    const lead = await send("POST", "/v1/leads", headers, {
      email: "hook@example.test",
      first_name: "Hook",
      website_url: "https://example.test",
      twitter: "https://microblog.test/hook",
      score: 50,
    });
    const [saved] = await waitForRequests(key, 1);
    expect(saved!.method).toBe("PATCH");
    expect(saved!.headers.authorization).toBe("Bearer crm-token");
    const payload = new Webhook(secret).verify(saved!.body, saved!.headers) as { data: Record<string, unknown> };
    expect(payload.data).toMatchObject({
      id: lead.body.data.id,
      email: "hook@example.test",
      first_name: "Hook",
      website: "https://example.test",
      microblog: "https://microblog.test/hook",
      professional_network: null,
      score: 50,
    });

    await send("PUT", `/v1/leads/${lead.body.data.id}`, headers, { notes: "called back" });
    const got = await waitForRequests(key, 2);
    expect(JSON.parse(got[1]!.body).data.notes).toBe("called back");

    const log = await waitForLog(headers, hook.id, (rows) => rows.filter((r) => r.status === "delivered").length === 2);
    expect(log[0]).toMatchObject({
      status: "delivered",
      attempt: 1,
      response_code: 200,
      kind: "save_lead",
      webhook_id: hook.id,
    });
    expect(typeof log[0]!.duration_ms).toBe("number");
  }, 30_000);

  it("fills website and score in save_lead from what the finder knows of the address, and leaves them null when it knows nothing", async () => {
    await importRows([
      { kind: "person", email: "ada.known@finder-lead.test", first_name: "Ada", last_name: "Known", position: "CTO" },
    ]);
    const { headers } = await createAccount();
    const key = uniqueKey();
    await createHook(headers, { url: `${RECEIVER}/ok/${key}` });

    const known = await send("POST", "/v1/leads", headers, { email: "ada.known@finder-lead.test" });
    const [first] = await waitForRequests(key, 1);
    // An imported address: the domain is its website, and the finder scores it 80 (imported, not yet seen on a page).
    expect(JSON.parse(first!.body).data).toMatchObject({
      email: "ada.known@finder-lead.test",
      website: "finder-lead.test",
      score: 80,
    });
    expect(known.body.data).toMatchObject({ website_url: "finder-lead.test", score: 80 });

    await send("POST", "/v1/leads", headers, { email: "nobody@unknown-lead.test" });
    const second = await waitForRequests(key, 2);
    expect(JSON.parse(second[1]!.body).data).toMatchObject({
      email: "nobody@unknown-lead.test",
      website: null,
      score: null,
    });
  }, 30_000);

  it("fills website and score on update when the lead had none and its address is known, keeping what the caller sent", async () => {
    const { headers } = await createAccount();
    const lead = await send("POST", "/v1/leads", headers, { email: "later.known@finder-lead.test" });
    expect(lead.body.data).toMatchObject({ website_url: null, score: null });
    await importRows([
      { kind: "person", email: "later.known@finder-lead.test", first_name: "Later", last_name: "Known" },
    ]);
    const kept = await send("PUT", `/v1/leads/${lead.body.data.id}`, headers, { notes: "met at a fair", score: 12 });
    expect(kept.body.data).toMatchObject({ website_url: "finder-lead.test", score: 12 });
  });

  it("never fires a disabled webhook", async () => {
    const { headers } = await createAccount();
    const offKey = uniqueKey();
    const onKey = uniqueKey();
    const off = (await createHook(headers, { url: `${RECEIVER}/ok/${offKey}` })).body.data;
    await send("POST", `/v1/webhooks/${off.id}/disable`, headers);
    await createHook(headers, { url: `${RECEIVER}/ok/${onKey}` });
    await send("POST", "/v1/leads", headers, { email: "quiet@example.test" });
    // The enabled one proves the event went out; the disabled one got nothing.
    await waitForRequests(onKey, 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await receivedBy(offKey)).toHaveLength(0);
    expect((await send("GET", `/v1/webhooks/${off.id}/deliveries`, headers)).body.data.deliveries).toEqual([]);
  }, 30_000);

  it("logs every attempt against a failing receiver, then gives up after 1 + 3 attempts", async () => {
    const { headers } = await createAccount();
    const key = uniqueKey();
    const hook = (await createHook(headers, { url: `${RECEIVER}/fail/${key}` })).body.data;
    await send("POST", "/v1/leads", headers, { email: "bounce@example.test" });
    const log = await waitForLog(headers, hook.id, (rows) => rows.some((r) => r.status === "dead_lettered"));
    expect(log.map((r) => r.status)).toEqual(["dead_lettered", "failed", "failed", "failed", "failed"]);
    expect(log.slice(1).map((r) => r.attempt)).toEqual([4, 3, 2, 1]);
    expect(log.slice(1).every((r) => r.response_code === 500)).toBe(true);
    expect(await receivedBy(key)).toHaveLength(4);

    const all = await send("GET", "/v1/deliveries?limit=2", headers);
    expect(all.body.data.meta).toMatchObject({ total: 5, pageSize: 2 });
  }, 30_000);
});

import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { call, createAccount, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";

const account = await createAccount();
const post = (path: string, body?: unknown) =>
  call(path, {
    method: "POST",
    headers: { ...account.headers, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

/** What reached the receiver's `box`, once something has. */
async function received(box: string) {
  const requests = await settle(async () => {
    const { requests } = await (await fetch(`https://receiver.test/__log/${box}`)).json<{
      requests: { headers: Record<string, string>; body: string }[];
    }>();
    return requests.length ? requests : undefined;
  });
  return requests!;
}

describe("POST /v1/webhooks/{id}/test", () => {
  it("sends the event's own shape with test: true, signed with the event's secret, and logs it", async () => {
    const box = `test-delivery-${crypto.randomUUID()}`;
    const hook = (
      await json(
        await post("/v1/webhooks", { name: "Jobs", url: `https://receiver.test/ok/${box}`, event: "bulk_job_ended" }),
      )
    ).data;
    const res = await post(`/v1/webhooks/${hook.id}/test`);
    expect(res.status).toBe(200);
    const { data } = await json(res);
    const [request] = await received(box);
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ type: "bulk.job.ended", test: true, data: { status: "completed" } });
    // Bulk end events are signed with the bulk secret (GET /v1/bulk/webhook-secret), the test too.
    const { secret } = (await json(await call("/v1/bulk/webhook-secret", { headers: account.headers }))).data;
    expect(() => new Webhook(secret).verify(request!.body, request!.headers)).not.toThrow();
    expect(request!.headers["webhook-id"]).toBe(data.delivery_id);
    const log = (await json(await call(`/v1/webhooks/${hook.id}/deliveries`, { headers: account.headers }))).data
      .deliveries;
    expect(log[0]).toMatchObject({ delivery_id: data.delivery_id, kind: "bulk_end" });
  });

  it("refuses a disabled webhook and another account's", async () => {
    const hook = (
      await json(await post("/v1/webhooks", { name: "Off", url: "https://receiver.test/ok/off", status: "disabled" }))
    ).data;
    const disabled = await post(`/v1/webhooks/${hook.id}/test`);
    expect(disabled.status).toBe(409);
    expect((await json(disabled)).errors.type).toBe("invalid_state");
    const other = await createAccount();
    expect((await call(`/v1/webhooks/${hook.id}/test`, { method: "POST", headers: other.headers })).status).toBe(404);
  });
});

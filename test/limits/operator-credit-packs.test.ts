import { describe, expect, it } from "vitest";
import { call, createAccount, json } from "../support/accounts.js";

const operator = { "X-Operator-Secret": "test-operator-secret", "content-type": "application/json" };

describe("POST /operator/accounts/{id}/credit-packs", () => {
  it("grants a pack that raises the account's limits while it has credits", async () => {
    const a = await createAccount({ plan: "free" });
    const res = await call(`/operator/accounts/${a.accountId}/credit-packs`, {
      method: "POST",
      headers: operator,
      body: JSON.stringify({ credits: 3000 }),
    });
    expect(res.status).toBe(200);
    expect((await json(res)).data.pack).toMatchObject({ remaining: 3000 });
    const limits = await json(await call("/v1/rate-limits", { headers: a.headers }));
    expect(limits.data["domain-search"].second.limit).toBe(5);
  });

  it("grants a pack once per Idempotency-Key: the same request sent again grants nothing twice", async () => {
    const a = await createAccount({ plan: "free" });
    const grant = (key: string) =>
      call(`/operator/accounts/${a.accountId}/credit-packs`, {
        method: "POST",
        headers: { ...operator, "Idempotency-Key": key },
        body: JSON.stringify({ credits: 100 }),
      });
    const first = (await json(await grant("order-1"))).data.pack;
    expect((await json(await grant("order-1"))).data.pack).toEqual(first);
    expect((await json(await grant("order-2"))).data.pack).toMatchObject({ remaining: 200 });
  });

  it("refuses without the operator secret, and checks its input", async () => {
    const a = await createAccount();
    const path = `/operator/accounts/${a.accountId}/credit-packs`;
    expect((await call(path, { method: "POST", body: "{}" })).status).toBe(401);
    const bad = await call(path, { method: "POST", headers: operator, body: JSON.stringify({ credits: -5 }) });
    expect(bad.status).toBe(400);
    expect((await json(bad)).errors.message).toContain("credits");
    expect(
      (
        await call("/operator/accounts/999999/credit-packs", {
          method: "POST",
          headers: operator,
          body: JSON.stringify({ credits: 5 }),
        })
      ).status,
    ).toBe(404);
  });
});

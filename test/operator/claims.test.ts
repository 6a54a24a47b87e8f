import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { call, createAccount, json } from "../support/accounts.js";

const OPERATOR = { "X-Operator-Secret": "test-operator-secret", "content-type": "application/json" };

const post = (body: unknown, headers: Record<string, string> = OPERATOR) =>
  call("/operator/claims", { method: "POST", headers, body: JSON.stringify(body) });

describe("operator claim routes", () => {
  it("refuses a missing or wrong secret with 401", async () => {
    for (const headers of [{ "content-type": "application/json" }, { ...OPERATOR, "X-Operator-Secret": "nope" }]) {
      const res = await post({ kind: "email", value: "a@acme-verify.test" }, headers);
      expect(res.status).toBe(401);
      expect((await json(res)).errors.type).toBe("authentication_failed");
    }
    expect((await call("/operator/claims")).status).toBe(401);
  });

  it("is off (503) when no operator secret is configured", async () => {
    const app = createApp();
    const res = await app.fetch(
      new Request("https://api.test/operator/claims", { headers: OPERATOR }),
      { ...env, OPERATOR_SECRET: undefined },
      {
        waitUntil() {},
        passThroughOnException() {},
        props: {},
      } as unknown as ExecutionContext,
    );
    expect(res.status).toBe(503);
    expect((await res.json<any>()).errors.code).toBe(503);
  });

  it("records claims in normalised form, lists them and removes them", async () => {
    let res = await post({ kind: "email", value: "  Jane.Claimed@ACME-verify.test ", reason: "owner asked by email" });
    expect(res.status).toBe(201);
    expect((await json(res)).data).toMatchObject({
      kind: "email",
      value: "jane.claimed@acme-verify.test",
      reason: "owner asked by email",
    });

    res = await post({ kind: "phone", value: "+33 6 12 34 56 78" });
    expect((await json(res)).data.value).toBe("+33612345678");
    res = await post({ kind: "professional_network", value: "https://fr.linkedin.com/in/Jane-Claimed/?trk=x" });
    expect((await json(res)).data).toMatchObject({
      kind: "linkedin",
      value: "https://www.linkedin.com/in/jane-claimed",
    });

    const all = await json(await call("/operator/claims", { headers: OPERATOR }));
    expect(all.meta.total).toBe(3);
    const emailsOnly = await json(await call("/operator/claims?kind=email", { headers: OPERATOR }));
    expect(emailsOnly.data.map((c: any) => c.value)).toEqual(["jane.claimed@acme-verify.test"]);
    expect(emailsOnly.data[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);

    // The claim takes effect on the public API at once.
    const { headers } = await createAccount();
    expect((await call("/v1/email-verifier/jane.claimed@acme-verify.test", { headers })).status).toBe(451);

    res = await call(`/operator/claims?kind=email&value=${encodeURIComponent("JANE.claimed@acme-verify.test")}`, {
      method: "DELETE",
      headers: OPERATOR,
    });
    expect(res.status).toBe(200);
    expect((await json(res)).data.removed).toBe(true);
    expect((await call("/v1/email-verifier/jane.claimed@acme-verify.test", { headers })).status).toBe(200);

    res = await call(`/operator/claims?kind=email&value=${encodeURIComponent("jane.claimed@acme-verify.test")}`, {
      method: "DELETE",
      headers: OPERATOR,
    });
    expect(res.status).toBe(404);
  });

  it("a repeated claim is idempotent", async () => {
    await post({ kind: "email", value: "twice@acme-verify.test" });
    const res = await post({ kind: "email", value: "TWICE@acme-verify.test", reason: "second request" });
    expect(res.status).toBe(201);
    const list = await json(await call("/operator/claims?kind=email", { headers: OPERATOR }));
    expect(list.data.filter((c: any) => c.value === "twice@acme-verify.test")).toHaveLength(1);
  });

  it("bad input is a 4xx in the error body", async () => {
    const cases: [unknown, number][] = [
      [{ kind: "fax", value: "x" }, 400],
      [{ kind: "email" }, 400],
      [{ kind: "email", value: "not an address" }, 422],
      [{ kind: "phone", value: "12" }, 422],
      [{ kind: "linkedin", value: "https://example.com/in/jane" }, 422],
    ];
    for (const [body, status] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await json(res)).errors.code).toBe(status);
    }
    const notJson = await call("/operator/claims", { method: "POST", headers: OPERATOR, body: "{" });
    expect(notJson.status).toBe(400);
    expect((await call("/operator/claims?kind=email", { method: "DELETE", headers: OPERATOR })).status).toBe(400);
  });
});

import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { db } from "../../src/db/client.js";
import { requestLogs } from "../../src/db/schema.js";
import { currentLogRowId, logError, runWithRequestId } from "../../src/request-context.js";
import { call, createAccount, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("a request id on every response", () => {
  it("sends X-Request-Id on a 200 and on an error, and the error body carries the same id", async () => {
    const a = await createAccount();
    const ok = await call("/v1/me", { headers: a.headers });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("X-Request-Id")).toMatch(UUID);

    const refused = await call("/v1/me");
    expect(refused.status).toBe(400);
    const id = refused.headers.get("X-Request-Id");
    expect(id).toMatch(UUID);
    expect(id).not.toBe(ok.headers.get("X-Request-Id"));
    expect((await json(refused)).errors).toMatchObject({ type: "missing_credentials", code: 400, request_id: id });
  });

  it("puts the id in errors raised by middleware before any route (405) and by a capability (params_invalid)", async () => {
    const a = await createAccount();
    const wrongMethod = await call("/v1/me", { method: "DELETE" });
    expect((await json(wrongMethod)).errors.request_id).toBe(wrongMethod.headers.get("X-Request-Id"));
    const badDomain = await call("/v1/domain-search?domain=not_a_domain", { headers: a.headers });
    expect(badDomain.status).toBe(400);
    expect((await json(badDomain)).errors).toMatchObject({
      type: "params_invalid",
      request_id: badDomain.headers.get("X-Request-Id"),
    });
  });

  it("keeps a well-formed incoming X-Request-Id and replaces a malformed one", async () => {
    const kept = await call("/nowhere", { headers: { "X-Request-Id": "client-trace_42=" } });
    expect(kept.headers.get("X-Request-Id")).toBe("client-trace_42=");
    expect((await json(kept)).errors.request_id).toBe("client-trace_42=");

    for (const bad of ["has spaces in it", "x".repeat(256), "semi;colon"]) {
      const replaced = await call("/nowhere", { headers: { "X-Request-Id": bad } });
      expect(replaced.headers.get("X-Request-Id"), bad).toMatch(UUID);
    }
  });

  it("answers the agent surface's 402 with the id in the header and in the problem body", async () => {
    const res = await call("/email-verifier?email=jane@example.com");
    expect(res.status).toBe(402);
    const id = res.headers.get("X-Request-Id");
    expect(id).toMatch(UUID);
    expect(((await res.json()) as { request_id?: string }).request_id).toBe(id);
  });

  it("writes the response's id into the request_logs row", async () => {
    const a = await createAccount();
    const res = await call("/v1/me", { headers: a.headers });
    const id = res.headers.get("X-Request-Id")!;
    let rows: (typeof requestLogs.$inferSelect)[] = [];
    await settle(
      async () => {
        rows = await db(env.DB).select().from(requestLogs).where(eq(requestLogs.accountId, a.accountId)).all();
        return rows.length > 0;
      },
      { timeout: 5000, interval: 100 },
    );
    expect(rows[0]!.requestId).toBe(id);
  });

  it("keeps log rows unique when a caller sends the same id twice: the row id starts with it", () => {
    const a = runWithRequestId("same-id", true, currentLogRowId)!;
    const b = runWithRequestId("same-id", true, currentLogRowId)!;
    expect(a.startsWith("same-id.")).toBe(true);
    expect(a).not.toBe(b);
    expect(runWithRequestId("ours", false, currentLogRowId)).toBe("ours");
  });

  it("prefixes every log line with the request id, and '-' outside a request", () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    runWithRequestId("req-7", false, () => logError("something failed", 1));
    logError("in a queue consumer");
    expect(spy.mock.calls).toEqual([["[req-7] something failed", 1], ["[-] in a queue consumer"]]);
    spy.mockRestore();
  });
});

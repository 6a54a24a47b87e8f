import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { AGENTS_ACCOUNT_EMAIL } from "../../src/agent/agents-account.js";
import { db } from "../../src/db/client.js";
import { accounts } from "../../src/db/schema.js";
import { call } from "../support/accounts.js";
import { BASE, payingAgent, workerFetch } from "./support.js";

// Enrollments are limited to 10 an hour per client address, and every test file shares one runtime:
// this file uses an address of its own so other files' enrollments (the fuzz test) cannot spend its window.
const ip = "2001:db8:e1::7";
const enroll = (body: unknown) =>
  workerFetch(`${BASE}/agent-enrollments`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": ip },
    body: JSON.stringify(body),
  });

describe("agent enrollment (free, optional, grants nothing)", () => {
  it("registers an identity and reads it back", async () => {
    const res = await enroll({
      name: "research-bot",
      contact: "ops@bots.example",
      did: "did:pkh:eip155:1:0xabc0000000000000000000000000000000000001",
    });
    expect(res.status).toBe(201);
    const created = await res.json<any>();
    expect(created).toMatchObject({ name: "research-bot", contact: "ops@bots.example", public_key: null, grants: [] });
    expect(res.headers.get("location")).toBe(`/agent-enrollments/${created.id}`);
    const read = await workerFetch(`${BASE}/agent-enrollments/${created.id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(created);
  });

  it("refuses an identity without a key or DID, with a named 400", async () => {
    const res = await enroll({ name: "x", contact: "ops@bots.example" });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).errors.type).toBe("params_invalid");
    expect((await enroll("not json")).status).toBe(400);
    expect((await enroll({ name: "x", contact: "not a contact", public_key: `0x${"ab".repeat(32)}` })).status).toBe(
      400,
    );
  });

  it("answers 404 for an unknown enrollment", async () => {
    const res = await workerFetch(`${BASE}/agent-enrollments/agt_${"0".repeat(32)}`);
    expect(res.status).toBe(404);
  });

  it("changes nothing about paid endpoints: an enrolled agent still gets the 402", async () => {
    await enroll({
      name: "enrolled",
      contact: "https://bots.example/contact",
      public_key: "-----BEGIN PUBLIC KEY-----MFkw",
    });
    const res = await workerFetch(`${BASE}/phone-validator?phone=%2B33612345678`);
    expect(res.status).toBe(402);
  });
});

describe("the shared agents account", () => {
  it("is created on first paid call with kind agents and the configured plan, and cannot log in", async () => {
    const { client } = payingAgent();
    expect((await client.fetch(`${BASE}/phone-validator?phone=%2B33612345678`)).status).toBe(200);
    const [row] = await db(env.DB).select().from(accounts).where(eq(accounts.email, AGENTS_ACCOUNT_EMAIL));
    expect(row).toMatchObject({ kind: "agents", plan: "scale", passwordHash: null });
    const me = await call("/v1/me", { headers: { "X-Service-Key": AGENTS_ACCOUNT_EMAIL, "X-Service-Secret": "x" } });
    expect(me.status).toBeGreaterThanOrEqual(400);
    expect(me.status).toBeLessThan(500);
  });
});

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { workspaces } from "../../src/db/schema.js";
import { call, createAccount, json } from "../support/accounts.js";

const teamId = async (headers: Record<string, string>) =>
  (await json(await call("/v1/me", { headers }))).data.teams.team_id;

describe("/v1/me answered from the isolate's memory", () => {
  it("reads the workspace once per login, and again at once after a key of the account changes", async () => {
    const a = await createAccount({ plan: "scale" });
    expect(await teamId(a.headers)).toBeNull();
    // Written behind the API's back (no route manages workspaces): the remembered answer stands...
    const [ws] = await db(env.DB).insert(workspaces).values({ ownerAccountId: a.accountId, name: "Team" }).returning();
    expect(await teamId(a.headers)).toBeNull();
    // ...until a key of the account changes in this isolate.
    const renamed = await call(`/v1/keys/${a.keyId}`, {
      method: "PATCH",
      headers: { ...a.headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "renamed" }),
    });
    expect(renamed.status).toBe(200);
    expect(await teamId(a.headers)).toBe(ws!.id);
  });

  it("forgets the remembered workspace when a key is reset", async () => {
    const a = await createAccount({ plan: "scale" });
    expect(await teamId(a.headers)).toBeNull();
    const [ws] = await db(env.DB).insert(workspaces).values({ ownerAccountId: a.accountId, name: "Team" }).returning();
    const reset = await json(await call(`/v1/keys/${a.keyId}`, { method: "PUT", headers: a.headers }));
    const headers = { "X-Service-Key": a.key, "X-Service-Secret": reset.data.secret };
    expect(await teamId(headers)).toBe(ws!.id);
  });

  it("shows a credit change at once: the balances are not remembered", async () => {
    const a = await createAccount({ plan: "scale" });
    const before = (await json(await call("/v1/me", { headers: a.headers }))).data.credits.phone.available;
    expect((await call("/v1/phone-validator?phone=%2B33612345003", { headers: a.headers })).status).toBe(200);
    const after = (await json(await call("/v1/me", { headers: a.headers }))).data.credits.phone.available;
    expect(after).toBe(before - 1);
  });
});

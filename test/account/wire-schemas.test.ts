import { describe, expect, it } from "vitest";
import { RateLimitsSchema } from "../../src/account/routes/rate-limits.js";
import { Team } from "../../src/account/routes/team.js";
import { call, createAccount, json } from "../support/accounts.js";

// Parsing strips keys a schema does not name and refuses values it does not allow: an answer that
// parses back to itself is described, key by key, by the schema the OpenAPI document publishes and
// the dashboard's pages read their types from.
describe("account answers match their published schemas", () => {
  it("GET /v1/rate-limits: every endpoint's windows, the balances and the credit pack", async () => {
    const account = await createAccount({ plan: "growth" });
    await call("/v1/email-verifier?email=jane%40acme-widgets.test", { headers: account.headers });
    const body = await json(await call("/v1/rate-limits", { headers: account.headers }));
    expect(RateLimitsSchema.parse(body)).toEqual(body);
    expect(Object.values(body.data).some((r) => (r as { enforced: boolean }).enforced)).toBe(true);
    expect(Object.values(body.data).some((r) => !(r as { enforced: boolean }).enforced)).toBe(true);
  });

  it("GET /v1/team", async () => {
    const account = await createAccount({ plan: "growth" });
    const body = await json(await call("/v1/team", { headers: account.headers }));
    expect(Team.parse(body)).toEqual(body);
  });
});

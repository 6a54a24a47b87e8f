import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { phones } from "../../src/db/schema-index.js";
import { limiterFor } from "../../src/limits/admission.js";
import { call, createAccount, json } from "../support/accounts.js";
import { indexOf } from "../support/index-db.js";
import { settle } from "../support/settle.js";

describe("GET /v1/email-finder?enrich_mobile=true", () => {
  it("adds data.phone_data for a known number and charges one phone credit only when a number is found", async () => {
    const a = await createAccount({ plan: "pro" });
    const now = Date.now();
    await (await indexOf("acme-widgets.test"))
      .insert(phones)
      .values({
        domain: "acme-widgets.test",
        email: "jane.cooper@acme-widgets.test",
        e164: "+14155552671",
        source: "import",
        firstSeenAt: now,
        lastSeenAt: now,
      })
      .onConflictDoNothing();

    const withPhone = await json(
      await call("/v1/email-finder?domain=acme-widgets.test&first_name=Jane&last_name=Cooper&enrich_mobile=true", {
        headers: a.headers,
      }),
    );
    expect(withPhone.data.email).toBe("jane.cooper@acme-widgets.test");
    expect(withPhone.data.phone_data).toMatchObject({ e164_format: "+14155552671", country_code: "US" });

    const without = await json(
      await call("/v1/email-finder?domain=acme-widgets.test&first_name=Bob&last_name=Nobody&enrich_mobile=true", {
        headers: a.headers,
      }),
    );
    expect(without.data.phone_data).toBeNull();

    // Settling runs after the response; wait for both calls to be trued up.
    await settle(async () => {
      const b = await limiterFor(env, a.accountId).balances("pro");
      return b.search.used === 2 && b.phone.used === 1;
    });
  });
});

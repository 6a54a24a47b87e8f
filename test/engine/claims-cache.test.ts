import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { claims } from "../../src/db/schema-index.js";
import { addClaim, assertNotClaimed, removeClaim } from "../../src/engine/index/claims.js";
import { claimsCacheTtl, DEFAULT_CLAIMS_CACHE_TTL_MS, MAX_KIND_SNAPSHOT } from "../../src/engine/index/claims-cache.js";
import type { Env } from "../../src/env.js";
import { apiErrorOf } from "../../src/http/errors.js";

// The suite reads claims from D1 on every call (vitest.config.ts sets CLAIMS_CACHE_TTL_MS to 0);
// here the production default is switched back on.
const cached = { ...(env as Env), CLAIMS_CACHE_TTL_MS: String(DEFAULT_CLAIMS_CACHE_TTL_MS) };

// A different valid French mobile number per test: the cache is module state shared by every file.
let n = 0;
const freshPhone = () => `+3361${String(Date.now() % 1_000_000).padStart(6, "0")}${n++ % 10}`.slice(0, 12);

// The engine throws domain errors; the status is the one the boundary maps them to.
const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (err: unknown) => apiErrorOf(err)?.status ?? 500,
  );

describe("claims cache (assertNotClaimed)", () => {
  it("serves a repeated lookup from the isolate, so a claim written behind its back is enforced once the TTL has run out", async () => {
    const phone = freshPhone();
    const t = Date.now();
    expect(await status(assertNotClaimed(cached, "phone", phone, t))).toBe(200);
    await db(env.DB).insert(claims).values({ kind: "phone", value: phone });
    // Within the bound the remembered "not claimed" is still used...
    expect(await status(assertNotClaimed(cached, "phone", phone, t + DEFAULT_CLAIMS_CACHE_TTL_MS - 1))).toBe(200);
    // ...and not one millisecond longer.
    expect(await status(assertNotClaimed(cached, "phone", phone, t + DEFAULT_CLAIMS_CACHE_TTL_MS))).toBe(451);
  });

  it("enforces a claim added through addClaim at once in the same isolate", async () => {
    const phone = freshPhone();
    const t = Date.now();
    expect(await status(assertNotClaimed(cached, "phone", phone, t))).toBe(200);
    await addClaim(env, "phone", phone, "owner asked");
    expect(await status(assertNotClaimed(cached, "phone", phone, t + 1))).toBe(451);
  });

  it("serves the value again at once after removeClaim in the same isolate", async () => {
    const phone = freshPhone();
    await addClaim(env, "phone", phone, null);
    const t = Date.now();
    expect(await status(assertNotClaimed(cached, "phone", phone, t))).toBe(451);
    await removeClaim(env, "phone", phone);
    expect(await status(assertNotClaimed(cached, "phone", phone, t + 1))).toBe(200);
  });

  it("reads D1 on every call when CLAIMS_CACHE_TTL_MS is 0", async () => {
    const phone = freshPhone();
    const uncached = { ...(env as Env), CLAIMS_CACHE_TTL_MS: "0" };
    const t = Date.now();
    expect(await status(assertNotClaimed(uncached, "phone", phone, t))).toBe(200);
    await db(env.DB).insert(claims).values({ kind: "phone", value: phone });
    expect(await status(assertNotClaimed(uncached, "phone", phone, t + 1))).toBe(451);
  });

  it("keeps the 5 s default for an unset or unreadable TTL", () => {
    expect(claimsCacheTtl(undefined)).toBe(5_000);
    expect(claimsCacheTtl("")).toBe(5_000);
    expect(claimsCacheTtl("soon")).toBe(5_000);
    expect(claimsCacheTtl("-1")).toBe(5_000);
    expect(claimsCacheTtl("250")).toBe(250);
  });

  it("answers numbers never asked before from the kind's claims read once, without a D1 read each", async () => {
    const claimed = freshPhone();
    await db(env.DB).insert(claims).values({ kind: "phone", value: claimed });
    const t = Date.now() + 60_000; // past every snapshot earlier tests left
    const reads: string[] = [];
    const prepare = (q: string) => {
      reads.push(q);
      return env.DB.prepare(q);
    };
    const counting = new Proxy(env.DB, {
      get: (target, prop) => (prop === "prepare" ? prepare : Reflect.get(target, prop, target)),
    });
    const watched = { ...cached, DB: counting };
    expect(await status(assertNotClaimed(watched, "phone", freshPhone(), t))).toBe(200);
    expect(reads).toHaveLength(1);
    expect(await status(assertNotClaimed(watched, "phone", freshPhone(), t + 1))).toBe(200);
    expect(await status(assertNotClaimed(watched, "phone", claimed, t + 2))).toBe(451);
    expect(reads).toHaveLength(1);
  });

  it(`looks values up one by one when a kind has more than ${MAX_KIND_SNAPSHOT} claims`, async () => {
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i <= ${MAX_KIND_SNAPSHOT})
       INSERT INTO claims (kind, value, created_at) SELECT 'linkedin', 'https://www.linkedin.com/in/bulk-claim-' || i, 0 FROM n`,
    ).run();
    try {
      const t = Date.now() + 120_000;
      expect(await status(assertNotClaimed(cached, "linkedin", "https://www.linkedin.com/in/bulk-claim-77", t))).toBe(
        451,
      );
      expect(
        await status(assertNotClaimed(cached, "linkedin", "https://www.linkedin.com/in/someone-else", t + 1)),
      ).toBe(200);
    } finally {
      await env.DB.prepare(
        "DELETE FROM claims WHERE kind = 'linkedin' AND value LIKE 'https://www.linkedin.com/in/bulk-claim-%'",
      ).run();
    }
  });
});

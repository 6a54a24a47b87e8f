import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { billedRequests } from "../../src/db/schema-contract.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { limiterFor } from "../../src/limits/admission.js";
import { normalisedParams, REPEAT_WINDOW_MS, requestFingerprint } from "../../src/limits/repeat-billing.js";
import { call, createAccount, json } from "../support/accounts.js";
import { limiterClock, settleOn } from "../support/limiter.js";
import { settle } from "../support/settle.js";

async function verificationsUsed(accountId: number) {
  return (await limiterFor(env, accountId).balances("pro")).verification.used;
}

async function logsOf(headers: Record<string, string>, count: number) {
  let body: any;
  await settle(async () => {
    body = await json(await call("/v1/logs?type=Email%20Verifier&limit=100", { headers }));
    return body.meta.total >= count;
  });
  return body.data as { cost: boolean; uri: string }[];
}

describe("docs/wire-contract.md §3.2: an identical request is billed once per 30 days", () => {
  it("§3.2: the repeat (same endpoint, normalised parameters, account) answers the same and is logged cost: false", async () => {
    const a = await createAccount();
    const first = await call("/v1/email-verifier?email=nobody%40gone-verify.test", { headers: a.headers });
    expect(first.status).toBe(200);
    const firstBody = await json(first);
    await settle(async () => (await verificationsUsed(a.accountId)) === 1);
    // Same question: path form instead of query, different case and padding.
    const again = await call("/v1/email-verifier/nobody@gone-verify.test", { headers: a.headers });
    expect(again.status).toBe(200);
    expect((await json(again)).data.email.status).toBe(firstBody.data.email.status);
    const logs = await logsOf(a.headers, 2);
    expect(logs.map((l) => l.cost)).toEqual([false, true]);
    // The repeat's reservation (taken while its lookup ran) is given back.
    await settle(async () => (await verificationsUsed(a.accountId)) === 1);
  });

  it("§3.2: a repeat is answered even when the balance is empty; a new request is refused", async () => {
    const a = await createAccount({ plan: "basic" });
    expect((await call("/v1/email-verifier?email=nobody%40gone-verify.test", { headers: a.headers })).status).toBe(200);
    await logsOf(a.headers, 1);
    const limiter = limiterFor(env, a.accountId);
    await settle(async () => (await limiter.balances("basic")).verification.used === 1);
    const { verification } = await limiter.balances("basic");
    const spent = await limiter.admit({ plan: "basic", group: null, cost: { verification: verification.available } });
    if (spent.admitted) await settleOn(limiter, spent.reservationIds, true, {}, "basic");
    const fresh = await call("/v1/email-verifier?email=another%40gone-verify.test", { headers: a.headers });
    expect(fresh.status).toBe(402);
    // The plan allows 2 verifier requests per second: the repeat comes 1.1 s later on the limiter's clock.
    await limiterClock(limiter as unknown as DurableObjectStub<AccountLimiter>, Date.now() + 1100);
    const repeat = await call("/v1/email-verifier?email=nobody%40gone-verify.test", { headers: a.headers });
    expect(repeat.status).toBe(200);
    expect((await json(repeat)).data.email.status).toBe("invalid");
  });

  it("§3.2: a different parameter is a different request, billed again", async () => {
    const a = await createAccount();
    await call("/v1/email-verifier?email=nobody%40gone-verify.test", { headers: a.headers });
    await call("/v1/email-verifier?email=still%40gone-verify.test", { headers: a.headers });
    const logs = await logsOf(a.headers, 2);
    expect(logs.map((l) => l.cost)).toEqual([true, true]);
    await settle(async () => (await verificationsUsed(a.accountId)) === 2);
  });

  it("§3.2: the same request by another account is billed to that account", async () => {
    const a = await createAccount();
    const b = await createAccount();
    await call("/v1/email-verifier?email=nobody%40gone-verify.test", { headers: a.headers });
    await logsOf(a.headers, 1);
    await call("/v1/email-verifier?email=nobody%40gone-verify.test", { headers: b.headers });
    expect((await logsOf(b.headers, 1)).map((l) => l.cost)).toEqual([true]);
  });

  it("§3.2: after 30 days the same request is billed again", async () => {
    const a = await createAccount();
    const fingerprint = await requestFingerprint("email-verifier", { email: "nobody@gone-verify.test" });
    await db(env.DB)
      .insert(billedRequests)
      .values({ accountId: a.accountId, fingerprint, billedAt: Date.now() - REPEAT_WINDOW_MS - 60_000 });
    await call("/v1/email-verifier?email=nobody%40gone-verify.test", { headers: a.headers });
    expect((await logsOf(a.headers, 1)).map((l) => l.cost)).toEqual([true]);
    await settle(async () => (await verificationsUsed(a.accountId)) === 1);
  });

  it("§3.2: an answer that found nothing opens no window (it was not billed)", async () => {
    const a = await createAccount();
    // No SMTP prober in tests: an open verdict, not billed.
    await call("/v1/email-verifier?email=jane%40acme-verify.test", { headers: a.headers });
    await logsOf(a.headers, 1);
    const rows = await db(env.DB).select().from(billedRequests).all();
    const fingerprint = await requestFingerprint("email-verifier", { email: "jane@acme-verify.test" });
    expect(rows.some((r) => r.accountId === a.accountId && r.fingerprint === fingerprint)).toBe(false);
  });

  it("§3.2: normalisation sorts keys, trims, ignores case where it carries no meaning and drops webhook_url", () => {
    expect(normalisedParams({ domain: " Acme.COM ", first_name: "Jane", webhook_url: "https://x.test/a" })).toBe(
      normalisedParams({ first_name: "jane", domain: "acme.com" }),
    );
    expect(normalisedParams({ url: "https://a.test/Post" })).not.toBe(normalisedParams({ url: "https://a.test/post" }));
    expect(normalisedParams({ email: "a@b.co", enrich_mobile: false })).toBe(normalisedParams({ email: "a@b.co" }));
    expect(normalisedParams({ email: "a@b.co", enrich_mobile: true })).not.toBe(normalisedParams({ email: "a@b.co" }));
  });
});

describe("docs/wire-contract.md §3.2: what counts as the same request", () => {
  it("compares phone numbers in E.164: the country parameter of a national number is part of the number", () => {
    const e164 = normalisedParams({ phone: "+1 415 555 0100" });
    expect(normalisedParams({ phone: "(415) 555-0100", country_code: "US" })).toBe(e164);
    expect(normalisedParams({ phone: "415.555.0100", country: "us" })).toBe(e164);
    expect(normalisedParams({ phone: "+14155550100", country_code: "US" })).toBe(e164);
    // Another country's plan reads the same digits as another number.
    expect(normalisedParams({ phone: "030 12345678", country_code: "DE" })).toBe(
      normalisedParams({ phone: "+49 30 12345678" }),
    );
    expect(normalisedParams({ phone: "030 12345678", country_code: "DE" })).not.toBe(
      normalisedParams({ phone: "030 12345678", country_code: "FR" }),
    );
    expect(normalisedParams({ phone: "+33 6 12 34 56 78" })).toBe(
      normalisedParams({ phone: "06 12 34 56 78", country_code: "FR" }),
    );
    // A number that does not parse is kept as written, with its country.
    expect(normalisedParams({ phone: "12", country_code: "US" })).not.toBe(normalisedParams({ phone: "12" }));
  });

  it("compares addresses without case or a trailing dot, and domains without case, `www.` or a trailing dot", () => {
    expect(normalisedParams({ email: " Jane.Doe@Acme.COM. " })).toBe(normalisedParams({ email: "jane.doe@acme.com" }));
    expect(normalisedParams({ domain: "WWW.Acme.com." })).toBe(normalisedParams({ domain: "acme.com" }));
    expect(normalisedParams({ domain: "www.acme.com", first_name: "Jane" })).toBe(
      normalisedParams({ domain: "Acme.Com", first_name: "jane" }),
    );
    expect(normalisedParams({ domain: "shop.acme.com" })).not.toBe(normalisedParams({ domain: "acme.com" }));
  });
});

describe("spec Versioning: Email Format quota headers", () => {
  it("sends X-Count-Limit and X-Count-Remaining (integers), not the older X-Search-* pair", async () => {
    const a = await createAccount({ plan: "pro" });
    const res = await call("/v1/email-format?domain=acme-widgets.test", { headers: a.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-count-limit")).toBe("10000");
    expect(res.headers.get("x-count-remaining")).toMatch(/^\d+$/);
    const body = await json(res);
    const used = body.data.length > 0 ? 1 : 0;
    expect(Number(res.headers.get("x-count-remaining"))).toBe(10_000 - used);
    expect(res.headers.get("x-search-limit")).toBeNull();
    expect(res.headers.get("x-search-remaining")).toBeNull();
  });
});

import type { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import type { Capability } from "../../src/capabilities/core/registry.js";
import { CAPABILITIES } from "../../src/capabilities/index.js";
import { importRows } from "../people/support.js";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";

/**
 * The contract sweep: every capability in the registry, on /v1, answers
 *  - 400 missing_credentials without credentials,
 *  - 400 params_invalid naming the parameter for a bad one,
 *  - a 200 built from the test fixtures whose body parses with the capability's own response schema.
 * A capability added to CAPABILITIES without a sample here fails the first test.
 */
interface Sample {
  /** /v1 path and query of a call that answers 200 from the fixtures (sites, DNS zones, imported rows). */
  ok: string;
  /** A call with one bad parameter, and that parameter's name. */
  bad: { path: string; param: string };
}

const SAMPLES: Record<string, Sample> = {
  "email-verifier": {
    ok: "/email-verifier?email=jane%40acme-verify.test",
    bad: { path: "/email-verifier", param: "email" },
  },
  "domain-status": { ok: "/domain-status?domain=gmail.com", bad: { path: "/domain-status", param: "domain" } },
  "phone-validator": { ok: "/phone-validator?phone=%2B33612345678", bad: { path: "/phone-validator", param: "phone" } },
  "phone-finder": {
    ok: "/phone-finder?email=peter.gibbons%40sweep-corp.test",
    bad: { path: "/phone-finder?email=bob", param: "email" },
  },
  "phone-legacy": { ok: "/phone/peter.gibbons%40sweep-corp.test", bad: { path: "/phone/bob", param: "email" } },
  enrich: { ok: "/enrich?email=peter.gibbons%40sweep-corp.test", bad: { path: "/enrich?email=bob", param: "email" } },
  "people/find": {
    ok: "/people/find?email=peter.gibbons%40sweep-corp.test",
    bad: { path: "/people/find?email=bob", param: "email" },
  },
  "companies/find": {
    ok: "/companies/find?domain=sweep-corp.test",
    bad: { path: "/companies/find?domain=not_a_domain", param: "domain" },
  },
  "combined/find": {
    ok: "/combined/find?email=peter.gibbons%40sweep-corp.test",
    bad: { path: "/combined/find", param: "email" },
  },
  "professional-network": {
    ok: "/professional-network?url=https://www.linkedin.com/in/peter-gibbons-sweep",
    bad: { path: "/professional-network", param: "url" },
  },
  technology: { ok: "/technology?domain=globex.test", bad: { path: "/technology", param: "domain" } },
  similar: {
    ok: "/similar?domain=sweep-corp.test",
    bad: { path: "/similar?domain=sweep-corp.test&limit=abc", param: "limit" },
  },
  location: { ok: "/location?domain=sweep-corp.test", bad: { path: "/location", param: "domain" } },
  "domain-suggestions": { ok: "/domain-suggestions?query=Sweep", bad: { path: "/domain-suggestions", param: "query" } },
  "domain-search": {
    ok: "/domain-search?domain=acme-widgets.test",
    bad: { path: "/domain-search?domain=acme-widgets.test&limit=abc", param: "limit" },
  },
  "email-finder": {
    ok: "/email-finder?domain=acme-widgets.test&first_name=Jane&last_name=Cooper",
    bad: { path: "/email-finder?domain=not_a_domain&first_name=Jane&last_name=Cooper", param: "domain" },
  },
  "email-format": {
    ok: "/email-format?domain=acme-widgets.test",
    bad: { path: "/email-format?domain=not_a_domain", param: "domain" },
  },
  "email-count": {
    ok: "/email-count?domain=acme-widgets.test",
    bad: { path: "/email-count?domain=not_a_domain", param: "domain" },
  },
  "email-sources": {
    ok: "/email-sources?email=sales%40acme-widgets.test",
    bad: { path: "/email-sources?email=not-an-email", param: "email" },
  },
  "author-finder": {
    ok: "/author-finder?url=https://daily-news.test/opinion/meta-author",
    bad: { path: "/author-finder?url=not%20a%20url", param: "url" },
  },
};

/** Whether `path` (without its query) is served at one of the capability's declared paths. */
function servedBy(cap: Capability, path: string): boolean {
  const bare = decodeURIComponent(path.split("?")[0]!);
  return [...cap.paths, ...(cap.aliases ?? [])].some((p) =>
    new RegExp(`^${p.replace(/\{\w+\}/g, "[^/]+")}$`).test(bare),
  );
}

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount({ plan: "scale" }); // no per-second limits: the sweep calls in a burst
  await importRows([
    {
      kind: "company",
      domain: "sweep-corp.test",
      name: "Sweep Corp",
      industry: "Computer Software",
      country: "US",
      city: "Austin",
      employee_count: "120",
    },
    {
      kind: "company",
      domain: "sweep-twin.test",
      name: "Sweep Twin",
      industry: "Computer Software",
      country: "US",
      employee_count: "90",
    },
    {
      kind: "person",
      email: "peter.gibbons@sweep-corp.test",
      first_name: "Peter",
      last_name: "Gibbons",
      position: "Software Engineer",
      country: "US",
      linkedin: "https://www.linkedin.com/in/peter-gibbons-sweep",
      phone: "+1 512 555 0101",
    },
  ]);
});

describe("the contract sweep over the capability registry", () => {
  it("has a sample for every capability, each served at one of its declared paths", () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(CAPABILITIES.map((c) => c.name).sort());
    for (const cap of CAPABILITIES) {
      const sample = SAMPLES[cap.name]!;
      expect(servedBy(cap, sample.ok), `${cap.name} ok`).toBe(true);
      expect(servedBy(cap, sample.bad.path), `${cap.name} bad`).toBe(true);
    }
  });

  describe.each(CAPABILITIES.map((cap) => [cap.name, cap] as const))("%s", (name, cap) => {
    const sample = SAMPLES[name]!;

    it("answers 400 missing_credentials without credentials", async () => {
      const res = await call(`/v1${sample.ok}`);
      expect(res.status).toBe(400);
      expect((await json(res)).errors).toMatchObject({ type: "missing_credentials", code: 400 });
    });

    it("answers 400 params_invalid naming the bad parameter", async () => {
      const res = await call(`/v1${sample.bad.path}`, { headers: account.headers });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body.errors.type).toBe("params_invalid");
      expect(body.errors.message).toContain(`'${sample.bad.param}'`);
      expect(body.errors.request_id).toBe(res.headers.get("X-Request-Id"));
    });

    it("answers a fixture-backed 200 that parses with its own response schema", async () => {
      expect(cap.response, "a capability declares its response schema").toBeDefined();
      const res = await call(`/v1${sample.ok}`, { headers: account.headers });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      const parsed = (cap.response as z.ZodType).safeParse(body);
      expect(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues.slice(0, 3))).toBe(true);
    });
  });
});

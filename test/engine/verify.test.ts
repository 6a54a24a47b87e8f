import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { claims, domains, emailSources } from "../../src/db/schema-index.js";
import { DnsUnavailableError } from "../../src/engine/dns/resolver.js";
import { ReacherProber, type SmtpProber, SmtpProberUnavailableError } from "../../src/engine/verify/smtp-prober.js";
import { verifyEmail } from "../../src/engine/verify/verifier.js";
import { ApiError, apiErrorOf } from "../../src/http/errors.js";
import { REACHER_SECRET } from "../fixtures/handlers/reacher.js";
import { indexOf } from "../support/index-db.js";

const reacher = () => new ReacherProber("https://reacher.test", REACHER_SECRET);

/** Fails the test if anything reaches the network. */
const noNetwork = (() => {
  throw new Error("the network was used");
}) as unknown as typeof fetch;

describe("verifier without an SMTP prober", () => {
  it("answers a malformed address invalid without any network", async () => {
    // A DOH_URL that would throw on use proves no lookup happens.
    const offline = { ...env, DOH_URL: "https://unused.invalid/" };
    const original = globalThis.fetch;
    globalThis.fetch = noNetwork;
    try {
      for (const bad of [
        "plainaddress",
        "jane@",
        "@acme-verify.test",
        "jane..doe@acme-verify.test",
        "jane@acme",
        "jane@-acme.test",
        "jane@[192.0.2.1]",
        `${"a".repeat(65)}@acme-verify.test`,
      ]) {
        const { data, definitive } = await verifyEmail(offline, bad);
        expect(data.email.status, bad).toBe("invalid");
        expect(data.email.result).toBe("undeliverable");
        expect(data.email.regex).toBe(false);
        expect(data.email.reason).toBe("invalid_syntax");
        expect(data.email.score).toBe(0);
        expect(definitive).toBe(true);
      }
    } finally {
      globalThis.fetch = original;
    }
  });

  it("never claims deliverable for a well-formed address at a mail domain, and says SMTP was not run", async () => {
    const { data, definitive } = await verifyEmail(env, "Jane.Doe@acme-verify.test");
    expect(data.email).toMatchObject({
      email: "Jane.Doe@acme-verify.test",
      status: "unknown",
      result: "risky",
      regex: true,
      mx_records: true,
      mx_check: true,
      mx: { records: ["mx1.acme-verify.test", "mx2.acme-verify.test"] },
      implicit_mx: false,
      smtp_check_run: false,
      smtp_check: false,
      smtp_server: false,
      accept_all: false,
      disposable: false,
      webmail: false,
      gibberish: false,
      role: false,
      reason: "smtp_not_run",
      whois: { registrar_name: null, referral_url: null, created_date: null },
    });
    expect(data.sources).toEqual([]);
    expect(data.email).not.toHaveProperty("sources");
    expect(data.email.note).toMatch(/SMTP check was not run/);
    expect(Number.isInteger(data.email.score)).toBe(true);
    expect(definitive).toBe(false);
  });

  it("names the mail provider from the MX hosts", async () => {
    expect((await verifyEmail(env, "sam@gws-verify.test")).data.email.smtp_provider).toBe("Google Workspace");
    expect((await verifyEmail(env, "sam@m365-verify.test")).data.email.smtp_provider).toBe("Microsoft 365");
    expect((await verifyEmail(env, "sam@acme-verify.test")).data.email.smtp_provider).toBeNull();
  });

  it("null MX means the domain takes no mail: invalid", async () => {
    const { data } = await verifyEmail(env, "jane@nullmx-verify.test");
    expect(data.email).toMatchObject({
      status: "invalid",
      result: "undeliverable",
      reason: "null_mx",
      regex: true,
      mx_records: false,
    });
  });

  it("NXDOMAIN is a definitive invalid", async () => {
    const { data, definitive } = await verifyEmail(env, "jane@gone-verify.test");
    expect(data.email).toMatchObject({ status: "invalid", result: "undeliverable", reason: "no_such_domain" });
    expect(definitive).toBe(true);
  });

  it("no MX but an A or AAAA record is an implicit MX", async () => {
    for (const domain of ["implicit-verify.test", "implicit6-verify.test"]) {
      const { data } = await verifyEmail(env, `jane@${domain}`);
      expect(data.email, domain).toMatchObject({
        status: "unknown",
        mx_records: true,
        implicit_mx: true,
        mx: { records: [domain] },
      });
    }
    // The implicit route is weaker evidence than a published MX.
    const explicit = (await verifyEmail(env, "jane@acme-verify.test")).data.email.score;
    expect((await verifyEmail(env, "jane@implicit-verify.test")).data.email.score).toBeLessThan(explicit);
  });

  it("no MX and no address record: no server can receive mail", async () => {
    const { data } = await verifyEmail(env, "jane@nomail-verify.test");
    expect(data.email).toMatchObject({ status: "invalid", reason: "no_mail_server" });
  });

  it("a DNS failure is a 503, never a verdict", async () => {
    for (const domain of ["servfail-verify.test", "timeout-verify.test"]) {
      const err = await verifyEmail(env, `jane@${domain}`).catch((e) => e);
      expect(err, domain).toBeInstanceOf(DnsUnavailableError);
      expect(apiErrorOf(err)!.status).toBe(503);
    }
  });

  it("disposable domains are reported as such with score 50", async () => {
    const { data, definitive } = await verifyEmail(env, "whoever@mailinator.com");
    expect(data.email).toMatchObject({
      status: "disposable",
      result: "risky",
      disposable: true,
      webmail: false,
      score: 50,
      smtp_check_run: false,
    });
    expect(definitive).toBe(true);
  });

  it("webmail is not SMTP-checked, even with a prober configured", async () => {
    const probe: SmtpProber = {
      name: "spy",
      probe: async () => {
        throw new Error("webmail must not be probed");
      },
    };
    const { data } = await verifyEmail(env, "jane.doe@gmail.com", { prober: probe });
    expect(data.email).toMatchObject({
      status: "webmail",
      result: "risky",
      webmail: true,
      score: 50,
      smtp_provider: "Gmail",
      smtp_check_run: false,
    });
    expect(data.email.note).toMatch(/not SMTP-checked/);
  });

  it("flags role accounts and gibberish, and lowers the score for them", async () => {
    const person = await verifyEmail(env, "jane.doe@acme-verify.test");
    const role = await verifyEmail(env, "sales@acme-verify.test");
    const gibberish = await verifyEmail(env, "xkqwzjv@acme-verify.test");
    expect(role.data.email.role).toBe(true);
    expect(gibberish.data.email.gibberish).toBe(true);
    expect(person.data.email.role || person.data.email.gibberish).toBe(false);
    expect(role.data.email.score).toBeLessThan(person.data.email.score);
    expect(gibberish.data.email.score).toBeLessThan(role.data.email.score);
  });

  it("suggests the webmail domain a typo meant", async () => {
    const { data } = await verifyEmail(env, "jane@gmial.com");
    expect(data.email.did_you_mean).toBe("jane@gmail.com");
    expect(data.email.status).toBe("invalid"); // gmial.com has no zone in the fixture network: NXDOMAIN
    expect((await verifyEmail(env, "jane@acme-verify.test")).data.email.did_you_mean).toBeNull();
  });

  it("handles IDN domains through their punycode form", async () => {
    const { data } = await verifyEmail(env, "anna@bücher-verify.test");
    expect(data.email).toMatchObject({
      email: "anna@bücher-verify.test",
      regex: true,
      mx_records: true,
      mx: { records: ["mx.buecher-verify.test"] },
    });
  });

  it("answers 451 claimed_email for an address removed at its owner's request", async () => {
    await db(env.DB).insert(claims).values({ kind: "email", value: "removed@acme-verify.test" });
    const err = apiErrorOf(await verifyEmail(env, "Removed@ACME-verify.test").catch((e) => e))!;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(451);
    expect(err.type).toBe("claimed_email");
  });

  it("lists where the address was seen and counts that as evidence", async () => {
    const before = (await verifyEmail(env, "press@acme-verify.test")).data.email.score;
    const t = Date.UTC(2026, 9, 1);
    await (await indexOf("press@acme-verify.test")).insert(emailSources).values({
      email: "press@acme-verify.test",
      uri: "https://acme-verify.test/contact",
      websiteUrl: "acme-verify.test",
      extractedOn: t,
      lastSeenOn: t,
      stillOnPage: true,
    });
    const { data } = await verifyEmail(env, "press@acme-verify.test");
    expect(data.sources).toEqual([
      {
        uri: "https://acme-verify.test/contact",
        website_url: "acme-verify.test",
        extracted_on: "2026-10-01T00:00:00+00:00",
        last_seen_on: "2026-10-01T00:00:00+00:00",
        still_on_page: true,
      },
    ]);
    expect(data.email.score).toBeGreaterThan(before);
  });

  it("uses a catch-all verdict an earlier probe stored for the domain", async () => {
    await (await indexOf("implicit-verify.test"))
      .insert(domains)
      .values({ domain: "implicit-verify.test", acceptAll: true });
    const { data, definitive } = await verifyEmail(env, "anyone@implicit-verify.test");
    expect(data.email).toMatchObject({
      status: "accept_all",
      accept_all: true,
      result: "risky",
      smtp_check_run: false,
    });
    expect(definitive).toBe(true);
  });
});

describe("verifier with the Reacher prober", () => {
  it("valid mailbox: deliverable, with SMTP evidence", async () => {
    const { data, definitive } = await verifyEmail(env, "valid.jane@probe-verify.test", { prober: reacher() });
    expect(data.email).toMatchObject({
      status: "valid",
      result: "deliverable",
      smtp_check_run: true,
      smtp_server: true,
      smtp_check: true,
      accept_all: false,
      score: 100,
    });
    expect(definitive).toBe(true);
  });

  it("rejected mailbox: invalid", async () => {
    const { data } = await verifyEmail(env, "nobody@probe-verify.test", { prober: reacher() });
    expect(data.email).toMatchObject({
      status: "invalid",
      result: "undeliverable",
      reason: "mailbox_not_found",
      smtp_check_run: true,
      smtp_check: false,
    });
  });

  it("disabled mailbox: invalid", async () => {
    expect((await verifyEmail(env, "disabled@probe-verify.test", { prober: reacher() })).data.email).toMatchObject({
      status: "invalid",
      reason: "mailbox_disabled",
    });
  });

  it("catch-all domain: accept_all, risky, remembered on the indexed domain", async () => {
    await (await indexOf("catchall-verify.test")).insert(domains).values({ domain: "catchall-verify.test" });
    const { data } = await verifyEmail(env, "whoever@catchall-verify.test", { prober: reacher() });
    expect(data.email).toMatchObject({ status: "accept_all", result: "risky", accept_all: true, smtp_check: false });
    const row = await (await indexOf("catchall-verify.test")).select().from(domains).all();
    expect(row.find((d) => d.domain === "catchall-verify.test")?.acceptAll).toBe(true);
  });

  it("full inbox (Reacher: is_deliverable false, has_full_inbox true): the mailbox exists, risky, never invalid", async () => {
    const full = await verifyEmail(env, "full@probe-verify.test", { prober: reacher() });
    expect(full.data.email).toMatchObject({ status: "valid", result: "risky", reason: null });
    expect(full.definitive).toBe(true);
  });

  it("blocked and greylisted conversations stay unknown, with the flags set", async () => {
    const blocked = await verifyEmail(env, "blocked@probe-verify.test", { prober: reacher() });
    expect(blocked.data.email).toMatchObject({
      status: "unknown",
      block: true,
      greylisted: false,
      smtp_server: false,
      reason: "smtp_refused",
    });
    expect(blocked.data.email.note).toMatch(/refused to talk to our SMTP checker/);
    expect(blocked.definitive).toBe(false);
    const greylisted = await verifyEmail(env, "greylist@probe-verify.test", { prober: reacher() });
    expect(greylisted.data.email).toMatchObject({ status: "unknown", greylisted: true, reason: "smtp_greylisted" });
    expect(greylisted.definitive).toBe(false);
  });

  it("a failing prober is a 503, never a verdict", async () => {
    await expect(verifyEmail(env, "crash@probe-verify.test", { prober: reacher() })).rejects.toBeInstanceOf(
      SmtpProberUnavailableError,
    );
    await expect(
      verifyEmail(env, "valid@probe-verify.test", { prober: new ReacherProber("https://reacher.test", "wrong") }),
    ).rejects.toThrow(/REACHER_SECRET/);
  });

  it("the prober is chosen from REACHER_URL", async () => {
    const { data } = await verifyEmail(
      { ...env, REACHER_URL: "https://reacher.test/", REACHER_SECRET },
      "valid.sam@probe-verify.test",
    );
    expect(data.email.smtp_check_run).toBe(true);
    expect(data.email.status).toBe("valid");
  });
});

// The SMTP search's parts, each on its own: the candidates' order, the mail host's pacer, the
// gateway's cache and deferrals, greylisting answered now and confirmed after the retry.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  CLASH_FACTOR,
  candidateAddresses,
  clashingFormats,
  PRIOR_DOMAINS,
  parseRuleOuts,
  RULED_OUT_FACTOR,
  withRejections,
} from "../../src/engine/finder/candidates.js";
import { confirmAddress } from "../../src/engine/finder/confirm.js";
import { proposeAddress } from "../../src/engine/finder/email-finder.js";
import { formatCountsFor, recordDomainFormat, talliedDomains } from "../../src/engine/finder/format-tallies.js";
import { namesWriteFamilyFirst } from "../../src/engine/finder/name-culture.js";
import { inferPatterns } from "../../src/engine/finder/patterns.js";
import { splitFullName } from "../../src/engine/people/names.js";
import { mailHostOf } from "../../src/engine/verify/mail-host-pacer.js";
import { pruneSmtpChecks, SmtpGateway } from "../../src/engine/verify/probe-gateway.js";
import { ReacherProber } from "../../src/engine/verify/smtp-prober.js";
import { runDueRetries } from "../../src/engine/verify/smtp-retries.js";
import { ACCEPT_ALL_SCORE_CAP, verifyEmail } from "../../src/engine/verify/verifier.js";
import { gravatarUrl, webEvidence, wkdUrls, zBase32 } from "../../src/engine/verify/web-evidence.js";
import type { Env } from "../../src/env.js";
import { REACHER_SECRET } from "../fixtures/handlers/reacher.js";
import { WITH_GRAVATAR, WITH_WKD_KEY } from "../fixtures/handlers/web-evidence.js";
import { MAIL_WORLD_GUARD_DOMAINS, MAIL_WORLD_UNIT_SEED, mailWorld } from "../fixtures/mail-world/world.js";

// This file's own copy of the mail world's state (files sharing a seed run side by side).
const WORLD_NS = "smtp-search";
const REACHER_URL = `https://reacher.test/${WORLD_NS}`;

const locals = (first: string, last: string, domain: string, ruledOut: string[] = []) =>
  candidateAddresses({ first, last }, domain, { ruledOut }).map((c) => c.local);

describe("candidates", () => {
  it("writes umlauts expanded first on a German domain and bare first elsewhere", () => {
    expect(locals("Jürgen", "Müller", "acme.de")[0]).toBe("juergen.mueller");
    expect(locals("Jürgen", "Müller", "acme.fr")[0]).toBe("jurgen.muller");
    expect(locals("Jürgen", "Müller", "acme.fr")).toContain("juergen.mueller");
  });

  it("spells ü, ø and å as the domain's own addresses do, not as its country usually does", () => {
    const learnt = (shown: [string, string, string][]) =>
      inferPatterns(shown.map(([first, last, localPart]) => ({ localPart, name: { first, last } })));
    // A German domain whose people write ü as a bare u.
    const bare = learnt([["Jörg", "Schüler", "jorg.schuler"]]);
    expect(candidateAddresses({ first: "Jürgen", last: "Müller" }, "acme.de", { inference: bare })[0]?.local).toBe(
      "jurgen.muller",
    );
    // A Norwegian domain whose people write ø as oe, and one that writes it as o beside umlaut digraphs.
    const digraphs = learnt([["Bjørn", "Dahl", "bjoern.dahl"]]);
    expect(candidateAddresses({ first: "Søren", last: "Lie" }, "fjord.no", { inference: digraphs })[0]?.local).toBe(
      "soeren.lie",
    );
    const bareO = learnt([
      ["Bjørn", "Dahl", "bjorn.dahl"],
      ["Jürgen", "Lie", "juergen.lie"],
    ]);
    expect(candidateAddresses({ first: "Søren", last: "Ødegård" }, "fjord.no", { inference: bareO })[0]?.local).toBe(
      "soren.odegard",
    );
  });

  it("drops a particle (van, de, von) where the domain's own addresses drop it", () => {
    const dropped = inferPatterns([
      { localPart: "jan.dijk", name: { first: "Jan", last: "van Dijk" } },
      { localPart: "lena.weber", name: { first: "Lena", last: "Weber" } },
    ]);
    expect(dropped.particleForm).toBe("last");
    for (const [first, last, expected] of [
      ["Anna", "de Vries", "anna.vries"],
      ["Karl", "von Berg", "karl.berg"],
      ["Gerrit", "van der Meer", "gerrit.meer"],
    ] as const) {
      expect(candidateAddresses({ first, last }, "polder.nl", { inference: dropped })[0]?.local).toBe(expected);
      expect(proposeAddress([], { first, last }, "polder.nl", dropped)?.email).toBe(`${expected}@polder.nl`);
    }
  });

  it("tells two people of one first and last name apart by their middle names (Simone P. and Simone G. De Santis)", () => {
    // Seen on mail-world seed 2006266434: the confirmed address of one was answered for the other.
    const confirmed = {
      email: "spdesantis@ricci.it",
      domain: "ricci.it",
      localPart: "spdesantis",
      type: "personal",
      firstName: "Simone",
      lastName: "De Santis",
      middleName: "Paolo",
      source: "smtp_check",
      firstSeenAt: 1,
      lastSeenAt: 1,
    } as Parameters<typeof proposeAddress>[0][number];
    const other = { first: "Simone", middle: "Giovanni", last: "De Santis" };
    expect(proposeAddress([confirmed], other, "ricci.it")?.email).toBe("sgdesantis@ricci.it");
    expect(proposeAddress([confirmed], { first: "Simone", last: "De Santis" }, "ricci.it")?.email).toBe(
      "spdesantis@ricci.it",
    );
  });

  it("raises family-name-first formats on a Japanese domain", () => {
    const jp = locals("Hiroshi", "Tanaka", "sakura.co.jp");
    const us = locals("Hiroshi", "Tanaka", "sakura.com");
    expect(jp.indexOf("tanaka")).toBeLessThan(us.indexOf("tanaka"));
  });

  it("raises family-name-first formats on a .com domain whose team page shows mostly Japanese, Chinese or Hungarian names", () => {
    const team = ["Kenji Suzuki", "Daisuke Kato", "Yoko Tanaka", "Anna Weber"];
    expect(namesWriteFamilyFirst(team, "Suzuki")).toBe(true);
    expect(namesWriteFamilyFirst(["Nagy Péter", "Kovács Anna"], "Tóth")).toBe(true);
    expect(namesWriteFamilyFirst(["Nguyễn Văn An", "Trần Thị Bình"], "Phạm")).toBe(true);
    // One such name in a Western team says nothing of the company.
    expect(namesWriteFamilyFirst(["Jane Cooper", "Tom Baker", "Mary Smith"], "Wang")).toBe(false);
    // With nothing shown, the asked name decides.
    expect(namesWriteFamilyFirst([], "Tanaka")).toBe(true);
    expect(namesWriteFamilyFirst([], "Cooper")).toBe(false);
    const rank = (domain: string, namesFamilyFirst: boolean) =>
      candidateAddresses({ first: "Kenji", last: "Suzuki" }, domain, { namesFamilyFirst })
        .map((c) => c.local)
        .indexOf("suzuki.kenji");
    expect(rank("kobayashi-sasaki.com", true)).toBeLessThan(rank("kobayashi-sasaki.com", false));
    expect(rank("kobayashi-sasaki.io", true)).toBeLessThan(rank("kobayashi-sasaki.io", false));
    // A domain whose country writes the given name first keeps its order whoever works there.
    expect(rank("kobayashi-sasaki.de", true)).toBe(rank("kobayashi-sasaki.de", false));
    expect(rank("kobayashi-sasaki.com", true)).toBe(rank("kobayashi-sasaki.co.jp", false));
  });

  it("lowers a format under which two of the domain's people would share one address (three colleagues named Alba)", () => {
    // Seen on mail-world seed 684723407 (postgrey: only the prior can answer first): all three Albas
    // of the team page were answered alba@, a format that cannot hold for them all.
    const team = ["Alba Sánchez Torres", "Alba Muñoz Peña", "Noemí Martínez Torres", "Alba Ortega Castaño"];
    const colleagues = team.map((n) => splitFullName(n)!);
    const asked = { first: "Alba", last: "Sánchez Torres" };
    const alone = candidateAddresses(asked, "jimenez-engineering.com").map((c) => c.local);
    expect(alone[0]).toBe("alba");
    const known = candidateAddresses(asked, "jimenez-engineering.com", { colleagues: [asked, ...colleagues] });
    expect(known[0]?.local).toBe("alba.sanchez");
    expect(clashingFormats(colleagues)).toEqual(new Set(["{first}"]));
    // A team whose names all differ under every format changes nothing.
    const distinct = ["Jane Cooper", "Tom Baker"].map((n) => splitFullName(n)!);
    expect(clashingFormats(distinct).size).toBe(0);
    // A large team shows a clash under almost any short format and solves it by hand: one pair of
    // Johns among 40 people says little against {first}.
    const large = Array.from({ length: 39 }, (_, i) => ({
      first: `Name${String.fromCharCode(97 + (i % 26))}${i}`,
      last: `Family${i}`,
    }));
    expect(
      clashingFormats([...large, { first: "John", last: "Smith" }, { first: "John", last: "Doe" }]).has("{first}"),
    ).toBe(false);
    expect(
      clashingFormats([...large.slice(0, 10), { first: "John", last: "Smith" }, { first: "John", last: "Doe" }]).has(
        "{first}",
      ),
    ).toBe(true);
    expect(CLASH_FACTOR).toBeLessThan(0.5);
  });

  it("tries last a format the domain rejected for someone else", () => {
    expect(locals("Jane", "Cooper", "acme.com")[0]).toBe("jane.cooper");
    expect(locals("Jane", "Cooper", "acme.com", ["{first}.{last}"]).indexOf("jane.cooper")).toBeGreaterThan(5);
  });

  it("puts every format not tried yet, even a rare one, before the common formats already rejected", () => {
    const rejected = ["{first}.{last}", "{first}", "{f}{last}", "{first}{last}", "{f}.{last}"];
    const c = locals("Jane", "Cooper", "acme.com", rejected);
    // {l}{first} is among the rarest formats; before, the rejected {first}.{last} still came first.
    expect(c.indexOf("cjane")).toBeLessThan(c.indexOf("jane.cooper"));
    expect(c.indexOf("cooper.j")).toBeLessThan(c.indexOf("jane"));
    expect(RULED_OUT_FACTOR).toBeLessThan(0.02);
  });

  it("rules a rejected format out in every spelling, but not for a nickname's address, and more with each search", () => {
    // Weighing a rejection by how sure its spelling was ("szak-wisniewski" is one of three ways to
    // write Stanisław Żak-Wiśniewski in {f}{last}) lost on the mail world: see RuleOuts.
    const domain = "wozniak-design.pl";
    const stanislaw = candidateAddresses({ first: "Stanisław", last: "Żak-Wiśniewski" }, domain, { limit: 60 });
    const hyphenated = stanislaw.find((c) => c.local === "szak-wisniewski")!;
    expect(withRejections({}, [hyphenated])).toEqual({ "{f}{last}": RULED_OUT_FACTOR });
    const matthew = candidateAddresses({ first: "Matthew", last: "Porter" }, "nord.io", { limit: 60 });
    const nickname = matthew.find((c) => c.nickname && c.pattern === "{first}.{last}")!;
    expect(nickname.local).not.toBe("matthew.porter");
    expect(withRejections({}, [nickname])).toEqual({});
    const twice = withRejections(withRejections({}, [hyphenated]), [hyphenated]);
    expect(twice["{f}{last}"]).toBeCloseTo(RULED_OUT_FACTOR * RULED_OUT_FACTOR);
    // A list stored before reads the same.
    expect(parseRuleOuts('["{first}.{last}"]')).toEqual({ "{first}.{last}": RULED_OUT_FACTOR });
    expect(parseRuleOuts('{"searches":[[{"p":"{first}","h":{}}]]}')).toEqual({});
  });

  it("keeps a Spanish double surname's first part before joining both", () => {
    const c = locals("Lucía", "García López", "olivar.es");
    expect(c.indexOf("lucia.garcia")).toBeLessThan(c.indexOf("lucia.garcialopez"));
  });
});

describe("format frequencies learnt from the index", () => {
  // A domain's reading with one clear leading format (two addresses agreeing).
  const only = (pattern: string) =>
    ({
      ...inferPatterns([]),
      shares: [{ pattern, votes: 2, share: 0.9 }],
      observations: 2,
      confidence: 0.9,
    }) as never;

  it("counts each domain once under its leading format, and moves it when the format changes", async () => {
    const domain = `tally-${crypto.randomUUID().slice(0, 8)}.se`;
    await recordDomainFormat(env, domain, only("{last}.{first}"), "page", 1);
    await recordDomainFormat(env, domain, only("{last}.{first}"), "smtp_check", 2);
    expect(await talliedDomains(env, "SE", "{last}.{first}")).toBe(1);
    await recordDomainFormat(env, domain, only("{first}"), "smtp_check", 3);
    expect(await talliedDomains(env, "SE", "{last}.{first}")).toBe(0);
    expect(await talliedDomains(env, "SE", "{first}")).toBe(1);
  });

  it("leaves a page's unsure reading (one ambiguous address) uncounted", async () => {
    const domain = `tally-${crypto.randomUUID().slice(0, 8)}.fi`;
    await recordDomainFormat(
      env,
      domain,
      inferPatterns([{ localPart: "anna", name: { first: "Anna", last: "Anna" } }]),
      "page",
      1,
    );
    expect((await formatCountsFor(env, domain)).country.size).toBe(0);
  });

  it("ranks a format the index counts at many domains of the country before the built-in order", async () => {
    // With no counts the built-in prior leads with {first}.{last}; a country whose domains mostly write
    // {last}.{f} (counted from their pages) leads with it.
    expect(locals("Ola", "Berg", "fjell.no")[0]).toBe("ola.berg");
    const counts = { all: new Map(), country: new Map([["{last}.{f}", PRIOR_DOMAINS]]) } as never;
    expect(candidateAddresses({ first: "Ola", last: "Berg" }, "fjell.no", { counts })[0]?.local).toBe("berg.o");
  });
});

describe("mail hosts", () => {
  it("groups Google and Microsoft tenants by provider and others by their MX name", () => {
    expect(mailHostOf(["aspmx.l.google.com", "alt1.aspmx.l.google.com"], "a.com")).toBe("google");
    expect(mailHostOf(["a-com.mail.protection.outlook.com"], "a.com")).toBe("microsoft");
    expect(mailHostOf(["mx.ovh.net."], "a.fr")).toBe("mx.ovh.net");
  });
});

const reacherEnv = (over: Record<string, string> = {}) =>
  ({
    ...(env as Env),
    REACHER_URL,
    REACHER_SECRET,
    SMTP_RETRY_QUEUE: undefined,
    ...over,
  }) as Env;

describe("the SMTP gateway", () => {
  it("answers a second check of an address from its cache, without a conversation", async () => {
    const via = reacherEnv();
    const gateway = new SmtpGateway(via, new ReacherProber(REACHER_URL, REACHER_SECRET));
    const first = await gateway.check("valid.cache@probe-verify.test", { mxHosts: ["mx.probe-verify.test"] });
    const again = await gateway.check("valid.cache@probe-verify.test", { mxHosts: ["mx.probe-verify.test"] });
    expect(first).toMatchObject({ deliverable: true, fromCache: false });
    expect(again).toMatchObject({ deliverable: true, fromCache: true });
  });

  it("defers a check its mail host's pace has no room for: unknown (smtp_paced), with a retry time", async () => {
    const via = reacherEnv({ SMTP_HOST_MAX_PER_MINUTE: "1", SMTP_PACE_WAIT_MS: "0" });
    const host = `paced-${crypto.randomUUID().slice(0, 8)}.test`;
    const gateway = new SmtpGateway(via, new ReacherProber(REACHER_URL, REACHER_SECRET));
    await gateway.check("valid.a@probe-verify.test", { mxHosts: [host] });
    const paced = await gateway.check("valid.b@probe-verify.test", { mxHosts: [host] });
    expect(paced).toMatchObject({ paced: true, ran: false });
    expect(paced.retryAt).toBeGreaterThan(Date.now());
  });

  it("keeps at most the cap of checks in flight on one host, however many ask at once", async () => {
    const via = reacherEnv({ SMTP_HOST_MAX_IN_FLIGHT: "1", SMTP_HOST_MAX_PER_MINUTE: "1000" });
    const ns = via.MAIL_HOST_PACER!;
    const pacer = ns.get(ns.idFromName(`mail-host:cap-${crypto.randomUUID()}`));
    const limits = { maxInFlight: 1, perMinute: 1000, leaseMs: 90_000 };
    const answers = await Promise.all([1, 2, 3].map(() => pacer.acquire(limits)));
    expect(answers.filter((a) => "ticket" in a)).toHaveLength(1);
    expect(await pacer.inFlight()).toBe(1);
  });
});

describe("the SMTP cache's retention", () => {
  it("deletes answers older than SMTP_CACHE_SECONDS and keeps fresh ones and deferred ones awaiting a retry", async () => {
    const via = reacherEnv({ SMTP_CACHE_SECONDS: "3600" });
    const t0 = Date.now();
    let clock = t0;
    const gateway = new SmtpGateway(via, new ReacherProber(REACHER_URL, REACHER_SECRET), () => clock);
    await gateway.check("valid.old@probe-verify.test", { mxHosts: ["mx.probe-verify.test"] });
    await gateway.check("greylist@probe-verify.test", { mxHosts: ["mx.probe-verify.test"] });
    clock = t0 + 3_000_000;
    await gateway.check("valid.fresh@probe-verify.test", { mxHosts: ["mx.probe-verify.test"] });
    await pruneSmtpChecks(via, t0 + 3_700_000);
    const left = await env.DB.prepare(
      "SELECT email FROM smtp_checks WHERE email IN ('valid.old@probe-verify.test', 'greylist@probe-verify.test', 'valid.fresh@probe-verify.test') ORDER BY email",
    ).all<{ email: string }>();
    expect(left.results.map((r) => r.email)).toEqual(["greylist@probe-verify.test", "valid.fresh@probe-verify.test"]);
  });
});

describe("the search's checks", () => {
  const world = mailWorld(MAIL_WORLD_UNIT_SEED, MAIL_WORLD_GUARD_DOMAINS);
  // A person at a normal domain whose address is the `rank`-th candidate when the domain shows nothing.
  const personAtRank = (rank: number) => {
    for (const d of world.filter((x) => x.behaviour === "normal"))
      for (const p of d.people.filter((x) => x.state === "active" && !x.middle)) {
        const name = { first: p.first, last: p.last };
        if (candidateAddresses(name, d.domain).findIndex((c) => c.local === p.local) === rank - 1)
          return { d, p, name };
      }
    return null;
  };

  it("spends no check on the accept-all test when a candidate was rejected first (a fifth candidate is reached)", async () => {
    await fetch(`https://fixture-control.test/mail-world/reset?seed=${MAIL_WORLD_UNIT_SEED}`);
    const found = personAtRank(5) ?? personAtRank(4) ?? personAtRank(3);
    expect(found, "a normal-domain person whose format is the 3rd-5th candidate").not.toBeNull();
    const { d, p, name } = found!;
    const rank = candidateAddresses(name, d.domain).findIndex((c) => c.local === p.local) + 1;
    const r = await confirmAddress({ env: reacherEnv(), now: () => Date.now() }, d.domain, name, null);
    expect(r).toMatchObject({ kind: "confirmed", candidate: { local: p.local } });
    // One check per candidate up to the right one: the rejections already proved the domain is not accept-all.
    expect(r!.probes).toBe(rank);
  });

  it("tests a random address before calling a first accepted candidate confirmed", async () => {
    await fetch(`https://fixture-control.test/mail-world/reset?seed=${MAIL_WORLD_UNIT_SEED}`);
    const found = personAtRank(1);
    expect(found, "a normal-domain person whose format is the first candidate").not.toBeNull();
    const { d, p, name } = found!;
    const r = await confirmAddress({ env: reacherEnv(), now: () => Date.now() }, d.domain, name, null);
    expect(r).toMatchObject({ kind: "confirmed", candidate: { local: p.local } });
    expect(r!.probes).toBe(2);
  });

  it("answers accept_all on a domain that accepts everything, never confirmed", async () => {
    await fetch(`https://fixture-control.test/mail-world/reset?seed=${MAIL_WORLD_UNIT_SEED}`);
    const d = world.find((x) => x.behaviour === "catch_all" || x.behaviour === "m365_accept_all")!;
    const p = d.people[0]!;
    const r = await confirmAddress(
      { env: reacherEnv(), now: () => Date.now() },
      d.domain,
      { first: p.first, last: p.last },
      null,
    );
    expect(r?.kind).toBe("accept_all");
    expect(r!.probes).toBeLessThanOrEqual(2);
  });
});

describe("greylisting", () => {
  const greylisting = mailWorld(MAIL_WORLD_UNIT_SEED, MAIL_WORLD_GUARD_DOMAINS).find(
    (d) => d.behaviour === "greylisting" && d.people.some((p) => p.state === "active"),
  )!;

  it("is answered unknown at once (greylisted, not definitive) and valid after the background retry", async () => {
    const control = "https://fixture-control.test/mail-world";
    await fetch(`${control}/reset?seed=${MAIL_WORLD_UNIT_SEED}&ns=${WORLD_NS}`);
    const via = reacherEnv();
    const person = greylisting.people.find((p) => p.state === "active")!;
    const address = `${person.local}@${greylisting.domain}`;
    const now = await verifyEmail(via, address);
    expect(now.data.email).toMatchObject({ status: "unknown", greylisted: true, reason: "smtp_greylisted" });
    expect(now.data.email.note).toMatch(/scheduled for/);
    expect(now.definitive).toBe(false);
    // Time passes on both sides; the queue would deliver the retry then.
    await fetch(
      `${control}/advance?seed=${MAIL_WORLD_UNIT_SEED}&ns=${WORLD_NS}&seconds=${greylisting.greylistSeconds + 3600}`,
    );
    await runDueRetries(via, Date.now() + 3_700_000);
    await runDueRetries(via, Date.now() + 3_700_000 + 3_700_000);
    const later = await verifyEmail(via, address);
    expect(later.data.email).toMatchObject({ status: "valid", greylisted: false });
    expect(later.definitive).toBe(true);
  });
});

describe("web evidence (Gravatar, WKD)", () => {
  it("encodes WKD's hash in z-base-32: 20 bytes of SHA-1 give 32 characters", async () => {
    // The draft's example: the local part "Joe.Doe" (lower-cased) hashes to iy9q119eutrkn8s1mk4r39qejnbu3n5q.
    const urls = await wkdUrls("Joe.Doe@Example.ORG");
    expect(urls[0]).toBe(
      "https://openpgpkey.example.org/.well-known/openpgpkey/example.org/hu/iy9q119eutrkn8s1mk4r39qejnbu3n5q?l=Joe.Doe",
    );
    expect(zBase32(new Uint8Array(20)).length).toBe(32);
  });

  it("builds Gravatar's URL from the SHA-256 of the trimmed, lower-cased address, asking 404 when none", async () => {
    expect(await gravatarUrl(" Jane@Example.com ")).toMatch(/^https:\/\/gravatar\.com\/avatar\/[0-9a-f]{64}\?d=404$/);
  });

  it("raises an accept-all verdict's score with a Gravatar profile or a WKD key, never to valid", async () => {
    const via = reacherEnv();
    const plain = await verifyEmail(via, "nobody.special@catchall-verify.test");
    const gravatar = await verifyEmail(via, WITH_GRAVATAR[0]!);
    const wkd = await verifyEmail(via, WITH_WKD_KEY);
    expect(plain.data.email.status).toBe("accept_all");
    for (const v of [gravatar, wkd]) {
      expect(v.data.email.status).toBe("accept_all");
      expect(v.data.email.score).toBeGreaterThan(plain.data.email.score);
      expect(v.data.email.score).toBeLessThanOrEqual(ACCEPT_ALL_SCORE_CAP);
    }
    expect(gravatar.data.email.note).toMatch(/Gravatar profile/);
    expect(wkd.data.email.note).toMatch(/OpenPGP key/);
  });

  it("says nothing when neither exists (their absence proves nothing)", async () => {
    expect(await webEvidence(reacherEnv(), "no.profile@catchall-verify.test")).toEqual({ gravatar: false, wkd: false });
  });
});

// Greylisting as real servers do it, through Reacher's answers: a server that checks the recipient
// before greylisting (postgrey's DEFER_IF_PERMIT, Exim's `verify = recipient` first) rejects a
// missing mailbox at once and defers a known one; behind Postfix, Reacher's parser reads that
// deferral as a missing mailbox. Each case from the mail world (test/fixtures/mail-world).
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emails } from "../../src/db/schema-index.js";
import { indexFor } from "../../src/db/shards.js";
import { candidateAddresses } from "../../src/engine/finder/candidates.js";
import { confirmAddress } from "../../src/engine/finder/confirm.js";
import { SmtpGateway } from "../../src/engine/verify/probe-gateway.js";
import { ReacherProber } from "../../src/engine/verify/smtp-prober.js";
import { runDueRetries } from "../../src/engine/verify/smtp-retries.js";
import { verifyEmail } from "../../src/engine/verify/verifier.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { REACHER_SECRET } from "../fixtures/handlers/reacher.js";
import {
  MAIL_WORLD_GUARD_DOMAINS,
  MAIL_WORLD_POSTGREY_SEED,
  MAIL_WORLD_UNIT_SEED,
  mailWorld,
} from "../fixtures/mail-world/world.js";
import { createAccount } from "../support/accounts.js";

// This file's own copy of the mail world's state (files sharing a seed run side by side).
const WORLD_NS = "greylisting-styles";
const REACHER_URL = `https://reacher.test/${WORLD_NS}`;

const control = "https://fixture-control.test/mail-world";
const reacherEnv = () => ({ ...(env as Env), REACHER_URL, REACHER_SECRET, SMTP_RETRY_QUEUE: undefined }) as Env;

/** Moves the world's clock and ours by `seconds`, running the retries due by then. */
async function later(via: Env, seed: number, t: { now: number }, seconds: number) {
  await fetch(`${control}/advance?seed=${seed}&ns=${WORLD_NS}&seconds=${seconds}`);
  t.now += seconds * 1000;
  await runDueRetries(via, t.now);
}

describe("postgrey behind Postfix, through Reacher", () => {
  const d = mailWorld(MAIL_WORLD_POSTGREY_SEED, MAIL_WORLD_GUARD_DOMAINS).find(
    (x) => x.behaviour === "greylisting" && x.greylistStyle === "postgrey",
  )!;
  const known = d.people.find((p) => p.state === "active")!;

  it("answers a known mailbox's deferral exactly like a missing mailbox (Reacher's parser matches 'address rejected')", async () => {
    await fetch(`${control}/reset?seed=${MAIL_WORLD_POSTGREY_SEED}&ns=${WORLD_NS}`);
    const prober = new ReacherProber(REACHER_URL, REACHER_SECRET);
    const first = await prober.probe(`${known.local}@${d.domain}`);
    const missing = await prober.probe(`nobody.at.all@${d.domain}`);
    expect(first).toMatchObject({ reachability: "invalid", deliverable: false, greylisted: false });
    expect({ ...first, error: null }).toEqual({ ...missing, error: null });
  });

  it("is not called invalid where the domain's published address reads missing too: unknown now, valid after the retry, a missing one invalid once the retries ran out", async () => {
    await fetch(`${control}/reset?seed=${MAIL_WORLD_POSTGREY_SEED}&ns=${WORLD_NS}`);
    const via = reacherEnv();
    // The imprint's role address, as a crawl of the site stores it.
    const t = { now: Date.now() };
    await (await indexFor(via, d.domain))
      .insert(emails)
      .values({
        email: `info@${d.domain}`,
        domain: d.domain,
        localPart: "info",
        type: "generic",
        firstSeenAt: t.now,
        lastSeenAt: t.now,
      })
      .onConflictDoNothing()
      .run();
    // The verifier's checks on the same clock as the retries (no wall time).
    const verify = (email: string) =>
      verifyEmail(via, email, {
        prober: new SmtpGateway(via, new ReacherProber(REACHER_URL, REACHER_SECRET), () => t.now),
      });
    const address = `${known.local}@${d.domain}`;
    const missing = `nobody.here@${d.domain}`;
    const now = await verify(address);
    expect(now.data.email).toMatchObject({ status: "unknown", greylisted: true, reason: "smtp_greylisted" });
    expect((await verify(missing)).data.email).toMatchObject({ status: "unknown", greylisted: true });
    // The retries (300, 900 and 3600 s apart by default), as the queue delivers them: a "missing"
    // answer is believed at the fourth check, 80 minutes after the first (postgrey's delay: 5).
    for (const step of [300, 900, 3600]) await later(via, MAIL_WORLD_POSTGREY_SEED, t, step + 1);
    expect((await verify(address)).data.email).toMatchObject({ status: "valid" });
    expect((await verify(missing)).data.email).toMatchObject({ status: "invalid" });
  });
});

describe("a server that checks the recipient before greylisting", () => {
  const d = mailWorld(MAIL_WORLD_UNIT_SEED, MAIL_WORLD_GUARD_DOMAINS).find(
    (x) => x.behaviour === "greylisting" && x.greylistStyle === "after_recipient_check",
  )!;
  const person = d.people.find((p) => {
    const rank = candidateAddresses({ first: p.first, last: p.last }, d.domain).findIndex((c) => c.local === p.local);
    return p.state === "active" && !p.middle && rank >= 1 && rank <= 3;
  })!;

  it("names the candidate it defers after rejecting a missing one in the first answer, confirmed after the retry", async () => {
    await fetch(`${control}/reset?seed=${MAIL_WORLD_UNIT_SEED}&ns=${WORLD_NS}`);
    expect(person, "an active person whose address is the 2nd-4th candidate").toBeDefined();
    const via = reacherEnv();
    const t = { now: Date.now() };
    const name = { first: person.first, last: person.last };
    const first = await confirmAddress({ env: via, now: () => t.now }, d.domain, name, null);
    expect(first).toMatchObject({ kind: "deferred", why: "greylisted", held: true, best: { local: person.local } });
    await later(via, MAIL_WORLD_UNIT_SEED, t, d.greylistSeconds + 301);
    const after = await confirmAddress({ env: via, now: () => t.now }, d.domain, name, null);
    expect(after).toMatchObject({ kind: "confirmed", candidate: { local: person.local } });
  });
});

describe("the finder's open answer on a greylisting domain, through /v1", () => {
  const d = mailWorld(MAIL_WORLD_UNIT_SEED, MAIL_WORLD_GUARD_DOMAINS).find(
    (x) => x.behaviour === "greylisting" && x.greylistStyle === "whole_client",
  );

  it("says when its search runs again (verification.retry_at), unknown and unbilled", async () => {
    expect(d, "a domain greylisting every address of a new client").toBeDefined();
    await fetch(`${control}/reset?seed=${MAIL_WORLD_UNIT_SEED}&ns=${WORLD_NS}`);
    const queue = { send: async () => {}, sendBatch: async () => {} };
    const via = { ...reacherEnv(), SMTP_RETRY_QUEUE: queue, CRAWL_QUEUE: queue } as unknown as Env;
    const { headers } = await createAccount({ plan: "scale" });
    const person = d!.people[0]!;
    const before = Date.now();
    const res = await worker.fetch(
      new Request(
        `https://api.test/v1/email-finder?domain=${d!.domain}&first_name=${encodeURIComponent(person.first)}&last_name=${encodeURIComponent(person.last)}`,
        { headers },
      ),
      via,
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: any };
    expect(data.email).toMatch(new RegExp(`@${d!.domain.replace(/\./g, "\\.")}$`));
    expect(data.verification.status).toBe("unknown");
    // When the background search runs again: after now, within the first retry delay (5 minutes).
    const retryAt = Date.parse(data.verification.retry_at);
    expect(retryAt).toBeGreaterThan(before);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 301_000);
    const me = (await (
      await worker.fetch(new Request("https://api.test/v1/me", { headers }), via, createExecutionContext())
    ).json()) as any;
    expect(me.data.requests.domains.used).toBe(0);
  });
});

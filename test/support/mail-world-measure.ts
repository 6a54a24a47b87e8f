// Measures the finder and the verifier on a mail world (test/fixtures/mail-world) through /v1, as a
// customer meets them, with the fixture prober (Reacher's JSON) configured: first answers, then the
// background retries run (time moved forward on both sides), then the same questions again.
// Used by test/engine/mail-world.test.ts (fixed seeds) and bench/mail-world.bench.test.ts (fresh ones).
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { db } from "../../src/db/client.js";
import { smtpChecks, smtpDomains } from "../../src/db/schema-smtp.js";
import { candidateAddresses, parseRuleOuts, type RuleOuts } from "../../src/engine/finder/candidates.js";
import type { ProbeResult } from "../../src/engine/verify/smtp-prober.js";
import { runDueRetries } from "../../src/engine/verify/smtp-retries.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { REACHER_SECRET } from "../fixtures/handlers/reacher.js";
import { shownName } from "../fixtures/mail-world/site.js";
import { type Behaviour, gravatarShareOf, mailWorld, type WorldDomain } from "../fixtures/mail-world/world.js";
import { createAccount } from "./accounts.js";

const CONTROL = "https://fixture-control.test/mail-world";
/** The background retries: every 5 minutes for 3 hours, each retry due by then runs (as the queue delivers it). */
const RETRY_STEP_MIN = 5;
const RETRY_HORIZON_MIN = 180;

export interface FinderRow {
  domain: string;
  behaviour: Behaviour;
  person: string;
  expected: string;
  first: FinderAnswerSeen;
  after: FinderAnswerSeen;
  probes: number;
  billedFirst: boolean;
  /** The person's place among the domain's people asked (0: the first one). */
  order: number;
  /** What the domain's earlier rejections had left of each format when the person was asked. */
  ruledOutBefore: RuleOuts;
}

/** What a finder answer said; `detail` keeps the body's other bits, so an unexpected answer explains itself. */
export interface FinderAnswerSeen {
  email: string | null;
  status: string | null;
  acceptAll: boolean | null;
  score: number | null;
  http: number;
  detail: string;
}

export interface VerifierRow {
  email: string;
  truth: TruthClass;
  first: { status: string; result: string; greylisted: boolean; block: boolean };
  after: { status: string; result: string; greylisted: boolean; block: boolean };
}

type MailboxClass = "deliverable" | "full" | "disabled" | "nonexistent";
/** What the address is; on a greylisting server the first answer is deferred, the later one the mailbox's. */
export type TruthClass = MailboxClass | "accept_all" | "refused" | `greylisted_${MailboxClass}`;

export interface MailWorldMeasures {
  seed: number;
  domains: WorldDomain[];
  finder: FinderRow[];
  verifier: VerifierRow[];
  maxInFlight: Record<string, number>;
  cap: number;
}

function worldEnv(): Env {
  // Retries are run by runDueRetries below, at the times the queue would deliver them.
  const SMTP_RETRY_QUEUE = { send: async () => {}, sendBatch: async () => {} };
  const CRAWL_QUEUE = { send: async () => {}, sendBatch: async () => {} };
  return {
    ...(env as Env),
    REACHER_URL: "https://reacher.test",
    REACHER_SECRET,
    // The world asks hundreds of checks in seconds; a deployment's per-minute pace (default 30 per
    // host) would defer most of them. In-flight caps stay at their default: that is what is measured.
    SMTP_HOST_MAX_PER_MINUTE: "100000",
    // A check waiting for its mail host's slot waits until a running check releases one (the test's
    // own timeout bounds it), not 10 s of wall time (the default): on a busy machine the checks in
    // flight at a shared host (Microsoft, Google) can hold both slots that long, and the waiting
    // search is then deferred as paced, which no world behaviour caused.
    SMTP_PACE_WAIT_MS: "300000",
    SMTP_RETRY_QUEUE,
    CRAWL_QUEUE,
  } as unknown as Env;
}

async function getJson(via: Env, path: string, headers: Record<string, string>) {
  const res = await worker.fetch(new Request(`https://api.test${path}`, { headers }), via, createExecutionContext());
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as any };
  } catch {
    return { status: res.status, body: text as any };
  }
}

async function searchesUsed(via: Env, headers: Record<string, string>): Promise<number> {
  return (await getJson(via, "/v1/me", headers)).body.data.requests.domains.used;
}

async function control(seed: number, action: string, query = "") {
  return (await (await fetch(`${CONTROL}/${action}?seed=${seed}${query}`)).json()) as any;
}

async function probesOf(seed: number, domain: string): Promise<number> {
  return (await control(seed, "stats")).probesByDomain[domain] ?? 0;
}

function truthOf(d: WorldDomain, state: "active" | "full" | "disabled" | "none"): TruthClass {
  if (d.behaviour === "catch_all" || d.behaviour === "m365_accept_all") return "accept_all";
  if (d.behaviour === "refuses_prober") return "refused";
  const mailbox: MailboxClass = state === "active" ? "deliverable" : state === "none" ? "nonexistent" : state;
  // A server that checks recipients before greylisting says at once that a mailbox does not exist;
  // through Reacher, postgrey's deferral reads the same as that answer, so there neither is known at once.
  if (d.behaviour === "greylisting" && state === "none" && d.greylistStyle === "after_recipient_check")
    return "nonexistent";
  return d.behaviour === "greylisting" ? `greylisted_${mailbox}` : mailbox;
}

const finderAnswer = (r: { status: number; body: any }) => ({
  email: r.body?.data?.email ?? null,
  status: r.body?.data?.verification?.status ?? null,
  acceptAll: r.body?.data?.accept_all ?? null,
  score: r.body?.data?.score ?? null,
  http: r.status,
  detail: answerDetail(r.body),
});

/** The answer's bits besides those read above: verification, billing, the error of a 4xx/5xx. */
function answerDetail(body: any): string {
  if (typeof body !== "object" || body === null) return `body ${String(body).slice(0, 200)}`;
  const { verification, billable, pattern, sources } = body.data ?? {};
  return JSON.stringify({
    verification,
    billable,
    pattern,
    sources: Array.isArray(sources) ? sources.length : sources,
    ...(body.errors || body.error ? { error: body.errors ?? body.error } : {}),
  });
}

/** The domain's stored SMTP checks (the gateway's cache), each as the prober's reading or the gateway's error. */
async function storedChecks(via: Env, domain: string): Promise<string> {
  const rows = await db(via.DB).select().from(smtpChecks).where(eq(smtpChecks.domain, domain)).all();
  const read = rows.map((row) => {
    const p = JSON.parse(row.result) as ProbeResult;
    const bits = p.paced ? "paced" : p.catchAll ? "catch_all" : p.error ? `error ${p.error}` : p.reachability;
    return `${row.email} ${bits}${row.retryAt !== null ? " (retry pending)" : ""}`;
  });
  return `stored checks: ${read.join(", ") || "none"}`;
}

const verdictOf = (r: { status: number; body: any }) => ({
  status: r.body?.data?.email?.status ?? `http ${r.status}`,
  result: r.body?.data?.email?.result ?? "",
  greylisted: r.body?.data?.email?.greylisted ?? false,
  block: r.body?.data?.email?.block ?? false,
});

/** Runs the whole measurement on `count` domains of `seed`, `concurrency` domains at a time. */
export async function measureMailWorld(seed: number, count: number, concurrency = 4): Promise<MailWorldMeasures> {
  await control(seed, "reset");
  const via = worldEnv();
  // The share the fixture network drew the world with (MAIL_WORLD_GRAVATAR_SHARE reaches both).
  const domains = mailWorld(seed, count, gravatarShareOf(env as { MAIL_WORLD_GRAVATAR_SHARE?: string }));
  const finder: FinderRow[] = [];
  const verifier: VerifierRow[] = [];
  const accounts = new Map<string, Record<string, string>>();
  const finderPath = (d: WorldDomain, p: WorldDomain["people"][number]) =>
    p.middle
      ? `/v1/email-finder?domain=${encodeURIComponent(d.domain)}&full_name=${encodeURIComponent(shownName(p))}`
      : `/v1/email-finder?domain=${encodeURIComponent(d.domain)}&first_name=${encodeURIComponent(p.first)}&last_name=${encodeURIComponent(p.last)}`;
  const verifierPath = (email: string) => `/v1/email-verifier?email=${encodeURIComponent(email)}`;
  const probe = (d: WorldDomain) => [
    ...d.people.map((p) => ({ email: `${p.local}@${d.domain}`, truth: truthOf(d, p.state) })),
    { email: `nobody.here.${d.index}@${d.domain}`, truth: truthOf(d, "none") },
  ];

  // First answers: the people of a domain one after the other, several domains at once.
  const queue = [...domains];
  const workers = Array.from({ length: concurrency }, async () => {
    for (let d = queue.shift(); d; d = queue.shift()) {
      // One account per domain: its searches counter tells what each of its calls was billed.
      const { headers } = await createAccount({ plan: "scale" });
      accounts.set(d.domain, headers);
      // The domain's probes and the account's searches are read once before its first person and
      // after each answer: a domain's people are asked one after the other on their own account, so
      // one person's counts after are the next one's before.
      let probes = await probesOf(seed, d.domain);
      let used = await searchesUsed(via, headers);
      for (const [order, p] of d.people.entries()) {
        const state = await db(via.DB).select().from(smtpDomains).where(eq(smtpDomains.domain, d.domain)).get();
        const r = await getJson(via, finderPath(d, p), headers);
        const first = finderAnswer(r);
        const [probesAfter, usedAfter] = [await probesOf(seed, d.domain), await searchesUsed(via, headers)];
        if (ACCEPTS_ALL.includes(d.behaviour) && !flagged(first))
          first.detail += `; ${await storedChecks(via, d.domain)}`;
        finder.push({
          domain: d.domain,
          behaviour: d.behaviour,
          person: shownName(p),
          expected: `${p.local}@${d.domain}`,
          first,
          after: first,
          probes: probesAfter - probes,
          billedFirst: usedAfter > used,
          order,
          ruledOutBefore: parseRuleOuts(state?.ruledOut),
        });
        [probes, used] = [probesAfter, usedAfter];
      }
      for (const v of probe(d)) {
        const r = await getJson(via, verifierPath(v.email), headers);
        verifier.push({ email: v.email, truth: v.truth, first: verdictOf(r), after: verdictOf(r) });
      }
    }
  });
  await Promise.all(workers);

  // The background retries, at the times the queue delivers them.
  for (let minutes = RETRY_STEP_MIN; minutes <= RETRY_HORIZON_MIN; minutes += RETRY_STEP_MIN) {
    await control(seed, "advance", `&seconds=${RETRY_STEP_MIN * 60}`);
    await runDueRetries(via, Date.now() + minutes * 60_000);
  }

  // The same questions again.
  for (const row of finder) {
    const d = domains.find((x) => x.domain === row.domain)!;
    const p = d.people.find((x) => shownName(x) === row.person)!;
    row.after = finderAnswer(await getJson(via, finderPath(d, p), accounts.get(d.domain)!));
  }
  for (const row of verifier) {
    const domain = row.email.slice(row.email.lastIndexOf("@") + 1);
    row.after = verdictOf(await getJson(via, verifierPath(row.email), accounts.get(domain)!));
  }
  const stats = await control(seed, "stats");
  return {
    seed,
    domains,
    finder,
    verifier,
    maxInFlight: stats.maxInFlight,
    cap: Number(env.SMTP_HOST_MAX_IN_FLIGHT || 2),
  };
}

const ACCEPTS_ALL: Behaviour[] = ["catch_all", "m365_accept_all"];
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}% (${n}/${d})` : "n/a");

/** Whether a verdict is right for its truth class (first answer, and after the retries). */
export function verdictRight(truth: TruthClass, v: VerifierRow["first"], after: boolean): boolean {
  if (truth.startsWith("greylisted_")) {
    const mailbox = truth.slice("greylisted_".length) as MailboxClass;
    return after ? verdictRight(mailbox, v, true) : v.status === "unknown" && v.greylisted;
  }
  switch (truth) {
    case "deliverable":
      return v.status === "valid" && v.result === "deliverable";
    case "full":
      return v.status === "valid" && v.result === "risky";
    case "disabled":
    case "nonexistent":
      return v.status === "invalid";
    case "accept_all":
      return v.status === "accept_all";
    case "refused":
      return v.status === "unknown" && v.block;
    default:
      return false;
  }
}

/** An answer flagged as the accept-all domain's guess, as the customer must see it. */
const flagged = (a: FinderAnswerSeen) => a.acceptAll === true && a.status === "accept_all";
const isFlagged = (r: FinderRow) => flagged(r.first);

export function summarise(m: MailWorldMeasures) {
  const confirmable = m.finder.filter((r) => !ACCEPTS_ALL.includes(r.behaviour) && r.behaviour !== "refuses_prober");
  const top1First = confirmable.filter((r) => r.first.email === r.expected).length;
  const top1After = confirmable.filter((r) => r.after.email === r.expected).length;
  const honest = m.finder.filter((r) => ACCEPTS_ALL.includes(r.behaviour) || r.behaviour === "refuses_prober");
  const validClaims = honest.filter((r) => r.first.status === "valid" || r.after.status === "valid").length;
  const acceptAllFlagged = m.finder.filter((r) => ACCEPTS_ALL.includes(r.behaviour) && isFlagged(r)).length;
  const probes = m.finder.map((r) => r.probes);
  const classes = [...new Set(m.verifier.map((v) => v.truth))].sort();
  const perClass = classes.map((c) => {
    const rows = m.verifier.filter((v) => v.truth === c);
    return {
      truth: c,
      first: rows.filter((v) => verdictRight(c, v.first, false)).length,
      after: rows.filter((v) => verdictRight(c, v.after, true)).length,
      total: rows.length,
    };
  });
  const maxInFlight = Math.max(0, ...Object.values(m.maxInFlight));
  const unbilledUnknown = m.finder.filter((r) => r.first.status === "unknown" && r.billedFirst).length;
  return {
    top1First,
    top1After,
    confirmable: confirmable.length,
    validClaims,
    honestAnswers: honest.length,
    acceptAllFlagged,
    acceptAllAnswers: m.finder.filter((r) => ACCEPTS_ALL.includes(r.behaviour)).length,
    probesMean: probes.length ? probes.reduce((a, b) => a + b, 0) / probes.length : 0,
    probesMax: Math.max(0, ...probes),
    perClass,
    maxInFlight,
    unbilledUnknown,
  };
}

/**
 * Why a first answer missed, for the bench's classification: the rank the expected address has among
 * the person's candidates with no evidence at the domain (what the first person at a domain meets).
 */
export function firstMissCause(m: MailWorldMeasures, r: FinderRow): string {
  const d = m.domains.find((x) => x.domain === r.domain)!;
  const p = d.people.find((x) => shownName(x) === r.person)!;
  const name = { first: p.first, last: p.last, ...(p.middle ? { middle: p.middle } : {}) };
  const local = r.expected.slice(0, r.expected.lastIndexOf("@"));
  const rank = candidateAddresses(name, d.domain, { limit: 50 }).findIndex((c) => c.local === local);
  // The rank the address had when the person was asked (after the earlier people's rejections; the
  // index's format counts, which change with the order domains complete in, are left out).
  const rankThen = candidateAddresses(name, d.domain, { limit: 50, ruledOut: r.ruledOutBefore }).findIndex(
    (c) => c.local === local,
  );
  const where = rank < 0 ? "not among the candidates" : `rank ${rank + 1} (then ${rankThen + 1})`;
  const formatLeft = r.ruledOutBefore[d.format as keyof RuleOuts] ?? 1;
  let cause: string;
  if (r.behaviour === "greylisting" && r.first.status === "unknown")
    cause = `greylisted ${d.greylistStyle} (open guess wrong)`;
  else if (rank < 0) cause = "name variant missing";
  else if (formatLeft < 0.5) cause = "format ruled out by an earlier person's rejection";
  // Only a self-hosted server gets the published-address test (never Google's or Microsoft's).
  else if (r.first.status === "unknown" && rankThen < 5 && d.provider === "other")
    cause = "check spent elsewhere (published-address test)";
  else if (r.first.status === "unknown") cause = "budget used (format outside the checks)";
  else cause = "wrong answer";
  return `${cause}; ${where}, format ${d.format}, culture ${d.culture}, person ${r.order + 1} of ${d.people.length}, ${d.provider} mail`;
}

export function mailWorldReport(m: MailWorldMeasures): string {
  const s = summarise(m);
  const behaviours: Record<string, number> = {};
  for (const d of m.domains) behaviours[d.behaviour] = (behaviours[d.behaviour] ?? 0) + 1;
  const misses = m.finder
    .filter(
      (r) => !ACCEPTS_ALL.includes(r.behaviour) && r.behaviour !== "refuses_prober" && r.after.email !== r.expected,
    )
    .map(
      (r) =>
        `  miss ${r.behaviour}: ${r.person} expected ${r.expected}, first ${r.first.email} (${r.first.status}), after ${r.after.email} (${r.after.status})`,
    );
  const firstMisses = m.finder
    .filter(
      (r) => !ACCEPTS_ALL.includes(r.behaviour) && r.behaviour !== "refuses_prober" && r.first.email !== r.expected,
    )
    .map((r) => ({ r, cause: firstMissCause(m, r) }));
  const causes: Record<string, number> = {};
  for (const { cause } of firstMisses) {
    const key = cause.slice(0, cause.indexOf(";"));
    causes[key] = (causes[key] ?? 0) + 1;
  }
  // Where nothing a check says can help the first answer: a server deferring every address (whole
  // client) or reading as nonexistent through Reacher (postgrey) until its delay has passed.
  const confirmable = m.finder.filter((r) => !ACCEPTS_ALL.includes(r.behaviour) && r.behaviour !== "refuses_prober");
  const priorOnly = confirmable.filter((r) => {
    const d = m.domains.find((x) => x.domain === r.domain)!;
    return d.behaviour === "greylisting" && d.greylistStyle !== "after_recipient_check";
  }).length;
  const firstMissLines = [
    `people whose first answer can only be the prior's guess (whole_client or postgrey greylisting): ${pct(priorOnly, confirmable.length)}`,
    `first-answer misses by cause: ${
      Object.entries(causes)
        .map(([c, n]) => `${c} ${n}`)
        .join(", ") || "none"
    }`,
    ...firstMisses.map(
      ({ r, cause }) =>
        `  first miss ${r.behaviour}: ${r.person} expected ${r.expected}, first ${r.first.email} (${r.first.status}, ${r.probes} probes): ${cause}`,
    ),
  ];
  // Why an answer on a domain that accepts every address was not flagged so (status, HTTP, body).
  const unflagged = m.finder
    .filter((r) => ACCEPTS_ALL.includes(r.behaviour) && !isFlagged(r))
    .map(
      (r) =>
        `  unflagged ${r.behaviour}: ${r.person} at ${r.domain} (person ${r.order + 1}), first ${r.first.email} status ${r.first.status}, accept_all ${r.first.acceptAll}, score ${r.first.score}, http ${r.first.http}, ${r.probes} probes; ${r.first.detail}`,
    );
  const wrongVerdicts = m.verifier
    .filter((v) => !verdictRight(v.truth, v.after, true) || !verdictRight(v.truth, v.first, false))
    .map(
      (v) =>
        `  verdict ${v.truth}: ${v.email} first ${v.first.status}/${v.first.result} after ${v.after.status}/${v.after.result}`,
    );
  const people = m.domains.flatMap((d) => d.people);
  const web = `web evidence: Gravatar share ${((m.domains[0]?.gravatarShare ?? 0) * 100).toFixed(0)}%, ${people.filter((p) => p.gravatar).length} people with a profile, ${people.filter((p) => p.wkdKey).length} with a WKD key (${m.domains.filter((d) => d.wkd).length} domains publish one)`;
  return [
    `mail world seed ${m.seed}: ${m.domains.length} domains (${Object.entries(behaviours)
      .map(([b, n]) => `${b} ${n}`)
      .join(", ")}), ${m.finder.length} people`,
    `finder top-1 where the domain does not accept everything: first answer ${pct(s.top1First, s.confirmable)}, after background retries ${pct(s.top1After, s.confirmable)}`,
    `honesty: valid claims on accept-all or refusing domains ${s.validClaims} of ${s.honestAnswers} answers; accept-all answers flagged accept_all ${pct(s.acceptAllFlagged, s.acceptAllAnswers)}; unknown answers billed ${s.unbilledUnknown}`,
    `verifier per truth class (first answer / after retries): ${s.perClass.map((c) => `${c.truth} ${pct(c.first, c.total)} / ${pct(c.after, c.total)}`).join("; ")}`,
    web,
    `probes per finder answer: mean ${s.probesMean.toFixed(2)}, max ${s.probesMax}`,
    `most checks in flight per mail host: ${s.maxInFlight} (cap ${m.cap}; ${Object.entries(m.maxInFlight)
      .map(([h, n]) => `${h} ${n}`)
      .join(", ")})`,
    ...firstMissLines,
    ...misses,
    ...unflagged,
    ...wrongVerdicts,
  ].join("\n");
}

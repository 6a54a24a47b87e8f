// Measures the engine on generated fixture sites (test/fixtures/generator) the way a
// customer meets it: through the Worker's /v1 routes, on an unlimited plan. Per site:
//   1. domain-search                 -> the first answer (first crawl pass only),
//   2. the deep pass, handed to the deep-crawl consumer as the queue would: tests leave the
//      deep-crawl queue unconsumed, so the first domain-search runs with a queue binding that
//      records the message the first pass queued, and exactly that message is consumed (a replay
//      of the first pass would meet a changed site: pages failing at first answer the replay, which
//      marks them done, and the deep pass then skips what the first answer never had),
//   3. domain-search again           -> the settled answer,
//   4. email-format                  -> format top-1 (also asked once before the deep pass),
//   5. email-finder per probe        -> finder top-1,
//   6. email-verifier                -> never `deliverable` without SMTP proof (tests have no prober).
// `summarize` turns the measures into totals, misses with their likely cause, and breakdowns (by
// format, culture, display order and, on real-web sites, by feature). Before each site's first
// answer the site's per-run fixture state is reset, so pages that fail on their first requests
// fail for the measured first pass as they would in production.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { indexFor } from "../../src/db/shards.js";
import { shownNamesOf } from "../../src/engine/index/read.js";
import { DEEP_CRAWL_QUEUE, type DeepCrawlMessage } from "../../src/engine/web/crawl/deep-crawl-queue.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import {
  ALL_RULES,
  FEATURES,
  type GeneratedSite,
  localPart,
  type Person,
  RULE_NAMES,
  resetUrl,
  type SiteLabels,
  WIDER_FEATURES,
} from "../fixtures/generator/index.js";
import type { Format } from "../fixtures/generator/spelling.js";
import { call, createAccount } from "./accounts.js";

export const GOALS = { format: 0.97, finder: 0.95, first: 0.95, settled: 0.98, precision: 1 } as const;
/** The goals on real-web sites: first answers may wait for the deep pass more often; each feature ≥ 95%. */
export const REAL_WEB_GOALS = {
  format: 0.97,
  finder: 0.95,
  first: 0.9,
  settled: 0.98,
  featureSettled: 0.95,
  precision: 1,
} as const;

interface Listed {
  email: string;
  first_name: string | null;
  last_name: string | null;
}

export interface SiteMeasure {
  labels: SiteLabels;
  first: Listed[];
  settled: Listed[];
  formatFirst: string | null;
  formats: { format: string; percentage: number }[];
  finder: { expected: string; got: string | null; status: number }[];
  verifier: { email: string; status: string | null; result: string | null }[];
  deepAcked: boolean;
  ms: number;
  /** Wall time of the first answer (the first pass on the request path, through /v1). */
  firstMs: number;
  /** Names the index keeps as people (listed or shown without an address) that are company names the site shows. */
  companyPeople: string[];
}

/** Calls the Worker with `via` as its env (a recording queue binding), or as a client does. */
async function send(path: string, headers: Record<string, string>, via?: Env): Promise<Response> {
  if (!via) return call(path, { headers });
  // What the call leaves running (its request-log row, a late charge) finishes on its own, as after a client's call.
  return worker.fetch(new Request(`https://api.test${path}`, { headers }), via, createExecutionContext());
}

async function getJson(
  path: string,
  headers: Record<string, string>,
  via?: Env,
): Promise<{ status: number; body: any }> {
  const res = await send(path, headers, via);
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

async function listAll(domain: string, headers: Record<string, string>, via?: Env): Promise<Listed[]> {
  const out: Listed[] = [];
  for (let page = 1; page <= 5; page++) {
    const { status, body } = await getJson(
      `/v1/domain-search?domain=${encodeURIComponent(domain)}&limit=100&page=${page}`,
      headers,
      via,
    );
    if (status !== 200)
      throw new Error(`domain-search ${domain} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
    out.push(
      ...(body.data.emails as Listed[]).map((e) => ({
        email: e.email.toLowerCase(),
        first_name: e.first_name,
        last_name: e.last_name,
      })),
    );
    if (page >= body.meta.total_pages) break;
  }
  return out;
}

async function formatsOf(domain: string, headers: Record<string, string>) {
  const { status, body } = await getJson(`/v1/email-format?domain=${encodeURIComponent(domain)}`, headers);
  if (status !== 200)
    throw new Error(`email-format ${domain} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.data as { format: string; percentage: number }[];
}

/** Resets the fixture network's per-run state of a generated site (its failing-at-first pages). */
async function resetSite(domain: string): Promise<void> {
  const res = await fetch(resetUrl(domain));
  if (res.status !== 204) throw new Error(`fixture reset of ${domain} answered ${res.status}`);
}

/** The test env with a deep-crawl queue that keeps what is sent to it (as JSON, as the queue would). */
function recordingQueueEnv(): { via: Env; sent: DeepCrawlMessage[] } {
  const sent: DeepCrawlMessage[] = [];
  const CRAWL_QUEUE = {
    send: async (body: unknown) => void sent.push(JSON.parse(JSON.stringify(body)) as DeepCrawlMessage),
    sendBatch: async (messages: Iterable<{ body: unknown }>) => {
      for (const m of messages) sent.push(JSON.parse(JSON.stringify(m.body)) as DeepCrawlMessage);
    },
  };
  return { via: { ...(env as Env), CRAWL_QUEUE } as unknown as Env, sent };
}

/** Hands the message the first pass queued to the deep-crawl consumer; false when none was queued or it was not acknowledged. */
async function runDeepPass(domain: string, queued: DeepCrawlMessage | undefined): Promise<boolean> {
  if (!queued) return false;
  const id = `deep-${domain}`;
  const batch = createMessageBatch(DEEP_CRAWL_QUEUE, [{ id, timestamp: new Date(), attempts: 1, body: queued }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  return result.explicitAcks.includes(id);
}

export async function measureSite(site: GeneratedSite, headers: Record<string, string>): Promise<SiteMeasure> {
  const started = Date.now();
  const { labels } = site;
  const domain = labels.domain;
  await resetSite(domain);
  const queue = recordingQueueEnv();
  const first = await listAll(domain, headers, queue.via);
  const firstMs = Date.now() - started;
  const formatFirst = (await formatsOf(domain, headers))[0]?.format ?? null;
  const deepAcked = await runDeepPass(
    domain,
    queue.sent.find((m) => m.domain === domain),
  );
  const settled = await listAll(domain, headers);
  const formats = await formatsOf(domain, headers);
  const companyPeople = await companiesKeptAsPeople(labels, settled);
  const finder = [];
  for (const probe of labels.probes) {
    const q = new URLSearchParams({
      domain,
      ...(probe.fullName ? { full_name: probe.fullName } : { first_name: probe.first, last_name: probe.last }),
    });
    const { status, body } = await getJson(`/v1/email-finder?${q}`, headers);
    finder.push({
      expected: probe.expected,
      got: status === 200 ? ((body.data.email as string | null)?.toLowerCase() ?? null) : null,
      status,
    });
  }
  const verifier = [];
  const toVerify = [labels.published.find((p) => p.kind === "personal")?.email, labels.probes[0]?.expected].filter(
    (e): e is string => !!e,
  );
  for (const email of toVerify) {
    const { status, body } = await getJson(`/v1/email-verifier?email=${encodeURIComponent(email)}`, headers);
    verifier.push({
      email,
      status: status === 200 ? body.data.email.status : `http ${status}`,
      result: status === 200 ? body.data.email.result : null,
    });
  }
  return {
    labels,
    first,
    settled,
    formatFirst,
    formats,
    finder,
    verifier,
    deepAcked,
    ms: Date.now() - started,
    firstMs,
    companyPeople,
  };
}

/**
 * The company names a site shows where a person's name may stand ("Hendriks Engineering", "©
 * Müller Consulting Inc.") that the index keeps as people: a listed address's name, or a name shown
 * without an address (read from the index: the finder's colleagues, which no route lists).
 */
async function companiesKeptAsPeople(labels: SiteLabels, settled: Listed[]): Promise<string[]> {
  const companies = (labels.companyNames ?? []).map(wordsOf);
  if (!companies.length) return [];
  const shown = await shownNamesOf(await indexFor(env, labels.domain), labels.domain);
  const names = [
    ...shown.flatMap((r) => (r.fullName ? [r.fullName] : [])),
    ...settled.flatMap((e) =>
      e.first_name && e.last_name ? [`${e.first_name} ${e.last_name}`, `${e.last_name} ${e.first_name}`] : [],
    ),
  ];
  return [
    ...new Set(
      names.filter((n) => {
        const words = wordsOf(n);
        return words.length >= 2 && companies.some((c) => c.slice(0, words.length).join(" ") === words.join(" "));
      }),
    ),
  ];
}

const wordsOf = (name: string) => name.toLowerCase().replace(/[©,]/g, " ").split(/\s+/).filter(Boolean);

/** Measures every site, `concurrency` at a time, with one account on an unlimited plan. */
export async function measureSites(sites: GeneratedSite[], concurrency = 1): Promise<SiteMeasure[]> {
  const { headers } = await createAccount({ plan: "scale" });
  const out: SiteMeasure[] = new Array(sites.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, sites.length) }, async () => {
    while (next < sites.length) {
      const i = next++;
      out[i] = await measureSite(sites[i]!, headers);
    }
  });
  await Promise.all(workers);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Totals, misses and their causes.

export interface Miss {
  site: string;
  seed: number;
  measure: "first" | "settled" | "precision" | "trap" | "format" | "finder" | "verifier" | "robots";
  cause:
    | "format"
    | "culture"
    | "display order"
    | "spelling rule"
    | "publishing form"
    | "page structure"
    | "trap"
    | "stated convention"
    | "robots.txt"
    | "other";
  detail: string;
}

export interface Totals {
  sites: number;
  published: number;
  firstHits: number;
  settledHits: number;
  returned: number;
  returnedPublished: number;
  trapsReturned: number;
  formatHits: number;
  formatFirstHits: number;
  probes: number;
  finderHits: number;
  verified: number;
  deliverable: number;
  namesRead: number;
  namesRight: number;
  namesReversed: number;
  deepFailures: number;
  ms: number;
  /** First-answer wall times: the longest and the sum of all sites; the sum and longest on sites with the transient feature. */
  firstMaxMs: number;
  firstMs: number;
  /** Sites that publish an address in a linked document (PDF, Word, Excel), and the sum of their first-answer times. */
  documentSites: number;
  documentFirstMs: number;
  transientSites: number;
  transientFirstMs: number;
  transientFirstMaxMs: number;
  /** Addresses published only in a document (PDF, Word, Excel): read by the deep pass, by design. */
  documentOnly: number;
  /** Of those, found in the first answer all the same (another page shows them too). */
  documentOnlyFirstHits: number;
  /** Addresses shown only on pages robots.txt forbids: not counted as published (a reader must not see them). */
  forbidden: number;
  /** Company names kept as people, and the company names shown where a person's name may stand. */
  companyPeople: number;
  companyNames: number;
}

const fmt = (n: number, d: number) => (d === 0 ? "n/a" : `${((100 * n) / d).toFixed(1)}%`);

/** Swaps the given and family name parts of a format: the format a mirrored reading reports. */
export function mirrorOf(format: string): string {
  return format.replace(
    /\{(first|last|f|l)\}/g,
    (_, k: string) => `{${{ first: "last", last: "first", f: "l", l: "f" }[k]}}`,
  );
}

const plain = (s: string | null | undefined) =>
  (s ?? "")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z]/g, "");

function siteFeatures(l: SiteLabels): string {
  return `lang=${l.lang} display=${l.displayOrder} cultures=${l.cultures.join("+")} layout=${l.layout}${l.paginated ? "+pages" : ""} rules shown=[${l.rulesShown.join(",")}]${l.statedConvention ? " stated-convention" : ""}`;
}

/** Why the finder's answer differs, judged from the probe's name and the site's rules. */
function finderCause(
  l: SiteLabels,
  person: Person,
  got: string | null,
  formatRight: boolean,
): { cause: Miss["cause"]; why: string } {
  if (!formatRight) return { cause: "format", why: "the site's format was not read" };
  if (got === null) return { cause: "other", why: "no answer" };
  const local = got.split("@")[0]!;
  // The spelling rules (fewest changed first) under which the site's format gives the answer.
  const explanations = ALL_RULES.filter((r) => localPart(person, l.format, r) === local)
    .map((r) => RULE_NAMES.filter((n) => r[n] !== l.rules[n]).map((n) => `${n}=${r[n]} instead of ${l.rules[n]}`))
    .filter((changed) => changed.length > 0)
    .sort((a, b) => a.length - b.length);
  if (explanations.length) return { cause: "spelling rule", why: explanations[0]!.join(", ") };
  const swapped: Person = {
    ...person,
    given: person.family.join(person.familyJoiner),
    family: [person.given],
    particle: undefined,
    nickname: undefined,
  };
  if (localPart(swapped, l.format, l.rules) === local)
    return { cause: "display order", why: "given and family name swapped" };
  return { cause: "culture", why: `name features: ${person.culture}` };
}

type Breakdown = Map<string, [number, number, number, number]>;

/** One real-web feature (or variant): site measures over the sites that carry it, recall over its addresses. */
export type FeatureCounts = Pick<
  Totals,
  | "sites"
  | "published"
  | "firstHits"
  | "settledHits"
  | "returned"
  | "returnedPublished"
  | "formatHits"
  | "probes"
  | "finderHits"
  | "verified"
  | "deliverable"
>;

const noCounts = (): FeatureCounts => ({
  sites: 0,
  published: 0,
  firstHits: 0,
  settledHits: 0,
  returned: 0,
  returnedPublished: 0,
  formatHits: 0,
  probes: 0,
  finderHits: 0,
  verified: 0,
  deliverable: 0,
});
const mainFeature = (f: string) => !f.includes(":");

export interface Summary {
  totals: Totals;
  misses: Miss[];
  byFormat: Breakdown;
  byCulture: Breakdown;
  byDisplay: Breakdown;
  /** Real-web sites: per feature and per variant ("charset:shift_jis", "microdata:link"). */
  byFeature: Map<string, FeatureCounts>;
}

export function summarize(measures: SiteMeasure[]): Summary {
  const t: Totals = {
    sites: 0,
    published: 0,
    firstHits: 0,
    settledHits: 0,
    returned: 0,
    returnedPublished: 0,
    trapsReturned: 0,
    formatHits: 0,
    formatFirstHits: 0,
    probes: 0,
    finderHits: 0,
    verified: 0,
    deliverable: 0,
    namesRead: 0,
    namesRight: 0,
    namesReversed: 0,
    deepFailures: 0,
    ms: 0,
    firstMaxMs: 0,
    firstMs: 0,
    documentSites: 0,
    documentFirstMs: 0,
    transientSites: 0,
    transientFirstMs: 0,
    transientFirstMaxMs: 0,
    documentOnly: 0,
    documentOnlyFirstHits: 0,
    forbidden: 0,
    companyPeople: 0,
    companyNames: 0,
  };
  const misses: Miss[] = [];
  // [format hits, sites, finder hits, probes]
  const byFormat = new Map<string, [number, number, number, number]>();
  const byCulture: Breakdown = new Map();
  const byDisplay: Breakdown = new Map();
  const byFeature = new Map<string, FeatureCounts>();
  const feature = (key: string) => {
    let row = byFeature.get(key);
    if (!row) {
      row = noCounts();
      byFeature.set(key, row);
    }
    return row;
  };
  const bump = (map: Breakdown, key: string, i: number, by: number) => {
    const row = map.get(key) ?? [0, 0, 0, 0];
    row[i]! += by;
    map.set(key, row);
  };
  for (const m of measures) {
    const l = m.labels;
    const miss = (measure: Miss["measure"], cause: Miss["cause"], detail: string) =>
      misses.push({ site: l.domain, seed: l.seed, measure, cause, detail });
    t.sites++;
    t.ms += m.ms;
    t.firstMaxMs = Math.max(t.firstMaxMs, m.firstMs);
    t.firstMs += m.firstMs;
    if (l.published.some((p) => p.placement === "pdf")) {
      t.documentSites++;
      t.documentFirstMs += m.firstMs;
    }
    if (l.features?.includes("transient")) {
      t.transientSites++;
      t.transientFirstMs += m.firstMs;
      t.transientFirstMaxMs = Math.max(t.transientFirstMaxMs, m.firstMs);
    }
    if (!m.deepAcked) t.deepFailures++;
    t.companyNames += l.companyNames?.length ?? 0;
    t.companyPeople += m.companyPeople.length;
    for (const name of m.companyPeople) miss("trap", "trap", `the company name "${name}" kept as a person`);
    const published = new Map(l.published.filter((p) => !p.forbidden).map((p) => [p.email, p]));
    const forbidden = new Set(l.published.filter((p) => p.forbidden).map((p) => p.email));
    t.forbidden += forbidden.size;
    const firstSet = new Set(m.first.map((e) => e.email));
    const settledSet = new Set(m.settled.map((e) => e.email));
    t.published += published.size;
    for (const [email, p] of published) {
      if (firstSet.has(email)) t.firstHits++;
      if (p.placement === "pdf") {
        t.documentOnly++;
        if (firstSet.has(email)) t.documentOnlyFirstHits++;
      }
      if (settledSet.has(email)) t.settledHits++;
      if (!settledSet.has(email)) {
        const pageRead = l.published.some(
          (q) => q.placement === p.placement && q.email !== email && settledSet.has(q.email),
        );
        miss(
          "settled",
          pageRead ? "publishing form" : "page structure",
          `${email} (${p.form} on ${p.placement} ${p.page}${p.placement.startsWith("team") ? `, ${l.layout}` : ""}${featureNote(p.features)}) never found`,
        );
      } else if (!firstSet.has(email)) {
        miss(
          "first",
          "page structure",
          `${email} (${p.placement} ${p.page}${p.placement.startsWith("team") ? `, ${l.layout}` : ""}${featureNote(p.features)}) only after the deep pass`,
        );
      }
      for (const key of p.features ?? []) {
        const row = feature(key);
        row.published++;
        if (firstSet.has(email)) row.firstHits++;
        if (settledSet.has(email)) row.settledHits++;
      }
    }
    const traps = new Map(l.traps.map((x) => [x.text, x]));
    for (const e of m.settled) {
      t.returned++;
      if (published.has(e.email)) t.returnedPublished++;
      else if (forbidden.has(e.email))
        miss("robots", "robots.txt", `${e.email} returned: only a page robots.txt forbids shows it`);
      else if (traps.has(e.email)) {
        t.trapsReturned++;
        miss("trap", "trap", `${e.email} returned (${traps.get(e.email)!.kind})`);
      } else miss("precision", "other", `${e.email} returned but never published`);
    }
    const siteRows = [...(l.features ?? []), ...(l.variants ?? [])].map(feature);
    for (const row of siteRows) {
      row.sites++;
      row.returned += m.settled.length;
      row.returnedPublished += m.settled.filter((e) => published.has(e.email)).length;
    }
    // How the engine read the displayed names of the published personal addresses.
    const reading = { right: 0, reversed: 0, none: 0, other: 0 };
    for (const e of m.settled) {
      const p = published.get(e.email);
      if (p?.kind !== "personal" || p.outlier) continue;
      if (!e.first_name && !e.last_name) {
        reading.none++;
        continue;
      }
      t.namesRead++;
      if (plain(e.first_name) === plain(p.given) && plain(e.last_name) === plain(p.family)) reading.right++;
      else if (plain(e.first_name) === plain(p.family) && plain(e.last_name) === plain(p.given)) reading.reversed++;
      else reading.other++;
    }
    t.namesRight += reading.right;
    t.namesReversed += reading.reversed;
    const top = m.formats[0]?.format ?? null;
    const formatRight = top === l.format;
    if (formatRight) t.formatHits++;
    for (const row of siteRows) row.formatHits += formatRight ? 1 : 0;
    if (m.formatFirst === l.format) t.formatFirstHits++;
    bump(byFormat, l.format, 0, formatRight ? 1 : 0);
    bump(byFormat, l.format, 1, 1);
    bump(byCulture, l.culture, 0, formatRight ? 1 : 0);
    bump(byCulture, l.culture, 1, 1);
    bump(byDisplay, l.displayOrder, 0, formatRight ? 1 : 0);
    bump(byDisplay, l.displayOrder, 1, 1);
    if (!formatRight) {
      const personal = l.published.filter((p) => p.kind === "personal");
      const found = personal.filter((p) => settledSet.has(p.email)).length;
      // The likely cause, from how the engine read the names beside the addresses it found.
      const cause: Miss["cause"] =
        l.format === "{f}{m}{last}" && reading.right >= reading.other
          ? "format"
          : (top !== null && top === mirrorOf(l.format)) || reading.reversed > reading.right
            ? "display order"
            : found < Math.min(2, personal.length)
              ? "page structure"
              : reading.none > reading.right + reading.other
                ? l.displayOrder === "given-first"
                  ? "page structure"
                  : "display order"
                : reading.other > reading.right
                  ? "culture"
                  : l.statedConvention && personal.length < 2
                    ? "stated convention"
                    : l.rulesShown.length
                      ? "spelling rule"
                      : "format";
      const shares = m.formats.map((f) => `${f.format} ${f.percentage}%`).join(", ") || "[]";
      miss(
        "format",
        cause,
        `got ${shares}, want ${l.format}; names read right ${reading.right}, reversed ${reading.reversed}, other ${reading.other}, none ${reading.none}; ${siteFeatures(l)}`,
      );
    }
    l.probes.forEach((probe, i) => {
      const r = m.finder[i]!;
      t.probes++;
      const hit = r.got === r.expected;
      if (hit) t.finderHits++;
      for (const row of siteRows) {
        row.probes++;
        row.finderHits += hit ? 1 : 0;
      }
      bump(byFormat, l.format, 2, hit ? 1 : 0);
      bump(byFormat, l.format, 3, 1);
      bump(byCulture, probe.culture, 2, hit ? 1 : 0);
      bump(byCulture, probe.culture, 3, 1);
      bump(byDisplay, l.displayOrder, 2, hit ? 1 : 0);
      bump(byDisplay, l.displayOrder, 3, 1);
      if (!hit) {
        const { cause, why } = finderCause(l, probe.person, r.got, formatRight);
        miss(
          "finder",
          cause,
          `${probe.fullName ?? `${probe.first} / ${probe.last}`} (shown as "${probe.display}"${probe.features.length ? `; ${probe.features.join(", ")}` : ""}): got ${r.got ?? (r.status === 200 ? "null" : `http ${r.status}`)}, want ${r.expected}; ${why}`,
        );
      }
    });
    for (const v of m.verifier) {
      t.verified++;
      for (const row of siteRows) row.verified++;
      if (v.result === "deliverable") {
        t.deliverable++;
        for (const row of siteRows) row.deliverable++;
        miss("verifier", "other", `${v.email} answered deliverable (${v.status}) without an SMTP prober`);
      }
    }
  }
  return { totals: t, misses, byFormat, byCulture, byDisplay, byFeature };
}

function featureNote(features: string[] | undefined): string {
  const main = (features ?? []).filter(mainFeature);
  return main.length ? `; ${main.join(", ")}` : "";
}

/**
 * The real-web goals a run misses, one sentence each (empty when every goal is met): settled recall
 * overall and per feature, first-answer recall, precision, format and finder top-1, and no address
 * called deliverable without SMTP proof.
 */
export function realWebGoalProblems(measures: SiteMeasure[]): string[] {
  const { totals, byFeature } = summarize(measures);
  const r = ratios(totals);
  const g = REAL_WEB_GOALS;
  const out: string[] = [];
  const check = (name: string, value: number, goal: number) => {
    if (value < goal) out.push(`${name} ${(100 * value).toFixed(1)}% < ${(100 * goal).toFixed(0)}%`);
  };
  check("settled recall", r.settled, g.settled);
  check("first-answer recall", r.first, g.first);
  check("precision", r.precision, g.precision);
  check("format top-1", r.format, g.format);
  check("finder top-1", r.finder, g.finder);
  for (const f of [...FEATURES, ...WIDER_FEATURES]) {
    const row = byFeature.get(f);
    if (row?.published) check(`settled recall on ${f}`, row.settledHits / row.published, g.featureSettled);
  }
  if (totals.deliverable) out.push(`${totals.deliverable} addresses called deliverable without SMTP proof`);
  if (totals.companyPeople) out.push(`${totals.companyPeople} company names kept as people`);
  return out;
}

export function ratios(t: Totals) {
  return {
    first: t.published ? t.firstHits / t.published : 1,
    settled: t.published ? t.settledHits / t.published : 1,
    precision: t.returned ? t.returnedPublished / t.returned : 1,
    format: t.sites ? t.formatHits / t.sites : 1,
    finder: t.probes ? t.finderHits / t.probes : 1,
  };
}

export function report(title: string, measures: SiteMeasure[]): string {
  const { totals: t, misses, byFormat, byCulture, byDisplay, byFeature } = summarize(measures);
  const r = ratios(t);
  const goal = (k: keyof typeof GOALS, hits: number, of: number) =>
    `${fmt(hits, of).padStart(6)}  (${hits}/${of}; goal ≥ ${(GOALS[k] * 100).toFixed(0)}%${r[k] >= GOALS[k] ? ", met" : ", NOT met"})`;
  const lines: string[] = [
    `\n══ ${title}: ${t.sites} generated sites, ${t.published} published addresses, ${t.probes} finder probes`,
  ];
  const bySite = new Map<string, Miss[]>();
  for (const x of misses) bySite.set(x.site, [...(bySite.get(x.site) ?? []), x]);
  if (bySite.size) lines.push("misses (seed domain: measure [cause] detail):");
  for (const [site, xs] of bySite) {
    lines.push(`  ${xs[0]!.seed} ${site}`);
    for (const x of xs) lines.push(`      ${x.measure.padEnd(9)} [${x.cause}] ${x.detail}`);
  }
  const causes = new Map<string, number>();
  for (const x of misses) causes.set(`${x.measure} / ${x.cause}`, (causes.get(`${x.measure} / ${x.cause}`) ?? 0) + 1);
  if (causes.size)
    lines.push(
      `misses by measure / cause: ${[...causes]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ${n}`)
        .join("; ")}`,
    );
  lines.push(
    `first-answer recall ${goal("first", t.firstHits, t.published)}`,
    // Documents are read off the request path: the first answer's ceiling, and its recall without them.
    ...(t.documentOnly === 0
      ? []
      : [
          `  documents         ${t.documentOnly - t.documentOnlyFirstHits} first-answer misses are addresses only a document shows (ceiling ${fmt(t.published - t.documentOnly + t.documentOnlyFirstHits, t.published)}); on the other addresses ${fmt(t.firstHits - t.documentOnlyFirstHits, t.published - t.documentOnly)} (${t.firstHits - t.documentOnlyFirstHits}/${t.published - t.documentOnly})`,
        ]),
    `settled recall      ${goal("settled", t.settledHits, t.published)}`,
    ...(t.forbidden
      ? [
          `  robots.txt        ${t.forbidden} addresses only pages robots.txt forbids show are not counted; ${misses.filter((x) => x.measure === "robots").length} of them returned (goal 0)`,
        ]
      : []),
    `precision           ${goal("precision", t.returnedPublished, t.returned)}; traps returned: ${t.trapsReturned}`,
    ...(t.companyNames
      ? [
          `  company names     ${t.companyPeople} kept as people of ${t.companyNames} shown where a name may stand (goal 0${t.companyPeople === 0 ? ", met" : ", NOT met"})`,
        ]
      : []),
    `format top-1        ${goal("format", t.formatHits, t.sites)}; before the deep pass ${fmt(t.formatFirstHits, t.sites)}`,
    `finder top-1        ${goal("finder", t.finderHits, t.probes)}`,
    `verifier            ${t.deliverable} of ${t.verified} answered deliverable without SMTP proof (goal 0${t.deliverable === 0 ? ", met" : ", NOT met"})`,
    `names read          ${fmt(t.namesRight, t.namesRead)} right (${t.namesRight}/${t.namesRead}), ${t.namesReversed} given/family reversed`,
    `time                ${(t.ms / 1000).toFixed(1)} s of site work, ${(t.ms / Math.max(1, t.sites) / 1000).toFixed(2)} s per site${t.deepFailures ? `; ${t.deepFailures} deep passes not acknowledged` : ""}`,
    `first answer        longest ${(t.firstMaxMs / 1000).toFixed(2)} s, mean ${(t.firstMs / Math.max(1, t.sites) / 1000).toFixed(2)} s` +
      (t.documentSites
        ? `; on ${t.documentSites} sites with a linked document mean ${(t.documentFirstMs / t.documentSites / 1000).toFixed(2)} s`
        : "") +
      (t.transientSites
        ? `; on ${t.transientSites} transient sites mean ${(t.transientFirstMs / t.transientSites / 1000).toFixed(2)} s, longest ${(t.transientFirstMaxMs / 1000).toFixed(2)} s`
        : ""),
  );
  const table = (label: string, map: Breakdown) => {
    lines.push(`${label.padEnd(16)} format top-1      finder top-1`);
    for (const [k, [fh, fs, ph, ps]] of [...map].sort((a, b) => a[0].localeCompare(b[0])))
      lines.push(
        `  ${k.padEnd(14)} ${`${fh}/${fs}`.padStart(6)} ${fmt(fh, fs).padStart(7)}   ${`${ph}/${ps}`.padStart(6)} ${fmt(ph, ps).padStart(7)}`,
      );
  };
  table("by format", byFormat);
  // Format top-1 by the site's own culture, finder top-1 by the probed person's culture.
  table("by culture", byCulture);
  table("by display order", byDisplay);
  if (byFeature.size) lines.push(...featureTable(byFeature));
  return lines.join("\n");
}

export type { Format };

/** The per-feature table of a real-web run: features first (in FEATURES order), then their variants. */
export function featureTable(byFeature: Map<string, FeatureCounts>): string[] {
  const pct = (n: number, d: number) => (d === 0 ? "n/a" : `${((100 * n) / d).toFixed(1)}%`);
  const cell = (n: number, d: number, w = 14) => `${pct(n, d)} (${n}/${d})`.padStart(w);
  const head = `${"feature".padEnd(24)}${"sites".padStart(6)}${"settled".padStart(16)}${"first".padStart(16)}${"precision".padStart(16)}${"format".padStart(14)}${"finder".padStart(14)}${"deliv.".padStart(7)}`;
  const row = (key: string, c: FeatureCounts) =>
    `${`  ${key}`.padEnd(24)}${String(c.sites).padStart(6)}${cell(c.settledHits, c.published, 16)}${cell(c.firstHits, c.published, 16)}${cell(c.returnedPublished, c.returned, 16)}${cell(c.formatHits, c.sites)}${cell(c.finderHits, c.probes)}${String(c.deliverable).padStart(7)}`;
  const lines = ["by feature (recall over the feature's addresses; precision, format, finder over its sites)", head];
  for (const f of [...FEATURES, ...WIDER_FEATURES]) if (byFeature.has(f)) lines.push(row(f, byFeature.get(f)!));
  lines.push("by variant");
  for (const [k, c] of [...byFeature].filter(([k]) => !mainFeature(k)).sort((a, b) => a[0].localeCompare(b[0])))
    lines.push(row(k, c));
  return lines;
}

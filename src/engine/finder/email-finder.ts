import { indexFor } from "../../db/shards.js";
import type { Env } from "../../env.js";
import { rfc3339 } from "../../platform/time.js";
import { isDisposableDomain, isWebmailDomain } from "../data/domain-lists.js";
import { WebmailDomain } from "../errors.js";
import { assertEmailNotClaimed } from "../index/claims.js";
import {
  companyOf,
  domainRow,
  type EmailRow,
  emailsOfDomain,
  formatsOf,
  type SourceOut,
  shownNamesOf,
  sourcesOf,
} from "../index/read.js";
import { type Memo, noMemo } from "../memo.js";
import {
  isCyrillicWord,
  isUkrainianName,
  letterHabits,
  romanizationKey,
  romanizes,
  spellWithHabits,
} from "../people/cyrillic-romanizations.js";
import {
  nameKey,
  nicknamesOf,
  type PersonName,
  parseName,
  sameGivenName,
  type Transliteration,
} from "../people/names.js";
import { hasPatronymic } from "../people/readings.js";
import { verifyEmail } from "../verify/verifier.js";
import { webEvidence } from "../verify/web-evidence.js";
import { countryOfDomain } from "../web/extract/company.js";
import type { Candidate } from "./candidates.js";
import { confirmAddress, isConfirmedSource } from "./confirm.js";
import { confirmedAnswer } from "./confirmed-answer.js";
import {
  countrylessDomain,
  namesCarryTwoFamilyNames,
  twoFamilyNameReading,
  writesTwoFamilyNames,
} from "./name-culture.js";
import { applyPattern, matchPatterns, type Pattern, type PatternInference } from "./patterns.js";

/**
 * The email finder: the most likely address of a person at a domain, scored from evidence only.
 *
 * Score (integer 0–100):
 *  - seen verbatim on the domain's pages: 95 while a page still shows it, 80 when it has gone;
 *  - otherwise proposed from the domain's inferred format: 10 + 80 × the format's smoothed share,
 *    capped at 85 (one matching address gives ~50, ten consistent ones ~80);
 *  - the verifier then adjusts it: `valid` +10 (max 99), `invalid` caps it at 10; `unknown`,
 *    `accept_all` (no SMTP proof) leave it as it is.
 * With neither a verbatim address nor any named address to learn a format from, the address is
 * searched over SMTP when a prober is configured (confirm.ts: candidates checked in order, the
 * first accepted one confirmed and stored as evidence); without a prober nothing is proposed.
 */

export interface FinderAnswer {
  email: string | null;
  score: number | null;
  pattern: Pattern | null;
  verbatim: boolean;
  position: string | null;
  department: string | null;
  seniority: string | null;
  sources: SourceOut[];
  /** `retry_at`: when an open answer's search runs again in the background (RFC 3339). */
  verification: { date: string | null; status: string | null; retry_at?: string };
  acceptAll: boolean | null;
  company: string | null;
  /** False for an answer nobody can act on yet (an SMTP search deferred or refused): not billed. */
  billable?: boolean;
}

interface FinderCtx {
  env: Env;
  now: () => number;
  /** Shares the domain's index rows and claim checks between the rows of a bulk batch. */
  memo?: Memo;
}

function sameName(row: EmailRow, name: PersonName): boolean {
  return (
    !!row.firstName &&
    !!row.lastName &&
    (sameGivenName(row.firstName, name.first) || romanizes(row.firstName, name.first)) &&
    (nameKey(row.lastName) === nameKey(name.last) || romanizes(row.lastName, name.last)) &&
    !differentMiddles(row.middleName, name.middle)
  );
}

/** Two middle names (or initials) that cannot be the same: Simone P. and Simone Giovanni De Santis are two people. */
function differentMiddles(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  return nameKey(a).charAt(0) !== nameKey(b).charAt(0);
}

/** An address already in the index that is this person's: named as them, or unnamed but in one of their formats. */
function verbatimMatch(rows: readonly EmailRow[], name: PersonName): EmailRow | null {
  const named = rows.find((r) => sameName(r, name));
  if (named) return named;
  return (
    rows.find(
      (r) =>
        r.type === "personal" && !r.firstName && !r.lastName && matchPatterns(r.localPart, name).patterns.length > 0,
    ) ?? null
  );
}

/**
 * Which reading of a full name the query meant: the one the index holds a person under, else, at a
 * domain whose people have family names of two words (a habit for them is known: "Ruiz García" as
 * `ruiz-garcia` or `ruiz`; or, before its addresses show one, its country names people with two
 * family names: Spain, Spanish America; or, on a domain that names no country, most of its team
 * page's names end in two Spanish family names), a given and middle name followed by two family
 * names; else the usual one.
 */
async function readingOf(
  ctx: FinderCtx,
  domain: string,
  name: PersonName,
  readings: readonly PersonName[],
  rows: readonly EmailRow[],
  formats: PatternInference,
): Promise<PersonName> {
  if (!readings.length || rows.some((r) => sameName(r, name))) return name;
  const stored = readings.find((reading) => rows.some((r) => sameName(r, reading)));
  if (stored) return stored;
  if (formats.lastForm || writesTwoFamilyNames(domain)) return twoFamilyNameReading(name, readings);
  if (!countrylessDomain(domain)) return name;
  const shown = (await shownNames(ctx, domain)).map((p) => p.fullName ?? "");
  return namesCarryTwoFamilyNames(shown) ? twoFamilyNameReading(name, readings) : name;
}

/** The names the domain's pages show without an address (read once per call or bulk batch). */
async function shownNames(ctx: FinderCtx, domain: string) {
  return (ctx.memo ?? noMemo).once(`shown-names:${domain}`, async () =>
    shownNamesOf(await indexFor(ctx.env, domain), domain),
  );
}

function defaultStyle(domain: string): Transliteration {
  const c = countryOfDomain(domain);
  return c === "DE" || c === "AT" || c === "CH" ? "expanded" : "plain";
}

/**
 * The query's name with the middle name the domain's pages show for this person, when the domain's
 * format needs one ({f}{m}{last}) and the query has none: "Jesús Muñoz Gil" is shown as "MUÑOZ GIL
 * Jesús L.". Only a name that matches one shown name, or several with the same middle, completes.
 */
async function withShownMiddle(
  ctx: FinderCtx,
  domain: string,
  name: PersonName,
  rows: readonly EmailRow[],
  formats: PatternInference,
): Promise<PersonName> {
  if (name.middle || !formats.shares[0]?.pattern.includes("{m}") || verbatimMatch(rows, name)) return name;
  const shown = await shownNames(ctx, domain);
  // Only the middle name's initial goes into an address: names that agree on it agree.
  const middles = new Map<string, string>();
  for (const { fullName } of shown) {
    const middle = fullName ? middleBeside(fullName, name) : null;
    if (middle) middles.set(nameKey(middle).charAt(0), middle);
  }
  const [only] = middles.values();
  return middles.size === 1 && only ? { ...name, middle: only } : name;
}

/**
 * The middle name of a displayed name that shows the query's given and family names: the words
 * right after the given name, up to the family name ("Jean-Baptiste Claude Dupré", "MUÑOZ GIL Jesús
 * L."), or between a family name written first and the given name ("LÊ Ngọc Trang"). Words elsewhere ("Par …", a title after the name) are not part of it.
 */
function middleBeside(shown: string, name: PersonName): string | null {
  const tokens = parseName(shown).tokens;
  const keys = tokens.map((t) => nameKey(t));
  const givenKeys = new Set([name.first, ...nicknamesOf(name.first)].map((n) => nameKey(n)));
  const given = keys.findIndex((k) => givenKeys.has(k));
  const familyKeys = name.last.split(/\s+/).map((part) => nameKey(part));
  const family = familyKeys.map((k) => keys.indexOf(k));
  if (given < 0 || family.some((i) => i < 0 || i === given)) return null;
  const familyStart = Math.min(...family);
  const end = familyStart > given ? familyStart : tokens.length;
  const middle: string[] = [];
  for (let i = given + 1; i < end && !family.includes(i); i++) middle.push(tokens[i] ?? "");
  // "LÊ Ngọc Trang": family name first, the middle name stands between it and the given name.
  const between = familyStart < given ? tokens.slice(Math.max(...family) + 1, given) : [];
  const words = between.length ? between : middle;
  return words.length ? words.join(" ") : null;
}

/**
 * The query's name spelled as the domain spells the person it shows: a query in another
 * romanization (Iuliia Iakovleva) of a name the pages show in Cyrillic (Юлия Алексеевна Яковлева),
 * spelled letter by letter as the domain's other Cyrillic names are in its addresses, or of a name
 * shown in Latin with a patronymic (Yuliya Alekseyevna Yakovleva), spelled as shown. Only when one
 * shown person answers to it.
 */
async function withShownSpelling(
  ctx: FinderCtx,
  domain: string,
  name: PersonName,
  rows: readonly EmailRow[],
): Promise<PersonName> {
  // Only on a domain whose people are East Slavic (a name in Cyrillic, a patronymic): the shown names cost a read.
  const slavic = rows.some(
    (r) => (r.firstName && isCyrillicWord(r.firstName)) || (r.middleName && hasPatronymic(r.middleName)),
  );
  if (!slavic || verbatimMatch(rows, name)) return name;
  const memo = ctx.memo ?? noMemo;
  const shown = await memo.once(`shown-names:${domain}`, async () =>
    shownNamesOf(await indexFor(ctx.env, domain), domain),
  );
  const answers = new Map<string, { first: string; last: string }>();
  for (const { fullName } of shown) {
    if (!fullName) continue;
    const tokens = parseName(fullName).tokens;
    const latin = !tokens.some((t) => isCyrillicWord(t));
    if (latin && !hasPatronymic(fullName)) continue;
    const same = (shownWord: string, asked: string) =>
      latin ? romanizationKey(shownWord) === romanizationKey(asked) : romanizes(shownWord, asked);
    const given = tokens.findIndex((t) => same(t, name.first));
    const family = tokens.findIndex((t, i) => i !== given && same(t, name.last));
    const [first, last] = [tokens[given], tokens[family]];
    if (given >= 0 && family >= 0 && first && last) answers.set(`${first}|${last}`, { first, last });
  }
  const [only] = answers.values();
  if (answers.size !== 1 || !only) return name;
  const cyrillic = rows.flatMap((r) =>
    r.firstName && r.lastName && isCyrillicWord(r.firstName) ? [{ localPart: r.localPart, name: rowName(r) }] : [],
  );
  const habits = letterHabits(cyrillic);
  const ukrainian = isUkrainianName(only);
  const spell = (word: string, asked: string) =>
    isCyrillicWord(word) ? spellWithHabits(word, habits, asked, ukrainian) : word;
  return { ...name, first: spell(only.first, name.first), last: spell(only.last, name.last) };
}

const rowName = (r: EmailRow): PersonName => ({ first: r.firstName ?? "", last: r.lastName ?? "" });

export interface Proposal {
  email: string;
  pattern: Pattern | null;
  /** The index row when the address was seen verbatim on the domain's pages. */
  seen: EmailRow | null;
  /** Smoothed share of the format the address was built from (1 for a verbatim address). */
  share: number;
}

/**
 * The address the index's evidence gives a person, before any verification: the address seen for
 * them verbatim, else their name rendered in the domain's most supported format, spelled the way
 * the domain spells names. Null when the domain has no named address to learn a format from.
 */
export function proposeAddress(
  rows: readonly EmailRow[],
  name: PersonName,
  domain: string,
  inference: PatternInference = formatsOf(undefined, rows),
): Proposal | null {
  const seen = verbatimMatch(rows, name);
  if (seen) {
    // The query may leave out the middle name the page showed ({f}{m}{last}): the row knows it.
    const known = name.middle || !seen.middleName ? name : { ...name, middle: seen.middleName };
    return { email: seen.email, pattern: matchPatterns(seen.localPart, known).patterns[0] ?? null, seen, share: 1 };
  }
  // A stored format may lack a habit's field: read as "not shown".
  const spelling = {
    style: inference.style ?? defaultStyle(domain),
    nordic: inference.nordic ?? null,
    lastForm: inference.lastForm,
    particleForm: inference.particleForm ?? null,
    firstForm: inference.firstForm ?? null,
  };
  const choice = inference.shares
    .map((s) => ({ s, local: applyPattern(s.pattern, name, spelling) }))
    .find((c) => c.local);
  if (!choice) return null;
  return { email: `${choice.local}@${domain}`, pattern: choice.s.pattern, seen: null, share: choice.s.share };
}

/**
 * Bulk finder options: `verify: false` skips the verifier (no verification, the score rests on the
 * evidence); `boostFromSources: false` scores an address seen on the pages from its format alone.
 */
export interface FindOptions {
  verify?: boolean;
  boostFromSources?: boolean;
  /**
   * The other readings of a full name the query gave ("Inés | José Torres | Vázquez" or "Inés | José |
   * Torres Vázquez"): a person the index holds under one of them is this person, read their way.
   */
  readings?: readonly PersonName[];
}

export async function findEmail(
  ctx: FinderCtx,
  domain: string,
  name: PersonName,
  opts: FindOptions = {},
): Promise<FinderAnswer> {
  const { env } = ctx;
  if (isWebmailDomain(domain) || isDisposableDomain(domain)) {
    throw new WebmailDomain(
      `${domain} is a webmail or disposable email provider; the finder needs the person's company domain.`,
    );
  }
  const memo = ctx.memo ?? noMemo;
  const [rows, company, dom] = await memo.once(`facts:${domain}`, () =>
    Promise.all([emailsOfDomain(env, domain), companyOf(env, domain), domainRow(env, domain)]),
  );
  const base = { company: company?.name ?? null, acceptAll: dom?.acceptAll ?? null };

  let email: string;
  let score: number;
  let pattern: Pattern | null = null;
  let person: { position: string | null; department: string | null; seniority: string | null } = {
    position: null,
    department: null,
    seniority: null,
  };
  let sources: SourceOut[] = [];
  const formats = formatsOf(dom, rows);
  const read = await readingOf(ctx, domain, name, opts.readings ?? [], rows, formats);
  const named = await withShownMiddle(ctx, domain, await withShownSpelling(ctx, domain, read, rows), rows, formats);
  const proposal = proposeAddress(rows, named, domain, formats);
  // No format to propose from: search the person's address over SMTP (confirm.ts).
  const searched = !proposal && opts.verify !== false ? await searchOverSmtp(ctx, domain, named, null) : null;
  if (searched) return { ...base, ...searched };
  if (!proposal) {
    return {
      ...base,
      email: null,
      score: null,
      pattern: null,
      verbatim: false,
      ...person,
      sources: [],
      verification: { date: null, status: null },
    };
  }
  // An address an SMTP check (or web evidence) confirmed was not seen on a page: it scores from that.
  const confirmedBefore = isConfirmedSource(proposal.seen?.source);
  const seen = confirmedBefore ? null : proposal.seen;
  if (confirmedBefore && proposal.seen)
    person = {
      position: proposal.seen.position,
      department: proposal.seen.department,
      seniority: proposal.seen.seniority,
    };
  email = proposal.email;
  pattern = proposal.pattern;
  const formatScore = (share: number) => Math.min(85, Math.round(10 + 80 * share));
  if (seen) {
    sources = (await sourcesOf(env, [email])).get(email) ?? [];
    const formatShare = () => formats.shares.find((s) => s.pattern === pattern)?.share ?? 0;
    score =
      opts.boostFromSources === false ? formatScore(formatShare()) : sources.some((s) => s.still_on_page) ? 95 : 80;
    person = { position: seen.position, department: seen.department, seniority: seen.seniority };
  } else {
    score = confirmedBefore ? 80 : formatScore(proposal.share);
  }

  await assertEmailNotClaimed(env, memo, email);
  if (opts.verify === false) {
    return {
      ...base,
      email,
      score,
      pattern,
      verbatim: !!seen,
      ...person,
      sources,
      verification: { date: null, status: null },
    };
  }
  const verified = await verifyEmail(env, email, { memo });
  const status = verified.data.email.status;
  // A format read from one or two addresses that this person's mailbox contradicts: search instead.
  if (!seen && !confirmedBefore && verified.data.email.reason === "mailbox_not_found" && formats.observations <= 2) {
    const again = await searchOverSmtp(ctx, domain, named, formats, verified.conversations);
    if (again) return { ...base, ...again };
  }
  if (status === "valid") score = Math.min(99, score + 10);
  else if (status === "invalid") score = Math.min(score, 10);
  if (!seen && verified.data.sources.length) sources = verified.data.sources;
  // A check deferred (greylisting, pacing) leaves the answer open until its retry: not billed. So
  // does any open check of an address whose format only the SMTP search learnt (its confirmations,
  // web evidence): the answer is that search's guess, like its own open answers (a refused prober).
  const reason = verified.data.email.reason;
  const personal = rows.filter((r) => r.type === "personal");
  const searchOnly = !seen && personal.length > 0 && personal.every((r) => isConfirmedSource(r.source));
  const deferredCheck = reason === "smtp_greylisted" || reason === "smtp_paced" || (searchOnly && status === "unknown");

  return {
    ...base,
    email,
    score,
    pattern,
    verbatim: !!seen,
    ...person,
    sources,
    verification: { date: rfc3339(ctx.now()), status },
    acceptAll: verified.data.email.smtp_check_run ? verified.data.email.accept_all : base.acceptAll,
    ...(deferredCheck ? { billable: false } : {}),
  };
}

/**
 * The person's address searched over SMTP, as a finder answer; null when no prober is configured.
 * `spent`: the checks this answer already made (they count against the search's cap).
 */
async function searchOverSmtp(
  ctx: FinderCtx,
  domain: string,
  name: PersonName,
  inference: PatternInference | null,
  spent = 0,
): Promise<Omit<FinderAnswer, "company"> | null> {
  const found = await confirmAddress({ env: ctx.env, now: ctx.now, spent }, domain, name, inference);
  if (!found) return null;
  const address = found.kind === "confirmed" ? `${found.candidate.local}@${domain}` : null;
  await assertEmailNotClaimed(ctx.env, ctx.memo ?? noMemo, address ?? `${found.best.local}@${domain}`);
  // The confirmed address's verdict comes from the check just made (cached): no second conversation.
  const verdict = address ? (await verifyEmail(ctx.env, address, { memo: ctx.memo })).data.email.status : null;
  // On a domain that accepts everything, a Gravatar profile or a WKD key picks among the likeliest.
  let withEvidence: Candidate | null = null;
  if (found.kind === "accept_all") {
    for (const c of found.likeliest) {
      const e = await webEvidence(ctx.env, `${c.local}@${domain}`);
      if (e.gravatar || e.wkd) {
        withEvidence = c;
        break;
      }
    }
  }
  const answer = confirmedAnswer(found, domain, verdict, withEvidence);
  return {
    email: answer.email,
    score: answer.score,
    pattern: answer.pattern,
    verbatim: false,
    position: null,
    department: null,
    seniority: null,
    sources: [],
    verification: {
      date: rfc3339(ctx.now()),
      status: answer.status,
      ...(answer.retryAt !== null ? { retry_at: rfc3339(answer.retryAt) } : {}),
    },
    acceptAll: answer.acceptAll,
    billable: answer.billable,
  };
}

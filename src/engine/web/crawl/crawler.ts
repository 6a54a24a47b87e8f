import type { Env } from "../../../env.js";
import { isGenericLocalPart } from "../../people/positions.js";
import { CookieJar } from "../cookies.js";
import { extractPage, type PageExtraction } from "../extract/page.js";
import { fetchPage, type PageFetch } from "../fetch-page.js";
import type { RateAllowance } from "../rate-limit-fields.js";
import type { Robots } from "../robots.js";
import { type CrawlBudget, clockOf, DEEP_PASS, FIRST_PASS } from "./budget.js";
import { type CrawlNotes, emptyNotes, noteChallenge, noteStillFailing } from "./notes.js";
import {
  askPaced,
  meetRateLimit,
  newPace,
  nextPacedAnswer,
  type Pace,
  RESET_LEAVING_MS,
  spareAsks,
  untilReset,
} from "./pace.js";
import {
  CATEGORY_SCORE,
  type Candidate,
  canonical,
  guessedCandidates,
  HOME_SCORE,
  isDocumentUrl,
  linkCandidates,
  listsPeople,
  nameTokens,
  onOrigin,
  rankFrontier,
  scoreUrl,
} from "./plan.js";
import { isTransient, retryWait } from "./retry.js";
import { openSite, probeNotFound, sameSiteOrigin, sitemapUrls, urlCandidates } from "./site-entry.js";
import { isNotFoundPage, type NotFoundPage } from "./soft-not-found.js";

export { type CrawlBudget, type CrawlClock, DEEP_PASS, FIRST_PASS, REAL_CLOCK } from "./budget.js";
export { type CrawlNotes, describeCrawl } from "./notes.js";

/**
 * Pages ranked below this (guessed paths, navigation in unknown words, newsroom items, articles)
 * are never read in a round with better-ranked pages: those may lead to pages that outrank them
 * (an office's team four links from home), and the page budget would be gone by then.
 */
const LOW_RANK = 10;

/**
 * How long a round waits, after a page of it answers, for the pages still out before reading what
 * came: a round of quick pages answers within a few hundred milliseconds, and one slow page (a team
 * page answering in 6 s) no longer holds the next round, which goes on beside it (wider-web seed
 * 1566650246: a team page linked from the about page was asked only once the round's slow contact
 * page answered, 7 s in, and missed the 12 s pass). Real time, as the page time-out is.
 */
const LINGER_MS = 1_500;

/** Retries one pass makes at most: a site failing everywhere is not hammered. */
const MAX_RETRIES_PER_PASS = 8;
/** Retries of pages a site-wide rate limit turned away, one at a time after its Retry-After (the last pass). */
const MAX_PACED_RETRIES = 24;

/**
 * Challenged pages one pass asks again at most. A page is asked at most three times while challenged
 * over both passes (CHALLENGE_ASKS_IN_ALL): the first pass asks it up to three times (after 2 s,
 * then 4 s); one it asked twice is asked once by the deep pass, one it asked three times not again;
 * one it asked once, `challengedOnce`, the deep pass may ask twice. Once a second ask is challenged
 * too, the pass asks no other challenged page again (the defence is not letting this client
 * through a burst); the pages already asked twice get their last, slower ask.
 */
const MAX_CHALLENGED_PAGES_PER_PASS = 2;
const CHALLENGE_ASKS_IN_ALL = 3;

export interface CrawledPage {
  url: string;
  extraction: PageExtraction;
}

export interface CrawlOutcome {
  /** Scheme and host the site answered on (https://acme.com or https://www.acme.com); null when unreachable. */
  origin: string | null;
  pages: CrawledPage[];
  /** Every URL tried or refused by robots.txt, so a later pass does not repeat it (not those in `retry`). */
  done: string[];
  /** Ranked URLs this pass had no budget for (PDFs in a pass that reads none), best first. */
  pending: string[];
  /** The rank of each pending URL (same order). */
  pendingScores: number[];
  /** Pages that failed in a way worth another try (429, 5xx, network, time) or were cut at the byte limit. */
  retry: string[];
  /**
   * Of `retry`, pages asked once while challenged (the pass asked no other challenged page again):
   * the next pass may ask them twice, three asks in all.
   */
  challengedOnce: string[];
  /** Robots.txt Sitemap: lines. */
  sitemaps: string[];
  /** Why the site could not be read at all (when origin is null) or what went wrong on the way. */
  failure: { reason: string; timedOut: boolean; refused?: boolean } | null;
  /** Pages refused by robots.txt. */
  disallowed: string[];
  /** What the site's defences and failures did to the pass: retries, soft 404s, bot challenges. */
  notes: CrawlNotes;
  /** The language the site's pages declare (the first one read that declares one): the deep pass reads names in it. */
  lang?: string;
  /** What the site's rate-limit fields said last (the deep pass starts from it: the window may not have turned). */
  allowance?: RateAllowance;
}

interface PassInput {
  domain: string;
  origin: string;
  robots: Robots;
  queue: Candidate[];
  done: Set<string>;
  budget: CrawlBudget;
  startedAt: number;
  notes: CrawlNotes;
  /** The site's not-found page when it answers any path with 200. */
  notFound: Promise<NotFoundPage | null>;
  /** Pages to hand to the next pass (url → rank). */
  retryLater: Map<string, number>;
  /** Pages the previous pass could not read (asked there already): a challenge there is not asked again in this pass. */
  askedBefore?: ReadonlySet<string>;
  /** Pages this crawl call asked twice while challenged (shared by its passes). */
  challengedTwice?: Set<string>;
  /** The site's rate limit as this crawl call met it so far (shared with its other passes). */
  pace?: Pace;
  /**
   * Asks that go out once this pass's first round is asked (the sitemap, the soft-404 probe): a rate
   * limit counts every request, so the best pages get the first ones. Resolves to more candidates,
   * ranked in when they come.
   */
  afterFirstRound?: () => Promise<Candidate[]>;
  /** robots.txt names a sitemap (under a stated allowance an ask is kept for it). */
  sitemapDeclared?: boolean;
  /**
   * The first round asks one page (the best) and the asks of `afterFirstRound` wait for its answer:
   * a consent wall is accepted once, before the others.
   */
  firstRoundAlone?: boolean;
  /**
   * The language the site's pages declare (its home page's): names on pages that declare none (the
   * JSON a script fetches, a script file) are read in it; a document is read as written.
   */
  lang?: string;
}

interface Fetched {
  candidate: Candidate;
  result: PageFetch;
  /** How many times this page was asked before in this pass (0: the first ask). */
  tries: number;
  /** When the answer came: a retry's wait starts then, not once the slowest page of the round is in. */
  at: number;
  /** The page's place in the pass's asks: answers are read in that order, not in the order they came. */
  asked: number;
}

async function runPass(env: Env, input: PassInput) {
  const { domain, origin, robots, budget, done, notes, retryLater } = input;
  const clock = clockOf(budget);
  let queue = rankFrontier(
    input.queue.flatMap((c) => {
      const url = onOrigin(c.url, origin);
      return url ? [{ url, score: c.score }] : [];
    }),
    done,
  );
  const pages: CrawledPage[] = [];
  const disallowed: string[] = [];
  /** PDFs this pass does not read (none in the first pass; beyond the cap in the deep pass): left pending. */
  const documentsLeft: Candidate[] = [];
  const waiting: { candidate: Candidate; at: number; tries: number }[] = [];
  let failure: CrawlOutcome["failure"] = null;
  let fetchedCount = 0;
  let documentsRead = 0;
  let retries = 0;
  let challengeRetries = 0;
  /** A second ask was challenged too: no challenged page is asked again in this pass. */
  let challengeBackOff = false;
  const pace = input.pace ?? newPace();
  let pacedRetries = 0;
  const readsDocument = () => budget.documents !== null && documentsRead < budget.documents.max;
  /** The asks that follow the first round: started once, their candidates ranked in when they come. */
  let later: Promise<void> | null = null;
  let laterFound: Candidate[] | null = null;
  let laterMerged = !input.afterFirstRound;
  const askLater = () => {
    later ??= (input.afterFirstRound?.() ?? Promise.resolve([])).then((found) => {
      laterFound = found;
    });
    return later;
  };
  let lang = input.lang;

  /**
   * Pages asked and not answered yet, and answers not read yet. A round is read once every page of
   * it has answered, or LINGER_MS after its last answer while some are still out (a team page that
   * takes 6 s): those stay out, later rounds go on beside them (their concurrency counts them),
   * and each is read when it answers.
   */
  const out: { candidate: Candidate; tries: number }[] = [];
  const arrived: Fetched[] = [];
  let asks = 0;
  let failedAsk: { error: unknown } | null = null;
  let heard: (() => void) | null = null;
  const answer = (asked: (typeof out)[number], fetched: Fetched | null) => {
    out.splice(out.indexOf(asked), 1);
    if (fetched) arrived.push(fetched);
    const wake = heard;
    heard = null;
    wake?.();
  };
  /** True on the next answer; false when `ms` (real time, as the page time-out) pass first. */
  const nextAnswer = (ms?: number) =>
    new Promise<boolean>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => resolve(false), ms);
      heard = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  const settle = async () => {
    let answered = arrived.length > 0;
    while (out.length > 0) {
      if (!(await nextAnswer(answered ? LINGER_MS : undefined))) return;
      answered = true;
    }
  };
  /**
   * Reads what has answered since the last call (pages, documents, failures to retry or hand on)
   * and ranks the links found into the queue.
   */
  const absorb = async () => {
    if (failedAsk) throw failedAsk.error;
    const found: Candidate[] = [];
    // Read in the order asked, so what a round finds (its pages, their links' ranks) does not depend
    // on which server answered first.
    for (const { candidate, result: r, tries, at } of arrived.splice(0).sort((a, b) => a.asked - b.asked)) {
      const retried = tries > 0;
      // A challenge is recorded, and asked again after a pause that grows with each ask (the first
      // pass up to three times); what the first pass could not read the deep pass asks later.
      if (r.kind === "unusable" && r.challenge) noteChallenge(notes, candidate.url);
      if (r.kind === "unusable" && r.deferredAccept) {
        // A consent wall met with no room to accept: its accept link is asked (once the window
        // turns) in the page's place, and sends back to the page.
        const accept = onOrigin(r.deferredAccept, origin);
        if (accept && tries < budget.retry.tries)
          waiting.push({ candidate: { ...candidate, url: accept }, at, tries: tries + 1 });
        else retryLater.set(candidate.url, candidate.score);
        continue;
      }
      if (r.kind !== "ok" && r.kind !== "document") {
        if (!isTransient(r)) continue;
        const challenged = r.kind === "unusable" && !!r.challenge;
        if (challenged && retried) {
          challengeBackOff = true;
          input.challengedTwice?.add(candidate.url);
        }
        // The wait runs from the answer, so it overlaps the rest of the round.
        const left = budget.totalMs - (at - input.startedAt);
        // Under a site-wide rate limit a 429 says "slow down", not "this page failed": it does not use
        // up the page's tries (the pass's time and MAX_PACED_RETRIES bound it).
        const limited =
          r.kind === "unusable" && r.status === 429 && meetRateLimit(pace, budget, at, left, r.retryAfterMs);
        const mayAsk = challenged
          ? tries + 1 < budget.retry.challengeAsks &&
            (retried || (!challengeBackOff && challengeRetries < MAX_CHALLENGED_PAGES_PER_PASS)) &&
            !input.askedBefore?.has(candidate.url)
          : tries < budget.retry.tries || (limited && pacedRetries < MAX_PACED_RETRIES);
        const overCap = limited ? pacedRetries >= MAX_PACED_RETRIES : retries >= MAX_RETRIES_PER_PASS;
        // A first pass waiting out a limit asks again once it has run out (the policy's own wait is shorter).
        const wait =
          !mayAsk || overCap
            ? null
            : limited && !budget.retry.clamp
              ? Math.max(0, pace.pausedUntil - at)
              : retryWait(r, budget.retry, left, budget.pageTimeoutMs, tries + 1);
        if (wait !== null) {
          if (limited) pacedRetries++;
          else retries++;
          if (challenged && !retried) challengeRetries++;
          if (!retried) notes.retried++;
          waiting.push({ candidate, at: Math.max(at + wait, pace.pausedUntil), tries: tries + 1 });
        } else if (challenged && tries + 1 >= CHALLENGE_ASKS_IN_ALL) {
          // Asked three times: not handed on.
          noteStillFailing(notes, candidate.url);
        } else {
          retryLater.set(candidate.url, candidate.score);
          if (retried || input.askedBefore?.has(candidate.url)) noteStillFailing(notes, candidate.url);
        }
        continue;
      }
      if (retried) notes.recovered++;
      // A moved page (301) is read once, under the address it answers on.
      const url = onOrigin(r.url, origin) ?? canonical(r.url) ?? r.url;
      if (url !== candidate.url && pages.some((p) => p.url === url)) continue;
      done.add(url);
      if (r.kind === "document") {
        if (!budget.documents || !readsDocument()) continue;
        documentsRead++;
        // A document is a publication of its own (an English report on a Japanese site), not data the
        // site's pages show: it is read as written, not in the site's language.
        const page = await readDocument(r, domain, budget.documents.maxPages, notes);
        if (page) pages.push({ url, extraction: page });
        continue;
      }
      const extraction = await extractPage(r.body, r.url, domain, r.contentType, lang);
      lang ??= extraction.lang;
      // The probe goes out with the later asks: a page read before they could go (a stated
      // allowance without room for them) is not checked against it.
      const probing = later !== null || !input.afterFirstRound;
      const notFound = candidate.score < HOME_SCORE && probing ? await input.notFound : null;
      if (notFound && isNotFoundPage(extraction, r.url, notFound)) {
        notes.notFoundPages++;
        continue;
      }
      // Cut at the byte limit: the next pass (with its larger limit) reads it again.
      if (r.truncated) retryLater.set(url, candidate.score);
      pages.push({ url, extraction });
      // Unnamed personal addresses count too: a listing whose names the reader missed is still a listing.
      const named = extraction.addresses.filter((a) => a.name).length;
      const personal = extraction.addresses.filter(
        (a) => !isGenericLocalPart(a.email.slice(0, a.email.indexOf("@"))),
      ).length;
      const knownPeople = new Set(
        extraction.addresses.flatMap((a) => (a.name ? [nameTokens(`${a.name.first} ${a.name.last}`)] : [])),
      );
      const from = {
        url,
        score: candidate.score,
        listsPeople: listsPeople(url, named, extraction.linkRefs, personal),
        knownPeople,
      };
      found.push(...linkCandidates(extraction.linkRefs, from, origin));
    }
    if (found.length) queue = rankFrontier([...queue, ...found], done);
  };

  while (
    (queue.length > 0 && fetchedCount < budget.maxPages && !pace.stopAsking) ||
    (waiting.length > 0 && !pace.stopAsking) ||
    !laterMerged ||
    out.length > 0
  ) {
    // The second round waits for the asks that went out beside the first (as the first round once
    // waited for the sitemap), so what they found is ranked in before it.
    if (!laterMerged && (later !== null || pace.stopAsking)) {
      await askLater();
      laterMerged = true;
      queue = rankFrontier([...queue, ...(laterFound ?? [])], done);
      continue;
    }
    const now = clock.now();
    const left = budget.totalMs - (now - input.startedAt);
    if (left <= 0) {
      failure = { reason: "crawl time budget used up", timedOut: true };
      break;
    }
    if (now < pace.pausedUntil) {
      await clock.sleep(Math.min(pace.pausedUntil - now, left));
      continue;
    }
    // The asks the site's stated allowance lets go now (Infinity when it states none); until a
    // declared sitemap is asked, one is kept for it unless it is the only one.
    const spare = spareAsks(pace, now);
    const room = input.afterFirstRound && input.sitemapDeclared && later === null && spare > 1 ? spare - 1 : spare;
    const batch: { candidate: Candidate; tries: number }[] = [];
    const bestWaiting = Math.max(-Infinity, ...waiting.map((w) => w.candidate.score));
    const due = waiting.filter((w) => w.at <= now).sort((a, b) => b.candidate.score - a.candidate.score);
    for (const w of due) {
      // Paced (a site-wide rate limit): one request at a time, retries included, the best page first
      // (a team page found since outranks the pages the limit turned away).
      const better = queue[0] && queue[0].score > w.candidate.score && queue[0].score >= bestWaiting;
      if (batch.length >= room || (pace.paced && (batch.length >= 1 || better || out.length > 0))) break;
      waiting.splice(waiting.indexOf(w), 1);
      batch.push({ candidate: w.candidate, tries: w.tries });
    }
    const waitingBest = Math.max(-Infinity, ...waiting.map((w) => w.candidate.score));
    // Retries do not count against the page budget (a page is read once), only against the time.
    // A page waiting for its retry keeps its place: pages ranked below it wait too, so the budget is
    // not spent on articles while the team page (and the next pages it will lead to) is not read yet.
    while (
      queue.length > 0 &&
      !pace.stopAsking &&
      batch.length < room &&
      (pace.paced ? batch.length + out.length : [...batch, ...out].filter((b) => !b.tries).length) <
        Math.min(
          pace.paced || (input.firstRoundAlone && later === null) ? 1 : budget.concurrency,
          budget.maxPages - fetchedCount + out.filter((b) => !b.tries).length,
        )
    ) {
      const next = queue[0];
      if (next.score < waitingBest) break;
      if (next.score < LOW_RANK && [...batch, ...out].some((b) => b.candidate.score >= LOW_RANK)) break;
      // The last pages of the budget wait for what a page still out or waiting may lead to (seed
      // 1426015225 aurora-partner: the team, challenged twice, was read 6 s in, and its ?page=2..4
      // found no page left: products and posts had taken them).
      const asked = fetchedCount + batch.filter((b) => !b.tries).length;
      const pending = out.length > 0 || waiting.length > 0 || batch.some((b) => b.tries > 0);
      if (next.score < LOW_RANK && pending && asked >= budget.maxPages - budget.lateReserve) break;
      queue.shift();
      if (done.has(next.url)) continue;
      if (isDocumentUrl(next.url) && !readsDocument()) {
        documentsLeft.push(next);
        continue;
      }
      done.add(next.url);
      if (!robots.isAllowed(next.url)) {
        disallowed.push(next.url);
        continue;
      }
      batch.push({ candidate: next, tries: 0 });
    }
    const more = (queue.length > 0 && fetchedCount < budget.maxPages) || waiting.length > 0 || !laterMerged;
    if (batch.length === 0 && out.length === 0 && room === 0 && more) {
      // The allowance the site stated is spent: its window's reset is waited for when the pass has
      // time to read after it, else the rest is left to the next pass. The sitemap or the probe still
      // out may say there is room after all.
      if (pace.unanswered > 0) {
        await nextPacedAnswer(pace);
        continue;
      }
      const wait = untilReset(pace, now);
      if (wait !== null && wait + RESET_LEAVING_MS <= left) pace.pausedUntil = now + wait;
      else pace.stopAsking = true;
      continue;
    }
    if (batch.length === 0 && out.length > 0) {
      // Pages still out (a slow team page): their answer, or a retry falling due, comes first.
      const due = Math.min(...waiting.map((w) => w.at));
      if (arrived.length === 0)
        await (Number.isFinite(due)
          ? Promise.race([nextAnswer(), clock.sleep(Math.max(0, Math.min(due - now, left)))])
          : nextAnswer());
      await absorb();
      continue;
    }
    if (batch.length === 0) {
      if (waiting.length === 0) {
        if (laterMerged) break;
        await askLater();
        continue;
      }
      void askLater();
      await clock.sleep(Math.max(0, Math.min(Math.min(...waiting.map((w) => w.at)) - now, left)));
      continue;
    }
    fetchedCount += batch.filter((b) => !b.tries).length;
    // A document (a PDF of megabytes) takes longer than the pages beside it: never cut.
    const stragglers = cutStragglers(batch.map((b) => (isDocumentUrl(b.candidate.url) ? Infinity : b.candidate.score)));
    batch.forEach(({ candidate, tries }, i) => {
      const document = isDocumentUrl(candidate.url) && budget.documents;
      const signal = stragglers.signal(i);
      const limits = {
        timeoutMs: Math.min(budget.pageTimeoutMs, left),
        maxBytes: document ? document.maxBytes : budget.maxBytesPerPage,
        documents: !!budget.documents,
        now: clock.now,
        cookies: budget.cookies,
        ...(signal ? { signal } : {}),
      };
      const asked = { candidate, tries };
      const order = asks++;
      out.push(asked);
      askPaced(pace, clock.now, () => fetchPage(candidate.url, env, limits)).then(
        (result) => {
          stragglers.answered(i);
          answer(asked, { candidate, result, tries, at: clock.now(), asked: order });
        },
        (error: unknown) => {
          failedAsk ??= { error };
          answer(asked, null);
        },
      );
    });
    // A first round asked alone waits for its answer (its consent accept sets the cookie first). The
    // later asks wait for room in a stated allowance.
    if (!input.firstRoundAlone && spareAsks(pace, clock.now()) > 0) void askLater();
    await settle();
    if (input.firstRoundAlone && spareAsks(pace, clock.now()) > 0) void askLater();
    await absorb();
  }
  // Out of time: what is still out answers by its own time-out (never past the pass's end), and is read or handed on.
  while (out.length > 0) await nextAnswer();
  await absorb();
  for (const w of waiting) retryLater.set(w.candidate.url, w.candidate.score);
  // Out of time or pages before the later asks were ranked in: what they found is handed on.
  if (later && !laterMerged) {
    await later;
    queue = rankFrontier([...queue, ...(laterFound ?? [])], done);
  }
  const pending = rankFrontier([...queue, ...documentsLeft], done);
  return { pages, pending, disallowed, failure, lang };
}

/**
 * How long a page ranked below the imprint may keep its round waiting once every better page of
 * the round (and one page at least) has answered. A round waits for its slowest page, and a server
 * that never answers (a hung about page) held it for the whole page time-out, 9 s of the first
 * pass's 12: the team's next pages and a retry of its contact page waited behind it (wider-web seed
 * 1962240772). Such a page is cut, answered as a time-out and handed on. Slow team and contact
 * pages, and documents, keep the full page time-out.
 */
const STRAGGLER_MS = 2_500;

function cutStragglers(scores: readonly number[]) {
  const cuts = scores.map((score) => (score < CATEGORY_SCORE.imprint ? new AbortController() : null));
  const out = new Set(scores.map((_, i) => i));
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    signal: (i: number) => cuts[i]?.signal,
    answered(i: number) {
      out.delete(i);
      if (out.size === 0) clearTimeout(timer);
      else if (timer === undefined && [...out].every((j) => cuts[j]))
        // Real time, as the page time-out is: what it bounds is the wait for a network answer.
        timer = setTimeout(() => {
          for (const j of out) cuts[j]?.abort();
        }, STRAGGLER_MS);
    },
  };
}

/** A document read as a page (pdf-text.ts, office-text.ts); null when it cannot be read (damaged, cut at the size cap, encrypted). */
async function readDocument(
  r: Extract<PageFetch, { kind: "document" }>,
  domain: string,
  maxPages: number,
  notes: CrawlNotes,
): Promise<PageExtraction | null> {
  try {
    const { pdfRows, rowsAsHtml } = await import("../pdf-text.js");
    if (r.contentType === "docx" || r.contentType === "xlsx") {
      const { officeRows } = await import("../office-text.js");
      const rows = await officeRows(r.bytes);
      notes.documents++;
      return await extractPage(rowsAsHtml(rows, null), r.url, domain, "text/html");
    }
    const { rows } = await pdfRows(r.bytes, { maxPages });
    notes.documents++;
    return await extractPage(rowsAsHtml(rows, null), r.url, domain, "text/html");
  } catch {
    notes.unreadableDocuments.push(r.url);
    return null;
  }
}

function outcomeOf(
  origin: string,
  robots: Robots,
  done: Set<string>,
  pass: {
    pages: CrawledPage[];
    pending: Candidate[];
    disallowed: string[];
    failure: CrawlOutcome["failure"];
    lang?: string | undefined;
  },
  retryLater: Map<string, number>,
  notes: CrawlNotes,
  pace: Pace,
  challengedTwice?: ReadonlySet<string>,
): CrawlOutcome {
  return {
    origin,
    pages: pass.pages,
    done: [...done].filter((url) => !retryLater.has(url)),
    pending: pass.pending.map((c) => c.url),
    pendingScores: pass.pending.map((c) => c.score),
    retry: [...retryLater.keys()],
    challengedOnce: [...retryLater.keys()].filter(
      (url) => notes.challenged.includes(url) && !challengedTwice?.has(url),
    ),
    sitemaps: robots.sitemaps,
    failure: pass.failure,
    disallowed: pass.disallowed,
    notes,
    ...(pass.lang ? { lang: pass.lang } : {}),
    ...(pace.allowance ? { allowance: pace.allowance } : {}),
  };
}

const unreachableOutcome = (
  failure: CrawlOutcome["failure"],
  notes: CrawlNotes,
  previous?: { done: string[]; pending: string[] },
): CrawlOutcome => ({
  origin: null,
  pages: [],
  done: previous?.done ?? [],
  pending: previous?.pending ?? [],
  pendingScores: [],
  retry: [],
  challengedOnce: [],
  sitemaps: [],
  failure,
  disallowed: [],
  notes,
});

/**
 * The first, bounded pass that may run on the request path: robots.txt, the home page, then the
 * best-ranked pages it links (the sitemap and a soft-404 probe go out beside that first round, so a
 * rate limit's first requests go to pages), then the best pages all of them lead to, following
 * the links of the pages it reads (a team page's next page and profiles). What is left is
 * returned as `pending`, what failed for now as `retry`.
 */
export async function crawlFirstPass(
  env: Env,
  domain: string,
  passBudget: CrawlBudget = FIRST_PASS,
): Promise<CrawlOutcome> {
  const budget = { ...passBudget, cookies: new CookieJar() };
  const startedAt = clockOf(budget).now();
  const notes = emptyNotes();
  const pace = newPace();
  const site = await openSite(env, domain, budget, notes, pace);
  if (!site.origin || !site.robots) return unreachableOutcome(site.failure, notes);
  const { robots } = site;
  let origin = site.origin;
  const done = new Set<string>();
  const retryLater = new Map<string, number>();
  // The sitemap and the soft-404 probe go out once the home page and the first round of the pages
  // it links are asked: a site-wide rate limit counts every request (one allowing four let robots.txt,
  // the home page, the sitemap and the probe through, and turned the team's contact page away), and
  // on a consent wall the home page's accept sets the cookie once (a probe beside it would go
  // through the wall on its own). A limit the pass has given up on gets neither.
  let probed: (probe: Promise<NotFoundPage | null>) => void = () => {};
  const notFound = new Promise<NotFoundPage | null>((resolve) => {
    probed = resolve;
  });
  const afterFirstRound = async (): Promise<Candidate[]> => {
    if (pace.stopAsking) {
      probed(Promise.resolve(null));
      return [];
    }
    const left = budget.totalMs - (clockOf(budget).now() - startedAt);
    const timed = { ...budget, pageTimeoutMs: Math.max(0, Math.min(budget.pageTimeoutMs, left)) };
    // The sitemap before the probe: under a stated allowance the one ask kept for them goes to it.
    const sitemap = sitemapUrls(env, domain, origin, robots.sitemaps, timed, pace, 2);
    probed(probeNotFound(env, domain, origin, robots, budget, notes, pace));
    return urlCandidates(await sitemap);
  };
  const challengedTwice = new Set<string>();
  const pass = { domain, origin, robots, done, startedAt, notes, notFound, retryLater, pace, challengedTwice };
  const home = await runPass(env, {
    ...pass,
    queue: [{ url: `${origin}/`, score: HOME_SCORE }],
    budget: { ...budget, maxPages: 1 },
  });
  const homePage = home.pages[0];
  // robots.txt was rate-limited: the home page says where the site answers.
  const answered = site.confirmed ? null : sameSiteOrigin(homePage?.url, domain);
  if (answered && answered !== origin) {
    origin = answered;
    pass.origin = answered;
  }
  const linked = homePage
    ? linkCandidates(homePage.extraction.linkRefs, { url: homePage.url, score: HOME_SCORE, listsPeople: false }, origin)
    : [];
  const candidates = [...linked, ...guessedCandidates(origin)];
  const rest = await runPass(env, {
    ...pass,
    queue: candidates,
    budget: { ...budget, maxPages: budget.maxPages - 1 },
    afterFirstRound,
    sitemapDeclared: robots.sitemaps.length > 0,
    ...(home.lang ? { lang: home.lang } : {}),
  });
  probed(Promise.resolve(null));
  await notFound;
  // The home page may be refused or missing; the site still answered (robots.txt), so it is not "unreachable".
  return outcomeOf(
    origin,
    robots,
    done,
    {
      pages: [...home.pages, ...rest.pages],
      pending: rest.pending,
      disallowed: [...home.disallowed, ...rest.disallowed],
      failure: rest.failure ?? home.failure,
      lang: rest.lang ?? home.lang,
    },
    retryLater,
    notes,
    pace,
    challengedTwice,
  );
}

/** What the first pass hands to the deep pass (the deep-crawl message). */
export interface PreviousPass {
  done: string[];
  pending: string[];
  /** Ranks of `pending` (same order); without them pending URLs rank at least 50. */
  pendingScores?: number[];
  /** Pages that failed for now or were cut short: tried again first. */
  retry?: string[];
  /** Of `retry`, pages asked once while challenged: asked twice here if need be. */
  challengedOnce?: string[];
  /** The language the site's pages declared in the first pass. */
  lang?: string;
  /** Where the first pass found the site (https://www.acme.com): its robots.txt is asked there first. */
  origin?: string;
  /** What the site's rate-limit fields said at the end of the first pass. */
  allowance?: RateAllowance;
}

/** Pages the first pass chose and could not read: they were among the site's best, and come back first. */
const RETRY_SCORE = 95;

/**
 * The deep pass (queue consumer): pages the first pass could not read, pending pages, sitemap pages,
 * PDFs and the links they lead to; transient failures are retried once, honouring Retry-After.
 */
export async function crawlDeepPass(
  env: Env,
  domain: string,
  previous: PreviousPass,
  passBudget: CrawlBudget = DEEP_PASS,
): Promise<CrawlOutcome> {
  const budget = { ...passBudget, cookies: new CookieJar() };
  const startedAt = clockOf(budget).now();
  const notes = emptyNotes();
  const pace = newPace();
  // The first pass may have spent the window the deep pass starts in.
  pace.allowance = previous.allowance ?? null;
  const site = await openSite(env, domain, budget, notes, pace, previous.origin);
  if (!site.origin || !site.robots) return unreachableOutcome(site.failure, notes, previous);
  const { robots } = site;
  // robots.txt was rate-limited: the first pass's pages say where the site answers.
  const origin = (!site.confirmed && sameSiteOrigin(previous.done[0] ?? previous.pending[0], domain)) || site.origin;
  const retry = previous.retry ?? [];
  const done = new Set(previous.done.filter((url) => !retry.includes(url)));
  const retryLater = new Map<string, number>();
  // Pending URLs were ranked with their link text and page; without their ranks they keep a place even when their address alone says little.
  const pending = previous.pending.map((url, i) => ({
    url,
    score: previous.pendingScores?.[i] ?? Math.max(scoreUrl(url) ?? 0, 50),
  }));
  const queue = [
    ...retry.map((url) => ({ url, score: Math.max(scoreUrl(url) ?? 0, RETRY_SCORE) })),
    ...pending,
    ...guessedCandidates(origin),
  ];
  // A page the first pass asked twice while challenged is asked once more here; one it asked once
  // (its back-off stopped it) may be asked twice: three asks in all either way.
  const askedBefore = new Set(retry.filter((url) => !previous.challengedOnce?.includes(url)));
  // The best page is asked alone first, then the soft-404 probe and the sitemap: on a consent wall
  // that page's accept sets the cookie once (the probe and the sitemap, asked beside the first
  // pages, went through the wall on their own), and a rate limit's first requests go to the best
  // page (seed 429239707: a site allowing five requests per 18 s spent its deep pass's first window
  // on the wall and left a deep office's team and a news item unread).
  let probed: (probe: Promise<NotFoundPage | null>) => void = () => {};
  const notFound = new Promise<NotFoundPage | null>((resolve) => {
    probed = resolve;
  });
  const pass = await runPass(env, {
    domain,
    origin,
    robots,
    queue,
    done,
    budget,
    startedAt,
    notes,
    notFound,
    retryLater,
    askedBefore,
    pace,
    sitemapDeclared: robots.sitemaps.length > 0,
    firstRoundAlone: true,
    afterFirstRound: async () => {
      const sitemap = sitemapUrls(env, domain, origin, robots.sitemaps, budget, pace);
      probed(probeNotFound(env, domain, origin, robots, budget, notes, pace));
      return urlCandidates(await sitemap);
    },
    ...(previous.lang ? { lang: previous.lang } : {}),
  });
  probed(Promise.resolve(null));
  await notFound;
  return outcomeOf(origin, robots, done, pass, retryLater, notes, pace);
}

// A site's rate limit as one crawl call meets it (shared by the passes of that call: the home
// page's and the rest's): what its 429s said (Retry-After), and what its rate-limit fields say about
// the current window (rate-limit-fields.ts). A site that states its allowance is never asked more
// than it allows: the best-ranked pages take it, and a pass waits for the window's reset when the
// reset leaves it time to read (RESET_LEAVING_MS), else hands the rest to the deep pass.
import type { PageFetch } from "../fetch-page.js";
import type { RateAllowance } from "../rate-limit-fields.js";
import type { RetryPolicy } from "./retry.js";

/**
 * A 429 speaks for the whole site (rate limits count every request): nothing more is asked before
 * its Retry-After, and the pass goes on one page at a time (`paced`). A first pass whose time cannot
 * hold the wait and a few pages after it asks nothing more (`stopAsking`) and leaves the rest to the
 * deep pass (more asks would only prolong the limit).
 */
export interface Pace {
  pausedUntil: number;
  paced: boolean;
  stopAsking: boolean;
  /** What the site's rate-limit fields said last (null: it states none). */
  allowance: RateAllowance | null;
  /** Asks sent under this pace and not answered yet: the allowance counts them before they answer. */
  unanswered: number;
  /** Called on every answer (a pass waiting for room in the allowance). */
  onAnswer: (() => void)[];
}
export const newPace = (): Pace => ({
  pausedUntil: 0,
  paced: false,
  stopAsking: false,
  allowance: null,
  unanswered: 0,
  onAnswer: [],
});

/**
 * After a window's stated reset, a site is asked again only this much later: the fields round the
 * reset to whole seconds, and a server's window may turn a moment after the time it gave.
 */
export const RESET_MARGIN_MS = 250;
/**
 * A pass waits for a window's reset only when at least this much of it is left after the reset:
 * the pages asked then answer within it on most sites (wider-web sites allow 4-8 requests per 10 s
 * window: the first pass meets the second window 10-11 s into its 12).
 */
export const RESET_LEAVING_MS = 1_000;

/**
 * Records what an answer's rate-limit fields said. Answers of one window may come out of order: the
 * fewest left wins, and the earliest reset (each answer rounds its wait up to whole seconds, so every
 * one is at or after the true reset); a reset more than a second later is a new window or a block
 * (a 429's), and replaces what was known.
 */
export function noteAllowance(pace: Pace, seen: RateAllowance | undefined, now: number): void {
  if (!seen) return;
  const known = pace.allowance;
  const limit = seen.limit ?? known?.limit ?? null;
  const [was, is] = [known?.resetAt ?? null, seen.resetAt];
  pace.allowance =
    known && was !== null && is !== null && now < was && is <= was + 1_000
      ? { remaining: Math.min(known.remaining, seen.remaining), resetAt: Math.min(was, is), limit }
      : { ...seen, limit };
}

/** How many more asks the site's stated allowance lets go now (Infinity when it states none). */
export function spareAsks(pace: Pace, now: number): number {
  const a = pace.allowance;
  if (!a) return Number.POSITIVE_INFINITY;
  // A new window: its size when stated, else one ask, whose answer says the rest.
  const left = a.resetAt !== null && now >= a.resetAt + RESET_MARGIN_MS ? (a.limit ?? 1) : a.remaining;
  return Math.max(0, left - pace.unanswered);
}

/**
 * With no room left and nothing out: how long until the window resets, or null when the site did
 * not say (the pass asks nothing more).
 */
export function untilReset(pace: Pace, now: number): number | null {
  const reset = pace.allowance?.resetAt;
  return reset === null || reset === undefined ? null : Math.max(0, reset + RESET_MARGIN_MS - now);
}

/** One ask sent under the pace: counted until it answers, its fields noted then. */
export async function askPaced<T extends PageFetch>(pace: Pace, now: () => number, ask: () => Promise<T>): Promise<T> {
  pace.unanswered++;
  try {
    const r = await ask();
    noteAllowance(pace, r.rateLimit, now());
    return r;
  } finally {
    pace.unanswered--;
    for (const wake of pace.onAnswer.splice(0)) wake();
  }
}

/** The next answer of any ask under the pace (a page, the sitemap, the soft-404 probe). */
export const nextPacedAnswer = (pace: Pace) => new Promise<void>((resolve) => pace.onAnswer.push(resolve));

/**
 * Records a 429 answered at `at` with `left` of the pass to go; true when the limit is waited out in
 * this pass (the page waits with the others), false when the page is handled as any failure (a
 * short Retry-After within the policy's wait, or a limit this pass gives up on).
 */
export function meetRateLimit(
  pace: Pace,
  budget: { retry: RetryPolicy; pageTimeoutMs: number },
  at: number,
  left: number,
  retryAfterMs?: number,
): boolean {
  const asked = retryAfterMs ?? 0;
  if (budget.retry.clamp) {
    pace.paced = true;
    pace.pausedUntil = Math.max(pace.pausedUntil, at + Math.min(asked, Math.max(0, left - budget.pageTimeoutMs)));
    return true;
  }
  if (asked <= budget.retry.maxWaitMs) {
    pace.pausedUntil = Math.max(pace.pausedUntil, at + asked);
    return false;
  }
  const leaving = budget.retry.waitOutLimitLeavingMs;
  if (leaving > 0 && Math.max(asked, pace.pausedUntil - at) + leaving <= left) {
    pace.paced = true;
    pace.pausedUntil = Math.max(pace.pausedUntil, at + asked);
    return true;
  }
  pace.stopAsking = true;
  return false;
}

import { rfc3339 } from "../../platform/time.js";
import { ACCEPT_ALL_SCORE_CAP } from "../verify/verifier.js";
import type { Candidate } from "./candidates.js";
import type { Confirmation } from "./confirm.js";
import type { Pattern } from "./patterns.js";

/**
 * The finder's answer from an SMTP search (confirm.ts), honest about what the check proved:
 *  - confirmed: the address the server accepted; a full mailbox exists but refuses mail now, a
 *    disabled one existed (both still show the domain's format);
 *  - accept_all: the server accepts any address, so nothing is proven: the best-ranked candidate,
 *    flagged accept_all, its score capped, never `valid`;
 *  - deferred (greylisting, pacing), refused (the server would not talk to the prober) or exhausted
 *    (this answer's checks found nothing yet): the best candidate as an unconfirmed guess, status
 *    `unknown`, not billed; a background retry completes the search for the next call. A guess a
 *    Gravatar profile or a WKD key points at (web-lead.ts) scores higher, still `unknown`: only the
 *    mail server can say the mailbox takes mail.
 */

export interface ConfirmedAnswer {
  email: string;
  pattern: Pattern;
  score: number;
  status: string;
  acceptAll: boolean | null;
  /** An answer someone can act on; unknown answers are not billed. */
  billable: boolean;
  /** When the background retry runs (epoch ms), for deferred answers. */
  retryAt: number | null;
}

/** An unconfirmed guess scores low: it rests on how common its format is, nothing else. */
const GUESS_SCORE = 20;
const ACCEPT_ALL_GUESS_SCORE = Math.min(ACCEPT_ALL_SCORE_CAP, 40);

/** What a Gravatar profile or a WKD key for the guessed address adds on a domain that accepts everything. */
const WEB_EVIDENCE_POINTS = 15;

/**
 * `withEvidence`: on an accept-all domain, the likeliest candidate that has a Gravatar profile or a
 * WKD key (web-evidence.ts), which then leads the answer; null when none has.
 */
export function confirmedAnswer(
  c: Confirmation,
  domain: string,
  verifiedStatus: string | null,
  withEvidence: Candidate | null = null,
): ConfirmedAnswer {
  if (c.kind === "confirmed") {
    const p = c.probe;
    const status = verifiedStatus ?? (p.disabled ? "invalid" : "valid");
    const score = p.disabled ? 10 : p.fullInbox ? 70 : 90;
    return {
      email: `${c.candidate.local}@${domain}`,
      pattern: c.candidate.pattern,
      score,
      status,
      acceptAll: false,
      billable: true,
      retryAt: null,
    };
  }
  const guess = { email: `${c.best.local}@${domain}`, pattern: c.best.pattern };
  if (c.kind === "accept_all") {
    const lead = withEvidence ?? c.best;
    return {
      email: `${lead.local}@${domain}`,
      pattern: lead.pattern,
      score: withEvidence
        ? Math.min(ACCEPT_ALL_SCORE_CAP, ACCEPT_ALL_GUESS_SCORE + WEB_EVIDENCE_POINTS)
        : ACCEPT_ALL_GUESS_SCORE,
      status: "accept_all",
      acceptAll: true,
      billable: true,
      retryAt: null,
    };
  }
  return {
    ...guess,
    score: c.lead ? GUESS_SCORE + WEB_EVIDENCE_POINTS : GUESS_SCORE,
    status: "unknown",
    acceptAll: null,
    billable: false,
    retryAt: c.kind === "refused" ? null : c.retryAt,
  };
}

export const retryNote = (retryAt: number | null) => (retryAt ? rfc3339(retryAt) : null);

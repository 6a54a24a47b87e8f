import { eq, inArray } from "drizzle-orm";
import { domains, emailSources } from "../../db/schema-index.js";
import { groupByIndex, type IndexEnv, indexFor, indexWritersFor } from "../../db/shards.js";
import type { Env } from "../../env.js";
import { rfc3339 } from "../../platform/time.js";
import { isDisposableDomain, isRoleLocalPart, isWebmailDomain } from "../data/domain-lists.js";
import { detectMailProvider, hasAddress, resolveMx } from "../dns/resolver.js";
import { assertEmailNotClaimed } from "../index/claims.js";
import { sourceOut } from "../index/read.js";
import { type Memo, noMemo } from "../memo.js";
import { parseEmail, suggestCorrection } from "./email-syntax.js";
import { gibberishVerdict } from "./gibberish.js";
import { gatewayFor, SmtpGateway } from "./probe-gateway.js";
import type { ProbeResult, SmtpProber } from "./smtp-prober.js";
import type { Verdict, VerdictReason, VerifierData, VerifierSource } from "./verdict.js";
import { webEvidence } from "./web-evidence.js";

/**
 * Email verification from evidence: syntax, DNS (MX, null MX, implicit MX), lists, the index of
 * addresses seen on the web and, when a prober is configured, the SMTP conversation. Without SMTP
 * evidence nothing is called `deliverable`: the answer says what was and was not checked.
 */

export type { VerdictReason, VerifierData, VerifierSource, VerifierStatus } from "./verdict.js";

/** The verdict while it is being worked out, with the sources that feed its score; split at the end. */
type Draft = Verdict & { sources: VerifierSource[] };

export interface Verification {
  /** The wire shape (docs/wire-contract.md §6.1): `email` is the verdict object, `sources` beside it. */
  data: VerifierData;
  /** A verdict someone can act on (anything but `unknown`); what the caller is billed for. */
  definitive: boolean;
  /** SMTP conversations this verdict cost (0 without a check or from the cache): part of a finder answer's cap. */
  conversations: number;
}

export interface VerifyOptions {
  prober?: SmtpProber;
  /** Shares claim checks and the stored catch-all verdict between the rows of a bulk batch. */
  memo?: Memo;
}

const NO_WHOIS = { registrar_name: null, referral_url: null, created_date: null };

const NOTES = {
  invalid_syntax: "The address is not syntactically valid, so no network check was made.",
  no_such_domain: "The domain does not exist (DNS answered NXDOMAIN).",
  null_mx: "The domain publishes a null MX record (RFC 7505): it accepts no email at all.",
  no_mail_server: "The domain has neither an MX record nor an address record, so no server can receive its email.",
  smtp_not_run:
    "The SMTP check was not run (no SMTP prober is configured), so the mailbox itself was not tested; the verdict rests on syntax, DNS and lists and is not claimed deliverable.",
  webmail:
    "Webmail providers are not SMTP-checked (they do not reveal which mailboxes exist); the domain and syntax are valid.",
  disposable: "The domain belongs to a disposable (throwaway) email service; the mailbox was not SMTP-checked.",
} as const;

export async function verifyEmail(env: Env, input: string, options: VerifyOptions = {}): Promise<Verification> {
  const { draft, definitive, conversations = 0 } = await judge(env, input, options);
  const { sources, ...verdict } = draft;
  return { data: { email: verdict, sources }, definitive, conversations };
}

interface Judgement {
  draft: Draft;
  definitive: boolean;
  conversations?: number;
}

async function judge(env: Env, input: string, options: VerifyOptions): Promise<Judgement> {
  const email = input.trim();
  const parsed = parseEmail(email);
  if (!parsed.ok) {
    return {
      definitive: true,
      draft: {
        ...blank(email),
        status: "invalid",
        result: "undeliverable",
        reason: "invalid_syntax",
        note: `${NOTES.invalid_syntax} ${parsed.message}`,
      },
    };
  }

  const memo = options.memo ?? noMemo;
  await assertEmailNotClaimed(env, memo, parsed.normalised);

  const { localPart, domain } = parsed;
  const disposable = isDisposableDomain(domain);
  const webmail = !disposable && isWebmailDomain(domain);
  const role = isRoleLocalPart(localPart);
  const gibberish = gibberishVerdict(localPart).gibberish;
  const flags = {
    regex: true,
    disposable,
    webmail,
    role,
    gibberish,
    did_you_mean: suggestCorrection(localPart, domain),
  };

  // DnsUnavailableError (503) propagates: an unresolvable domain gets no verdict.
  const mx = await resolveMx(env, domain);
  const deadDomain = (reason: "no_such_domain" | "null_mx" | "no_mail_server"): Judgement => ({
    definitive: true,
    draft: { ...blank(email), ...flags, status: "invalid", result: "undeliverable", reason, note: NOTES[reason] },
  });
  if (mx.nxdomain) return deadDomain("no_such_domain");
  if (mx.nullMx) return deadDomain("null_mx");

  let mxHosts = mx.records.map((r) => r.exchange);
  let implicitMx = false;
  if (mxHosts.length === 0) {
    if (!(await hasAddress(env, domain))) return deadDomain("no_mail_server");
    implicitMx = true;
    mxHosts = [domain];
  }

  const sources = (await memo.together("sources", parsed.normalised, (keys) => sourcesOfMany(env, keys))) ?? [];
  const base: Draft = {
    ...blank(email),
    ...flags,
    mx_records: true,
    mx_check: true,
    mx: { records: mxHosts },
    implicit_mx: implicitMx,
    smtp_provider: detectMailProvider(mxHosts),
    sources,
  };

  if (disposable) {
    return {
      definitive: true,
      draft: { ...base, status: "disposable", result: "risky", score: 50, note: NOTES.disposable },
    };
  }
  if (webmail) {
    return { definitive: true, draft: { ...base, status: "webmail", result: "risky", score: 50, note: NOTES.webmail } };
  }

  const prober = options.prober ?? gatewayFor(env);
  const address = `${parsed.localPart}@${domain}`;
  const probe = await (prober instanceof SmtpGateway ? prober.check(address, { mxHosts }) : prober.probe(address));
  if (probe.ran && probe.catchAll !== null) await rememberCatchAll(env, domain, probe.catchAll);
  const knownCatchAll = probe.ran ? null : await memo.once(`catch-all:${domain}`, () => storedCatchAll(env, domain));
  const conversations = "conversations" in probe && typeof probe.conversations === "number" ? probe.conversations : 0;
  return { ...(await withWebEvidence(env, fromProbe(base, probe, knownCatchAll))), conversations };
}

/**
 * An open verdict (unknown, accept_all) gains from evidence the Worker gathers itself: a Gravatar
 * profile or a published OpenPGP key for the exact address says it exists. It raises the score (an
 * accept-all address stays under its cap) and the note says so; it never makes the address `valid`,
 * which only the mail server can say. Absence of both says nothing.
 */
async function withWebEvidence(env: Env, judged: Judgement): Promise<Judgement> {
  const { draft } = judged;
  if (draft.status !== "unknown" && draft.status !== "accept_all") return judged;
  const evidence = await webEvidence(env, draft.email);
  const found = [
    evidence.gravatar ? "a Gravatar profile" : null,
    evidence.wkd ? "an OpenPGP key in the domain's Web Key Directory" : null,
  ].filter(Boolean);
  if (found.length === 0) return judged;
  const cap = draft.status === "accept_all" ? ACCEPT_ALL_SCORE_CAP : 100;
  return {
    ...judged,
    draft: {
      ...draft,
      score: Math.min(cap, draft.score + WEB_EVIDENCE_POINTS),
      note: `${draft.note} ${found.join(" and ")} exists for this exact address: evidence that it is in use.`,
    },
  };
}

/** What a Gravatar profile or a WKD key adds to an open verdict's score. */
const WEB_EVIDENCE_POINTS = 15;

/** Turns the SMTP evidence (or its absence) into the verdict. */
function fromProbe(base: Draft, probe: ProbeResult, knownCatchAll: boolean | null): Judgement {
  const penalties = (base.role ? 10 : 0) + (base.gibberish ? 30 : 0);
  // Seen on a public page that still shows it: evidence the mailbox is in use.
  const seen = base.sources.some((s) => s.still_on_page) ? 20 : 0;
  const score = (n: number) => Math.max(0, Math.min(100, Math.round(n)));
  const smtp = {
    smtp_check_run: probe.ran,
    smtp_server: probe.canConnect === true,
    block: probe.blocked,
    greylisted: probe.greylisted,
  };
  // The check said nothing about the mailbox (paced, refused, greylisted): the verdict stays open.
  const open = (reason: VerdictReason, note: string): Judgement => ({
    definitive: false,
    draft: { ...base, ...smtp, status: "unknown", result: "risky", score: score(30 + seen - penalties), reason, note },
  });
  const retryAt = (what: string) =>
    probe.retryAt ? ` ${what} scheduled for ${rfc3339(probe.retryAt)}; ask again after that time for its answer.` : "";

  if (probe.paced)
    return open(
      "smtp_paced",
      `The SMTP check was not run yet: the checks this mail host allows at once are all taken, and we do not exceed them.${retryAt("It is")}`,
    );

  if (!probe.ran) {
    const acceptAll = knownCatchAll === true;
    const note = acceptAll
      ? `${NOTES.smtp_not_run} An earlier SMTP check found that this domain accepts every address (catch-all).`
      : NOTES.smtp_not_run;
    return {
      definitive: acceptAll,
      draft: {
        ...base,
        ...smtp,
        status: acceptAll ? "accept_all" : "unknown",
        result: "risky",
        accept_all: acceptAll,
        score: score((base.implicit_mx ? 30 : 40) + seen - penalties),
        reason: "smtp_not_run",
        note,
      },
    };
  }

  // The server refused to talk to the prober (blocklisted IP, no reverse DNS, policy): nothing is
  // known about the mailbox, so the verdict stays open; never `invalid`.
  if (probe.blocked)
    return open(
      "smtp_refused",
      `The mail server refused to talk to our SMTP checker (${probe.error ?? "policy"}), so the mailbox could not be tested; this says nothing about the address itself.`,
    );

  if (probe.greylisted)
    return open(
      "smtp_greylisted",
      `The mail server deferred the check with a temporary error (greylisting: ${probe.error ?? "try again later"}).${retryAt("A new check is")}`,
    );

  // Reacher reports a full mailbox as not deliverable (`has_full_inbox: true, is_deliverable:
  // false`): the mailbox exists, so it is not `invalid`; it refuses mail for now, so it is risky.
  if (probe.fullInbox === true && probe.disabled !== true) {
    return {
      definitive: true,
      draft: {
        ...base,
        ...smtp,
        status: "valid",
        result: "risky",
        smtp_check: true,
        score: score(70 - penalties),
        note: "The mail server confirmed the mailbox exists, but it is full and currently refuses new mail.",
      },
    };
  }

  if (probe.disabled === true || probe.deliverable === false || probe.reachability === "invalid") {
    const disabled = probe.disabled === true;
    return {
      definitive: true,
      draft: {
        ...base,
        ...smtp,
        status: "invalid",
        result: "undeliverable",
        score: 0,
        reason: disabled ? "mailbox_disabled" : "mailbox_not_found",
        note: disabled
          ? "The mail server reports this mailbox as disabled."
          : "The mail server rejected this mailbox (it does not exist).",
      },
    };
  }

  if (probe.catchAll === true) {
    return {
      definitive: true,
      draft: {
        ...base,
        ...smtp,
        status: "accept_all",
        result: "risky",
        accept_all: true,
        score: score(Math.min(ACCEPT_ALL_SCORE_CAP, 60 + seen - penalties)),
        note: 'The mail server accepts every address at this domain (a catch-all, or a Microsoft 365 tenant answering "250 Recipient OK" to anything), so it cannot confirm this mailbox exists.',
      },
    };
  }

  if (probe.deliverable === true) {
    return {
      definitive: true,
      draft: {
        ...base,
        ...smtp,
        status: "valid",
        result: "deliverable",
        smtp_check: true,
        score: score(100 - penalties),
        note: "The mail server confirmed that this mailbox exists and accepts mail.",
      },
    };
  }

  return {
    definitive: false,
    draft: {
      ...base,
      ...smtp,
      status: "unknown",
      result: "risky",
      score: score(30 + seen - penalties),
      reason: "smtp_inconclusive",
      note: `The SMTP check ran but the mail server gave no clear answer${probe.error ? ` (${probe.error})` : ""}.`,
    },
  };
}

/** The most an address at a domain that accepts everything can score: it is never proven. */
export const ACCEPT_ALL_SCORE_CAP = 70;

function blank(email: string): Draft {
  return {
    email,
    status: "unknown",
    result: "risky",
    score: 0,
    regex: false,
    gibberish: false,
    disposable: false,
    webmail: false,
    role: false,
    mx_records: false,
    mx_check: false,
    mx: { records: [] },
    implicit_mx: false,
    smtp_provider: null,
    smtp_server: false,
    smtp_check: false,
    smtp_check_run: false,
    accept_all: false,
    block: false,
    greylisted: false,
    whois: { ...NO_WHOIS },
    did_you_mean: null,
    reason: null,
    note: "",
    sources: [],
  };
}

// D1 binds at most 100 parameters per statement.
const SOURCES_CHUNK = 90;

/** Up to 20 sources of each address, for several addresses in one query per 90 (a bulk batch's rows). */
async function sourcesOfMany(env: IndexEnv, normalisedEmails: string[]): Promise<Map<string, VerifierSource[]>> {
  const out = new Map<string, VerifierSource[]>(normalisedEmails.map((e) => [e, []]));
  for (const [index, unique] of await groupByIndex(env, [...new Set(normalisedEmails)]))
    for (let i = 0; i < unique.length; i += SOURCES_CHUNK) {
      const slice = unique.slice(i, i + SOURCES_CHUNK);
      const query = index.select().from(emailSources);
      // One address (every /v1 call): the database stops at 20 rows.
      const [only, ...more] = slice;
      const rows =
        only !== undefined && more.length === 0
          ? await query.where(eq(emailSources.email, only)).limit(20).all()
          : await query.where(inArray(emailSources.email, slice)).all();
      for (const r of rows) {
        const list = out.get(r.email); // present: the rows are those of the addresses asked for
        if (!list || list.length >= 20) continue;
        list.push(sourceOut(r));
      }
    }
  return out;
}

async function storedCatchAll(env: IndexEnv, domain: string): Promise<boolean | null> {
  const row = await (await indexFor(env, domain))
    .select({ acceptAll: domains.acceptAll })
    .from(domains)
    .where(eq(domains.domain, domain))
    .get();
  return row?.acceptAll ?? null;
}

/** Keeps the prober's catch-all verdict on the domain row, when the domain is already indexed. */
async function rememberCatchAll(env: IndexEnv, domain: string, acceptAll: boolean): Promise<void> {
  for (const index of await indexWritersFor(env, domain))
    await index.update(domains).set({ acceptAll, updatedAt: Date.now() }).where(eq(domains.domain, domain)).run();
}

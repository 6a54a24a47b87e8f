import type { Env } from "../../env.js";
import { Unavailable } from "../errors.js";

/**
 * The SMTP step of verification. A Worker cannot open port 25, so the mailbox check is delegated to
 * a prober running elsewhere; without one, the verifier says plainly that the SMTP check was not run.
 */

export type Reachability = "safe" | "risky" | "invalid" | "unknown";

export interface ProbeResult {
  /** False when no prober is configured: every other field is then null. */
  ran: boolean;
  /** Which prober answered ("reacher"), or null when none ran. */
  prober: string | null;
  reachability: Reachability | null;
  /** The prober reached the domain's mail server. */
  canConnect: boolean | null;
  /** The server accepted RCPT TO for this mailbox. */
  deliverable: boolean | null;
  /** The server accepts any mailbox (tested with a random one on the same connection). */
  catchAll: boolean | null;
  disabled: boolean | null;
  fullInbox: boolean | null;
  /** The server refused to talk to the prober (blocklisted IP, policy rejection). */
  blocked: boolean;
  /** The server answered with a temporary 4xx that looks like greylisting. */
  greylisted: boolean;
  /** The prober's own account of an SMTP failure, when it gave one. */
  error: string | null;
  /** When a deferred check is tried again in the background, epoch ms; set by the gateway. */
  retryAt?: number | null;
  /** Not run yet: the mail host's pace was full (the gateway defers it). */
  paced?: boolean;
  /**
   * Read as nonexistent at a first contact on a domain whose published address read so too: not
   * believed yet, deferred like greylisting (smtp-domains.ts says why).
   */
  rejectionUnreliable?: boolean;
}

export interface SmtpProber {
  readonly name: string;
  probe(email: string): Promise<ProbeResult>;
}

/** A check that did not run: every finding unknown. */
export const NOT_RUN: ProbeResult = {
  ran: false,
  prober: null,
  reachability: null,
  canConnect: null,
  deliverable: null,
  catchAll: null,
  disabled: null,
  fullInbox: null,
  blocked: false,
  greylisted: false,
  error: null,
};

export class NoSmtpProber implements SmtpProber {
  readonly name = "none";
  async probe(): Promise<ProbeResult> {
    return { ...NOT_RUN };
  }
}

/** The prober itself could not be asked (down, misconfigured, answered garbage): a 503, unbilled. */
export class SmtpProberUnavailableError extends Unavailable {
  constructor(reason: string) {
    super(
      "smtp_prober",
      `The mailbox check could not be run (${reason}), so no verdict was given and nothing was charged. Try again in a minute.`,
      30,
    );
    this.name = "SmtpProberUnavailableError";
  }
}

/** The prober's own throttle refused the check (Reacher's 429): a 503 with its wait, unbilled. */
export class SmtpProberThrottledError extends Unavailable {
  constructor(readonly waitSeconds: number) {
    super(
      "smtp_prober",
      `The mailbox check was not run because the SMTP prober is pacing its checks, so no verdict was given and nothing was charged. Try again in ${waitSeconds} s.`,
      waitSeconds,
    );
    this.name = "SmtpProberThrottledError";
  }
}

/** Seconds to wait from Reacher's "please wait 12.5s" (rounded up), 60 when it does not say. */
function waitOf(message: string): number {
  const m = /wait\s+([\d.]+)\s*(ms|s)\b/.exec(message);
  if (!m) return 60;
  const seconds = m[2] === "ms" ? Number(m[1]) / 1000 : Number(m[1]);
  return Math.max(1, Math.ceil(seconds));
}

/** The subset of Reacher's `CheckEmailOutput` this adapter reads. */
interface ReacherOutput {
  is_reachable?: string;
  smtp?: {
    can_connect_smtp?: boolean;
    has_full_inbox?: boolean;
    is_catch_all?: boolean;
    is_deliverable?: boolean;
    is_disabled?: boolean;
  } & ReacherSmtpError;
}

/** Reacher's error envelope: the SMTP error and, when its parser recognised one, what it means. */
interface ReacherSmtpError {
  error?: { type?: string; message?: unknown };
  /** "IpBlacklisted" or "NeedsRDNS" (core/src/smtp/error.rs `SmtpErrorDesc`). */
  description?: string;
}

// Reacher's SMTP checks take up to ~45 s on slow servers (its own default timeouts).
const REACHER_TIMEOUT_MS = 60_000;
const REACHABILITY = new Set<Reachability>(["safe", "risky", "invalid", "unknown"]);

/**
 * HTTP adapter for a self-hosted Reacher backend (`POST /v1/check_email`). Reacher is AGPL and runs
 * as its own service; this talks to it over HTTP only.
 */
export class ReacherProber implements SmtpProber {
  readonly name = "reacher";
  private readonly endpoint: string;

  constructor(
    baseUrl: string,
    private readonly secret?: string,
    private readonly fetcher: typeof fetch = (input, init) => fetch(input, init),
    private readonly timeoutMs = REACHER_TIMEOUT_MS,
  ) {
    this.endpoint = new URL("v1/check_email", baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`).toString();
  }

  async probe(email: string): Promise<ProbeResult> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (this.secret) headers["x-reacher-secret"] = this.secret;
    let res: Response;
    try {
      res = await this.fetcher(this.endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify({ to_email: email }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      throw new SmtpProberUnavailableError(
        timedOut ? "the SMTP prober timed out" : "the SMTP prober could not be reached",
      );
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw new SmtpProberUnavailableError("the SMTP prober refused our credentials; check REACHER_SECRET");
    }
    if (res.status === 429) {
      // Reacher's own throttle (RCH__THROTTLE__*): `{"error": "Rate limit per minute exceeded, please wait 12.5s"}`.
      const body = (await res.json().catch(() => null)) as { error?: unknown } | null;
      throw new SmtpProberThrottledError(waitOf(typeof body?.error === "string" ? body.error : ""));
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new SmtpProberUnavailableError(`the SMTP prober answered HTTP ${res.status}`);
    }
    let out: ReacherOutput;
    try {
      out = (await res.json()) as ReacherOutput;
    } catch {
      throw new SmtpProberUnavailableError("the SMTP prober sent an unreadable answer");
    }
    return mapReacherOutput(out);
  }
}

/**
 * Reacher's answer read as evidence. Its shapes (core/src/smtp/connect.rs, parser.rs, lib.rs): a full
 * mailbox is `is_deliverable: false, has_full_inbox: true` ("risky"); a disabled one `is_disabled:
 * true` ("invalid"); a catch-all domain `is_catch_all: true, is_deliverable: true`; any failure of
 * the conversation itself (a 4xx deferral, the prober refused at MAIL FROM, a timeout) replaces the
 * flags with `{error: {type, message}, description?}`, where async-smtp prints the message as
 * "transient: …" (4xx) or "permanent: …" (5xx).
 */
export function mapReacherOutput(out: ReacherOutput): ProbeResult {
  const reachability = REACHABILITY.has(out.is_reachable as Reachability)
    ? (out.is_reachable as Reachability)
    : "unknown";
  const smtp = out.smtp ?? {};
  const bool = (v: unknown) => (typeof v === "boolean" ? v : null);
  const error = smtp.error ? `${smtp.error.type ?? "error"}: ${describe(smtp.error.message)}`.slice(0, 300) : null;
  const errorText = (error ?? "").toLowerCase();
  const blocked =
    !!error &&
    (smtp.description === "IpBlacklisted" || smtp.description === "NeedsRDNS" || REFUSED_PROBER.test(errorText));
  return {
    ran: true,
    prober: "reacher",
    reachability,
    canConnect: bool(smtp.can_connect_smtp) ?? (error ? false : null),
    deliverable: bool(smtp.is_deliverable),
    catchAll: bool(smtp.is_catch_all),
    disabled: bool(smtp.is_disabled),
    fullInbox: bool(smtp.has_full_inbox),
    blocked,
    // A 4xx that is not a refusal of the prober is a deferral: greylisting by name or not.
    greylisted: !blocked && !!error && (/greylist|graylist/.test(errorText) || /\btransient:/.test(errorText)),
    error,
  };
}

/** Refusals of the prober itself, as Reacher's parser recognises them (`is_err_ip_blacklisted`, `is_err_needs_rdns`). */
const REFUSED_PROBER =
  /blacklist|black list|block list|blocklist|spamhaus|spamcop|abusix|dnsbl|blocked|banned|access denied|administratively denied|relaying denied|relay not permitted|connection rejected|poor reputation|junkmail|refused by proofpoint|sbrs score|not yet authorized|reverse hostname|reverse dns|\bpolicy\b/;

function describe(message: unknown): string {
  if (typeof message === "string") return message;
  try {
    return JSON.stringify(message);
  } catch {
    return String(message);
  }
}

/** REACHER_URL selects the Reacher adapter; otherwise the SMTP step is not run. */
export function proberFor(env: Pick<Env, "REACHER_URL" | "REACHER_SECRET">): SmtpProber {
  return env.REACHER_URL ? new ReacherProber(env.REACHER_URL, env.REACHER_SECRET) : new NoSmtpProber();
}

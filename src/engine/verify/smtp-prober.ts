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
}

export interface SmtpProber {
  readonly name: string;
  probe(email: string): Promise<ProbeResult>;
}

const NOT_RUN: ProbeResult = {
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

/** The subset of Reacher's `CheckEmailOutput` this adapter reads. */
interface ReacherOutput {
  is_reachable?: string;
  smtp?: {
    can_connect_smtp?: boolean;
    has_full_inbox?: boolean;
    is_catch_all?: boolean;
    is_deliverable?: boolean;
    is_disabled?: boolean;
    error?: { type?: string; message?: unknown };
  };
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

export function mapReacherOutput(out: ReacherOutput): ProbeResult {
  const reachability = REACHABILITY.has(out.is_reachable as Reachability)
    ? (out.is_reachable as Reachability)
    : "unknown";
  const smtp = out.smtp ?? {};
  const bool = (v: unknown) => (typeof v === "boolean" ? v : null);
  // Reacher reports an SMTP failure as `smtp.error` instead of the boolean fields.
  const error = smtp.error ? `${smtp.error.type ?? "error"}: ${describe(smtp.error.message)}`.slice(0, 300) : null;
  const errorText = (error ?? "").toLowerCase();
  return {
    ran: true,
    prober: "reacher",
    reachability,
    canConnect: bool(smtp.can_connect_smtp) ?? (error ? false : null),
    deliverable: bool(smtp.is_deliverable),
    catchAll: bool(smtp.is_catch_all),
    disabled: bool(smtp.is_disabled),
    fullInbox: bool(smtp.has_full_inbox),
    blocked: /blacklist|blocklist|blocked|spamhaus|\bpolicy\b|access denied/.test(errorText),
    greylisted: /greylist|graylist|try again later|temporar/.test(errorText),
    error,
  };
}

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

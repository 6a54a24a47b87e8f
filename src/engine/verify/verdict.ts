import type { SourceOut } from "../index/read.js";

/**
 * The verifier's verdict on one address, as the engine states it. The answer's schema
 * (src/capabilities/shapes/verifier.ts) is checked against these types at compile time.
 */

export const VERIFIER_STATUSES = ["valid", "invalid", "accept_all", "webmail", "disposable", "unknown"] as const;
export const VERIFIER_RESULTS = ["deliverable", "undeliverable", "risky"] as const;

/** Why an address is invalid (or why the verdict stayed open), machine-readable. */
export const VERDICT_REASONS = [
  "invalid_syntax",
  "no_such_domain",
  "null_mx",
  "no_mail_server",
  "mailbox_not_found",
  "mailbox_disabled",
  "smtp_not_run",
  "smtp_inconclusive",
  "smtp_greylisted",
  "smtp_refused",
  "smtp_paced",
] as const;

export type VerifierStatus = (typeof VERIFIER_STATUSES)[number];
export type VerdictReason = (typeof VERDICT_REASONS)[number] | null;

export interface Verdict {
  email: string;
  status: VerifierStatus;
  result: (typeof VERIFIER_RESULTS)[number];
  score: number;
  regex: boolean;
  gibberish: boolean;
  disposable: boolean;
  webmail: boolean;
  role: boolean;
  mx_records: boolean;
  mx_check: boolean;
  mx: { records: string[] };
  implicit_mx: boolean;
  smtp_provider: string | null;
  smtp_server: boolean;
  smtp_check: boolean;
  smtp_check_run: boolean;
  accept_all: boolean;
  block: boolean;
  greylisted: boolean;
  whois: { registrar_name: string | null; referral_url: string | null; created_date: string | null };
  did_you_mean: string | null;
  reason: VerdictReason;
  note: string;
}

export type VerifierSource = SourceOut;

export interface VerifierData {
  email: Verdict;
  sources: VerifierSource[];
}

import type { BulkOptionValues } from "../capabilities/core/registry.js";
import { rfc3339 } from "../platform/time.js";
import type { RowCounts } from "./ingest.js";
import type { RowOutcome } from "./storage.js";

// A job's state and the view the API serves of it, apart from the BulkJob object so that the D1
// jobs table and the end event can name the view without an import cycle through the object.

export type JobStatus = "pending" | "running" | "completed" | "failed" | "cancelled";

/** What the job was created with; served as `config` (contract 5.8, gen 2). */
export interface JobConfig {
  v: 1;
  input: {
    source: "file" | "data" | "list";
    has_header: boolean;
    delimiter: string | null;
    original_file_name: string | null;
    rows: number;
    fields: Record<string, number>;
  };
  options: BulkOptionValues;
  notify: boolean;
  webhook?: { url: string };
}

export interface JobInit {
  id: number;
  accountId: number;
  type: string;
  name: string;
  createdAt: number;
  prefix: string;
  config: JobConfig;
  /** Capability parameter -> column, used to build each row's call. */
  fields: Record<string, number>;
  header: string[];
  resultHeader: string[];
  chunks: number;
  /** Rows per input chunk, fixed at create time. */
  chunkRows: number;
  counts: RowCounts;
  /** The columns a row needs, in words ("Domain + Full name, or ..."), for the reasons rows are invalid. */
  needs?: string;
}

export interface JobState extends JobInit {
  status: JobStatus;
  archived: boolean;
  startedAt: number | null;
  completedAt: number | null;
  cancelledAt: number | null;
  expiredAt: number;
  errorMessage: string | null;
  retryCount: number;
  /** Bumped by every launch and retry; queue messages of an older run are dropped. */
  run: number;
  downloads: number;
  /** Last progress milestone written to the history (25, 50, 75). */
  milestone: number;
  /** First chunk not yet considered for sending in this run (chunks go out a window at a time). */
  cursor?: number;
  /** The job ended but its index row and end event may not be out yet (the alarm finishes them). */
  ending?: boolean;
}

/** Rows of one outcome and reason, with one of their messages. */
export interface ReasonGroup {
  outcome: RowOutcome;
  reason: string;
  n: number;
  sample: string | null;
}

export interface Aggregate {
  byOutcome: Partial<Record<RowOutcome, number>>;
  byReason: ReasonGroup[];
  emails: number;
  credits: { search: number; verification: number; phone: number };
  lastAt: number | null;
}

export type JobView = ReturnType<typeof renderJob>;

const pct = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 10_000) / 100 : 0);
const rows = (n: number) => `${n.toLocaleString("en")} row${n === 1 ? "" : "s"}`;
const quote = (s: string | null) => (s ? ` ("${s.length > 140 ? `${s.slice(0, 137)}...` : s}")` : "");

/** Reasons in the order the summary lists them when their counts tie. */
const REASON_ORDER = [
  "found",
  "not_found",
  "waiting",
  "filtered",
  "blank",
  "missing",
  "refused",
  "duplicate",
  "has_email",
  "skipped",
  "over_cap",
];
const orderOf = (g: ReasonGroup) =>
  REASON_ORDER.includes(g.reason) ? REASON_ORDER.indexOf(g.reason) : g.outcome === "client_error" ? 20 : 30;
const byCount = (a: ReasonGroup, b: ReasonGroup) =>
  b.n - a.n || orderOf(a) - orderOf(b) || a.reason.localeCompare(b.reason);

/** A reason code in words, for the distribution's labels and the summary ("N rows <phrase>"). */
function reasonLabel(g: ReasonGroup, needs: string): { label: string; phrase: string } {
  const were = g.n === 1 ? "was" : "were";
  switch (g.reason) {
    case "found":
      return { label: "Found", phrase: "found" };
    case "not_found":
      return { label: "Not found", phrase: "found nothing" };
    case "waiting":
      return {
        label: "Waiting on the mail server (greylisting or pacing)",
        phrase: `${were} waiting on a deferred mailbox check (not billed; retry the job later for their answer)${quote(g.sample)}`,
      };
    case "filtered":
      return {
        label: "Withheld by the job's filters",
        phrase: `had their answer withheld by the job's filters${quote(g.sample)}`,
      };
    case "blank":
      return { label: "Blank row", phrase: `${were} blank` };
    case "missing":
      return { label: "Missing columns", phrase: `had no ${needs}` };
    case "refused":
      return { label: "Invalid input", phrase: `${were} invalid input${quote(g.sample)}` };
    case "duplicate":
      return { label: "Duplicate", phrase: "repeated an earlier row's lookup (not run again)" };
    case "has_email":
    case "skipped":
      return { label: "Already has an email", phrase: "already had an email address (skip_rows_with_email)" };
    case "over_cap":
      return { label: "Over max_emails_per_domain", phrase: `${were} over max_emails_per_domain for their domain` };
    default:
      return g.outcome === "server_error"
        ? { label: `Failed on our side (${g.reason})`, phrase: `failed on our side, retry the job${quote(g.sample)}` }
        : { label: `Refused (${g.reason})`, phrase: `failed${quote(g.sample)}` };
  }
}

/**
 * One sentence saying what became of the rows: "2 found, 1 not found: 1 row had no Domain +
 * Full name; 1 row failed (...)". A job whose rows all fail says why ("0 found: 120 rows had no
 * Domain + Full name."). Null before any row is done.
 */
export function summarise(job: JobState, agg: Aggregate): string | null {
  const done = agg.byReason.reduce((a, g) => a + g.n, 0);
  if (done === 0) return null;
  const n = (o: RowOutcome) => agg.byOutcome[o] ?? 0;
  const needs = job.needs ?? "the columns its type needs";
  const head = [
    `${n("found").toLocaleString("en")} found`,
    ...(n("not_found") ? [`${n("not_found").toLocaleString("en")} not found`] : []),
  ];
  const why = agg.byReason
    .filter((g) => g.reason !== "found" && g.reason !== "not_found")
    .sort(byCount)
    .map((g) => `${rows(g.n)} ${reasonLabel(g, needs).phrase}`);
  const pending = job.counts.input - done;
  const tail = job.status === "running" && pending > 0 ? ` (${rows(pending)} to go)` : "";
  return `${head.join(", ")}${why.length ? `: ${why.join("; ")}` : ""}${tail}.`;
}

/** The job as the API serves it (gen 2 object, with the gen 1 counters kept). */
export function renderJob(job: JobState, agg: Aggregate, now: number, preview?: Record<string, string>[]) {
  const n = (o: RowOutcome) => agg.byOutcome[o] ?? 0;
  const done = Object.values(agg.byOutcome).reduce((a, b) => a + (b ?? 0), 0);
  const found = n("found");
  const notFound = n("not_found");
  const errors = n("client_error") + n("server_error");
  // Rows the capability refused as invalid when they ran move from valid_input to invalid_input.
  const refused = agg.byReason.filter((g) => g.reason === "refused").reduce((a, g) => a + g.n, 0);
  const durationMs = job.startedAt ? (job.completedAt ?? job.cancelledAt ?? agg.lastAt ?? now) - job.startedAt : 0;
  const rowsPerMinute = durationMs > 0 ? Math.round((done / durationMs) * 60_000 * 100) / 100 : 0;
  const emailType = job.type === "finder" || job.type === "search" || job.type === "author" || job.type === "linkedin";
  const ended = job.status === "completed" || job.status === "failed" || job.status === "cancelled";
  // Billing is final once the job has ended with rows done: credits were settled chunk by chunk.
  const billed = ended && done > 0;
  const needs = job.needs ?? "the columns its type needs";
  return {
    id: job.id,
    bulk_id: job.id,
    user_id: job.accountId,
    bulk_type: job.type,
    name: job.name,
    status: job.status,
    archived: job.archived,
    progress: Math.min(100, Math.floor((done / Math.max(1, job.counts.input)) * 100)),
    /** Gen 1: rows done, whatever became of them (so progress reaches 100). */
    processed: done,
    billed,
    error_message: job.errorMessage,
    summary: summarise(job, agg),
    retry_count: job.retryCount,
    created_at: rfc3339(job.createdAt),
    started_at: rfc3339(job.startedAt),
    completed_at: rfc3339(job.completedAt),
    cancelled_at: rfc3339(job.cancelledAt),
    expired_at: rfc3339(job.expiredAt),
    expired: now >= job.expiredAt,
    config: job.config,
    metrics: {
      v: 1 as const,
      partial: job.status !== "completed",
      // input = valid_input + invalid_input + duplicates + skipped; once every row ran, valid_input = processed + errors.
      rows: {
        input: job.counts.input,
        valid_input: job.counts.valid_input - refused,
        invalid_input: job.counts.invalid_input + refused,
        duplicates: job.counts.duplicates,
        skipped: job.counts.skipped,
        processed: found + notFound,
        errors,
      },
      results: { found, not_found: notFound, hit_rate: pct(found, found + notFound), records: agg.emails || found },
      distribution: {
        rows: agg.byReason
          .slice()
          .sort(byCount)
          .map((g) => ({ key: g.reason, label: reasonLabel(g, needs).label, count: g.n, percent: pct(g.n, done) })),
      },
      ...(emailType
        ? { emails: { total: agg.emails, per_found_row: found ? Math.round((agg.emails / found) * 100) / 100 : 0 } }
        : {}),
      errors: { client: n("client_error"), server: n("server_error"), rate_limited: 0 },
      credits: {
        search: agg.credits.search,
        verify: agg.credits.verification,
        phone: agg.credits.phone,
        total: agg.credits.search + agg.credits.verification + agg.credits.phone,
      },
      timing: {
        queued_ms: job.startedAt ? Math.max(0, job.startedAt - job.createdAt) : 0,
        duration_ms: durationMs,
        rows_per_minute: rowsPerMinute,
      },
    },
    ...(billed && preview ? { preview } : {}),
  };
}

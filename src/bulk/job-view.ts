import type { BulkOptionValues } from "../capabilities/core/registry.js";
import { rfc3339 } from "../http/time.js";
import type { RowOutcome } from "./storage.js";

// A job's state and the view the API serves of it, apart from the BulkJob object so that the D1
// jobs table and the end event can name the view without an import cycle through the object.

export type JobStatus = "pending" | "running" | "completed" | "failed" | "cancelled";

/** What the job was created with; served as `config` (contract 5.8, gen 2). */
export interface JobConfig {
  v: 1;
  input: { source: "file" | "data" | "list"; has_header: boolean; delimiter: string | null; original_file_name: string | null; rows: number; fields: Record<string, number> };
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
  counts: { input: number; valid_input: number; invalid_input: number; duplicates: number; skipped: number };
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
}

export interface Aggregate {
  byOutcome: Partial<Record<RowOutcome, number>>;
  emails: number;
  credits: { search: number; verification: number; phone: number };
  lastAt: number | null;
}

export type JobView = ReturnType<typeof renderJob>;

const pct = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 10_000) / 100 : 0);

/** The job as the API serves it (gen 2 object, with the gen 1 counters kept). */
export function renderJob(job: JobState, agg: Aggregate, now: number, preview?: Record<string, string>[]) {
  const n = (o: RowOutcome) => agg.byOutcome[o] ?? 0;
  const processed = Object.values(agg.byOutcome).reduce((a, b) => a + (b ?? 0), 0);
  const found = n("found");
  const notFound = n("not_found");
  const errors = n("client_error") + n("server_error");
  const durationMs = job.startedAt ? (job.completedAt ?? job.cancelledAt ?? agg.lastAt ?? now) - job.startedAt : 0;
  const rowsPerMinute = durationMs > 0 ? Math.round((processed / durationMs) * 60_000 * 100) / 100 : 0;
  const emailType = job.type === "finder" || job.type === "search" || job.type === "author" || job.type === "linkedin";
  const outcomes: [RowOutcome, string][] = [
    ["found", "Found"],
    ["not_found", "Not found"],
    ["invalid", "Invalid input"],
    ["skipped", "Skipped"],
    ["client_error", "Refused"],
    ["server_error", "Failed"],
  ];
  const billed = job.status === "completed";
  return {
    id: job.id,
    bulk_id: job.id,
    user_id: job.accountId,
    bulk_type: job.type,
    name: job.name,
    status: job.status,
    archived: job.archived,
    progress: Math.min(100, Math.floor((processed / Math.max(1, job.counts.input)) * 100)),
    processed,
    billed,
    error_message: job.errorMessage,
    retry_count: job.retryCount,
    created_at: rfc3339(job.createdAt)!,
    started_at: rfc3339(job.startedAt),
    completed_at: rfc3339(job.completedAt),
    cancelled_at: rfc3339(job.cancelledAt),
    expired_at: rfc3339(job.expiredAt)!,
    expired: now >= job.expiredAt,
    config: job.config,
    metrics: {
      v: 1 as const,
      partial: job.status !== "completed",
      rows: { ...job.counts, processed, errors },
      results: { found, not_found: notFound, hit_rate: pct(found, found + notFound), records: agg.emails || found },
      distribution: { rows: outcomes.map(([key, label]) => ({ key, label, count: n(key), percent: pct(n(key), processed) })) },
      ...(emailType ? { emails: { total: agg.emails, per_found_row: found ? Math.round((agg.emails / found) * 100) / 100 : 0 } } : {}),
      errors: { client: n("client_error"), server: n("server_error"), rate_limited: 0 },
      credits: { search: agg.credits.search, verify: agg.credits.verification, phone: agg.credits.phone, total: agg.credits.search + agg.credits.verification + agg.credits.phone },
      timing: { queued_ms: job.startedAt ? Math.max(0, job.startedAt - job.createdAt) : 0, duration_ms: durationMs, rows_per_minute: rowsPerMinute },
    },
    ...(billed && preview ? { preview } : {}),
  };
}

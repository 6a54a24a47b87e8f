import { eq } from "drizzle-orm";
import { type BatchCallOutcome, type BatchRun, executeBatch } from "../capabilities/core/execute-batch.js";
import type { AnyCapability, BulkOptionValues, BulkRowResult } from "../capabilities/core/registry.js";
import { logSurfaceCalls, surfaceLogRow } from "../capabilities/core/surface-log.js";
import { db } from "../db/client.js";
import { accounts } from "../db/schema.js";
import { batchMemo, type Memo } from "../engine/memo.js";
import type { Env } from "../env.js";
import type { ErrorBody } from "../http/errors.js";
import { describeIssue } from "../http/validation.js";
import { isolateClient, type LimiterClient } from "../limits/limiter-client.js";
import type { SettlementOutcome } from "../limits/limiter-messages.js";
import { sha256Hex } from "../platform/crypto.js";
import { logError } from "../request-context.js";
import type { RowRecord } from "./job-object.js";
import { jobStub } from "./jobs.js";
import type { BulkRowsMessage } from "./messages.js";
import { emailsIn, resultCells } from "./results.js";
import { type InputRow, inputChunkKey } from "./storage.js";
import { type BulkType, bulkType, neededColumns } from "./types.js";

/** One chunk of one run of a job. */
export type { BulkRowsMessage } from "./messages.js";
export { BULK_ROWS_DEAD_LETTER_QUEUE, BULK_ROWS_QUEUE } from "./messages.js";

/** Rows of one chunk run side by side. */
const ROW_CONCURRENCY = 10;

/**
 * Runs a chunk's rows through the batch executor (the same capability, credits, repeat billing
 * and settlement rules as /v1), records them with the job's object, bills them as the account's
 * limiter decides, then has the object write the chunk's result part. A message is acked only when its chunk is finished or no longer wanted;
 * anything else is retried, and rows already recorded are not run again.
 */
export async function consumeBulkRows(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) {
  // Rows of every chunk in this batch share domain-level lookups (index rows, crawl state, leases).
  const memo = batchMemo();
  const plans = new Map<number, Promise<string>>();
  const planOf = (accountId: number) => {
    let p = plans.get(accountId);
    if (!p) {
      p = db(env.DB)
        .select({ plan: accounts.plan })
        .from(accounts)
        .where(eq(accounts.id, accountId))
        .then((r) => r[0]?.plan ?? "free");
      plans.set(accountId, p);
    }
    return p;
  };
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await processChunk(env, ctx, message.body as BulkRowsMessage, planOf, memo);
        message.ack();
      } catch (err) {
        logError("bulk chunk failed; retrying", message.body, err);
        message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
      }
    }),
  );
}

export async function processChunk(
  env: Env,
  ctx: ExecutionContext,
  msg: BulkRowsMessage,
  planOf: (accountId: number) => Promise<string>,
  memo: Memo = batchMemo(),
  client: LimiterClient = isolateClient(),
) {
  const job = jobStub(env, msg.jobId);
  const plan = await job.beginChunk(msg.run, msg.chunk);
  if (!plan.go) return;
  const { token, accountId } = plan;
  const type = bulkType(plan.type);
  if (!type) throw new Error(`job ${msg.jobId} has an unknown bulk type '${plan.type}'`);
  const capability = rowCapability(type, plan.options);
  const object = await env.BULK_FILES.get(inputChunkKey(plan.prefix, msg.chunk));
  if (!object) throw new Error(`input chunk ${msg.chunk} of job ${msg.jobId} is missing`);
  const rows = (await object.json()) as InputRow[];
  const accountPlan = await planOf(accountId);
  const done = new Set(plan.done);
  const first = msg.chunk * plan.chunkRows;
  const pending = rows.map((row, i) => ({ row, idx: first + i })).filter((r) => !done.has(r.idx));

  // The chunk's rows with one credit reservation, made under a key every delivery of these same
  // rows shares: a copy sent again after the claim shares the first copy's reservation instead of
  // taking its open windows for repeats. The balance pays for the rows in order; those it cannot
  // pay are not run, and the job stops there.
  const prepared = pending.map(({ row, idx }) => prepareRow(type, plan.fields, plan.options, row, idx));
  const calls = prepared.flatMap((p) => (p.kind === "call" ? [p] : []));
  const key = `bulk:${msg.jobId}:${msg.run}:${msg.chunk}:${await sha256Hex(pending.map((p) => p.idx).join(","))}`;
  const holder = holdChunk(env, ctx, job, msg, token, plan.claimMs, client, accountId, accountPlan);
  try {
    const batch = calls.length
      ? await executeBatch(
          capability,
          calls.map((c) => c.params),
          {
            env,
            waitUntil: (p) => ctx.waitUntil(p),
            accountId,
            plan: accountPlan,
            memo,
            concurrency: ROW_CONCURRENCY,
            key,
            client,
            // Kept alive from now on, while the rows run, not only once they are done.
            onAdmitted: (ids) => {
              holder.reservations = [...ids];
            },
          },
        )
      : null;
    if (calls.length && !batch)
      throw new Error(`the chunk's admission was refused (job ${msg.jobId}, chunk ${msg.chunk})`);
    const outcomeOf = new Map(
      calls.flatMap((c, i) => {
        const outcome = batch?.outcomes[i];
        return outcome ? [[c.idx, outcome] as const] : [];
      }),
    );
    // Rows the balance could not pay for are not recorded: a retry after a top-up runs them.
    const records = prepared.flatMap((p) => {
      if (p.kind === "done") return [p.record];
      const outcome = outcomeOf.get(p.idx);
      return outcome ? [callRecord(type, plan.options, p.idx, outcome)] : [];
    });
    const billedRows = calls.flatMap((c) => {
      const o = outcomeOf.get(c.idx);
      return o?.ok && o.billed && o.fingerprint ? [{ idx: c.idx, fingerprint: o.fingerprint }] : [];
    });
    const settlement = batch?.settlement ?? null;
    // The rows and what they cost are kept together: if this delivery dies now, the job sends the billing itself.
    const recorded = await job.recordRows(
      msg.run,
      msg.chunk,
      token,
      records,
      settlement ? { plan: accountPlan, settlement, rows: billedRows } : undefined,
    );
    // Another delivery holds the chunk now: it records and bills the rows (with this reservation).
    if (recorded.fenced) return;
    if (!recorded.go) {
      // Not while another delivery's billing, not decided yet, settles this same reservation.
      if (recorded.release) batch?.release();
      return;
    }
    if (batch) {
      let outcome: SettlementOutcome | null = null;
      if (recorded.billingId !== null) {
        outcome = (await batch.settle()) ?? null;
        if (!outcome)
          throw new Error(
            `the billing of chunk ${msg.chunk} of job ${msg.jobId} is not decided yet; the job sends it again`,
          );
        await job.billingDecided(recorded.billingId, outcome);
      }
      logRows(env, ctx, accountId, capability, calls, batch, outcome);
    }
    if (batch?.refusal) {
      const body = (await batch.refusal.json()) as ErrorBody;
      await job.stopForCredits(msg.run, body.errors.message, Date.now());
      return;
    }
    await job.finishChunk(msg.run, msg.chunk, Date.now());
  } finally {
    holder.stop();
  }
}

/**
 * Keeps a running delivery's chunk claim, and its reservation, alive (renewed every third of the
 * claim): a chunk that runs long is not sent again while its delivery works on it.
 */
function holdChunk(
  env: Env,
  ctx: ExecutionContext,
  job: ReturnType<typeof jobStub>,
  msg: BulkRowsMessage,
  token: number,
  claimMs: number,
  client: LimiterClient,
  accountId: number,
  plan: string,
) {
  const holder = { reservations: [] as string[], stop: () => {} };
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const renew = async () => {
    if (stopped) return;
    const held = await job.renewChunk(msg.run, msg.chunk, token).catch(() => true);
    if (holder.reservations.length)
      client.keepAlive(env, accountId, plan, holder.reservations, (p) => ctx.waitUntil(p));
    if (held && !stopped) timer = setTimeout(() => void renew(), claimMs / 3);
  };
  timer = setTimeout(() => void renew(), claimMs / 3);
  holder.stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  return holder;
}

/** Bulk rows' log rows, each with the billing the limiter decided (null: nothing was billed). */
function logRows(
  env: Env,
  ctx: ExecutionContext,
  accountId: number,
  cap: AnyCapability,
  calls: { params: Record<string, unknown> }[],
  batch: BatchRun,
  outcome: SettlementOutcome | null,
) {
  const billed = new Set(outcome?.billed ?? []);
  const logs = calls.flatMap((c, i) => {
    const o = batch.outcomes[i];
    if (!o) return [];
    const wasBilled = o.ok && o.billed && o.fingerprint !== null && billed.has(o.fingerprint);
    return [
      surfaceLogRow({ accountId, surface: "bulk" }, cap, c.params, {
        status: o.ok ? 200 : o.status,
        billed: wasBilled,
        durationMs: batch.durations[i] ?? 0,
      }),
    ];
  });
  ctx.waitUntil(logSurfaceCalls(env, logs).catch((err) => logError("request log write failed", err)));
}

type PreparedRow = { kind: "done"; record: RowRecord } | { kind: "call"; idx: number; params: Record<string, unknown> };

const blankRecord = (idx: number, outcome: RowRecord["outcome"], reason: string, error?: string): RowRecord => ({
  idx,
  outcome,
  reason,
  valid: false,
  cells: [],
  error,
  emails: 0,
  credits: {},
});

/** The capability a job's rows run: its own, or with the handler its bulk declaration gives for the job's options. */
export function rowCapability(type: BulkType, options: BulkOptionValues): AnyCapability {
  const run = type.decl.run;
  if (!run) return type.capability;
  const own = type.capability;
  return { ...own, handler: (params, ctx) => run(params, ctx, options, (p) => own.handler(p, ctx)) };
}

/** A row's call parameters, checked by the capability's own schema; or its record when it does not run. */
function prepareRow(
  type: BulkType,
  fields: Record<string, number>,
  options: BulkOptionValues,
  row: InputRow,
  idx: number,
): PreparedRow {
  const done = (outcome: RowRecord["outcome"], reason: string, error: string): PreparedRow => ({
    kind: "done",
    record: blankRecord(idx, outcome, reason, error),
  });
  switch (row.x) {
    case "blank":
      return done("invalid", "blank", "blank row");
    case "invalid":
      return done("invalid", "missing", `missing ${neededColumns(type)}`);
    case "duplicate":
      return done("duplicate", "duplicate", `same lookup as row ${row.r}; not run again`);
    case "has_email":
    case "skipped":
      return done("skipped", "has_email", "the row already has an email address (skip_rows_with_email)");
    case "over_cap":
      return done(
        "skipped",
        "over_cap",
        `max_emails_per_domain (${options.max_emails_per_domain}) reached for ${row.r}`,
      );
  }
  const cells: Record<string, string> = {};
  for (const [param, at] of Object.entries(fields)) cells[param] = (row.c[at] ?? "").trim();
  const parsed = type.capability.params.safeParse(type.decl.paramsFor(cells, options));
  if (!parsed.success) return done("invalid", "refused", describeIssue(parsed.error));
  return { kind: "call", idx, params: parsed.data as Record<string, unknown> };
}

/** An answer as the job records it: found or not, withheld by the job's filters, or saying the input itself is invalid. */
function foundRecord(
  type: BulkType,
  options: BulkOptionValues,
  idx: number,
  result: BulkRowResult,
  credits: RowRecord["credits"],
): RowRecord {
  const data = (result.body as { data?: unknown }).data ?? null;
  const invalid = result.found ? null : (type.decl.invalidInput?.(data) ?? null);
  const cells = result.note ? [] : resultCells(type, options, data);
  const base = { idx, valid: false, cells, emails: 0, credits };
  if (invalid) return { ...base, outcome: "invalid", reason: "refused", error: invalid };
  if (result.note) return { ...base, outcome: "not_found", reason: "filtered", error: result.note };
  // Waiting on a deferred SMTP check (greylisting, pacing): not billed, shown as waiting, not as nothing found.
  if (!result.found && result.waiting)
    return { ...base, outcome: "not_found", reason: "waiting", error: result.waiting };
  if (!result.found) return { ...base, outcome: "not_found", reason: "not_found" };
  return {
    ...base,
    outcome: "found",
    reason: "found",
    valid: type.decl.isValid ? type.decl.isValid(data) : true,
    emails: emailsIn(data),
  };
}

/**
 * A row the capability refused. Its 400 (params_invalid: the value is not an email, a domain, a
 * URL...) makes it invalid input, like a /v1 call answered 400; anything else failed. Neither is billed.
 */
function failedRecord(idx: number, status: number, message: string, type?: string): RowRecord {
  if (status === 400) return blankRecord(idx, "invalid", "refused", message);
  return blankRecord(idx, status >= 500 ? "server_error" : "client_error", type ?? `status_${status}`, message);
}

/** A row of a batch run (executeBatch) as the job records it; credits are what this row was billed. */
function callRecord(type: BulkType, options: BulkOptionValues, idx: number, outcome: BatchCallOutcome): RowRecord {
  if (!outcome.ok) return failedRecord(idx, outcome.status, outcome.message, outcome.type);
  return foundRecord(type, options, idx, outcome.result, outcome.credits);
}

/** Dead letters: the chunk's job fails with a message instead of staying `running` for ever. */
export async function consumeDeadBulkRows(batch: MessageBatch<unknown>, env: Env) {
  for (const message of batch.messages) {
    const msg = message.body as BulkRowsMessage;
    await jobStub(env, msg.jobId).failChunk(msg.run, msg.chunk, Date.now());
    message.ack();
  }
}

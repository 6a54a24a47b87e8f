import { eq } from "drizzle-orm";
import { executeCapability } from "../capabilities/core/execute.js";
import { type BatchCallOutcome, executeBatch } from "../capabilities/core/execute-batch.js";
import type { AnyCapability, BulkOptionValues, BulkRowResult } from "../capabilities/core/registry.js";
import { batchMemo, type Memo } from "../engine/memo.js";
import { db } from "../db/client.js";
import { accounts } from "../db/schema.js";
import type { Env } from "../env.js";
import type { ErrorBody } from "../http/errors.js";
import { describeIssue } from "../http/validation.js";
import type { RowRecord } from "./job-object.js";
import { emailsIn, resultCells } from "./results.js";
import { inputChunkKey, type InputRow } from "./storage.js";
import { bulkType, neededColumns, type BulkType } from "./types.js";
import { jobStub } from "./jobs.js";
import type { BulkRowsMessage } from "./messages.js";
import { logError } from "../request-context.js";

export { BULK_ROWS_DEAD_LETTER_QUEUE, BULK_ROWS_QUEUE } from "./messages.js";

/** One chunk of one run of a job. */
export type { BulkRowsMessage } from "./messages.js";

/** Rows of one chunk run side by side. */
const ROW_CONCURRENCY = 10;

type RowRun = { kind: "done"; record: RowRecord } | { kind: "credits"; message: string };

/**
 * Runs each row through the same executor as /v1 (surface "bulk": credits are reserved and
 * settled the same way), records it with the job's object, then has the object write the
 * chunk's result part. A message is acked only when its chunk is finished or no longer wanted;
 * anything else is retried, and rows already recorded are not run again.
 */
export async function consumeBulkRows(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) {
  // Rows of every chunk in this batch share domain-level lookups (index rows, crawl state, claims).
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

export async function processChunk(env: Env, ctx: ExecutionContext, msg: BulkRowsMessage, planOf: (accountId: number) => Promise<string>, memo: Memo = batchMemo()) {
  const job = jobStub(env, msg.jobId);
  const plan = await job.beginChunk(msg.run, msg.chunk);
  if (!plan.go) return;
  const type = bulkType(plan.type!)!;
  const capability = rowCapability(type, plan.options!);
  const object = await env.BULK_FILES.get(inputChunkKey(plan.prefix!, msg.chunk));
  if (!object) throw new Error(`input chunk ${msg.chunk} of job ${msg.jobId} is missing`);
  const rows = (await object.json()) as InputRow[];
  const accountPlan = await planOf(plan.accountId!);
  const done = new Set(plan.done);
  const first = msg.chunk * plan.chunkRows!;
  const pending = rows.map((row, i) => ({ row, idx: first + i })).filter((r) => !done.has(r.idx));

  // The whole chunk with one credit reservation and one record; when the balance cannot cover it
  // all, row by row below (which stops exactly where the credits end).
  const prepared = pending.map(({ row, idx }) => prepareRow(type, plan.fields!, plan.options!, row, idx));
  const calls = prepared.flatMap((p) => (p.kind === "call" ? [p] : []));
  const batch = await executeBatch(capability, calls.map((c) => c.params), {
    env,
    waitUntil: (p) => ctx.waitUntil(p),
    accountId: plan.accountId!,
    plan: accountPlan,
    memo,
    concurrency: ROW_CONCURRENCY,
  });
  if (batch) {
    const outcomeOf = new Map(calls.map((c, i) => [c.idx, batch.outcomes[i]!]));
    const records = prepared.map((p) => (p.kind === "call" ? callRecord(type, plan.options!, p.idx, outcomeOf.get(p.idx)!) : p.record));
    const recorded = await job.recordRows(msg.run, msg.chunk, records);
    // Charges and refunds only once the results are kept, and only for rows this delivery kept (a
    // consumer dying before this is refunded by the limiter's sweep, and the redelivered chunk runs
    // and bills its rows once).
    const fresh = new Set(recorded.recorded);
    await batch.commit((i) => fresh.has(calls[i]!.idx));
    if (!recorded.go) return;
    await job.finishChunk(msg.run, msg.chunk, Date.now());
    return;
  }

  let stop: string | null = null;
  let cancelled = false;
  const worker = async () => {
    while (pending.length && !stop && !cancelled) {
      const { row, idx } = pending.shift()!;
      const outcome = await runRow(env, ctx, type, plan.fields!, plan.options!, row, idx, plan.accountId!, accountPlan, capability);
      if (outcome.kind === "credits") {
        stop = outcome.message;
        return;
      }
      const recorded = await job.recordRow(msg.run, msg.chunk, outcome.record);
      if (!recorded.go) cancelled = true;
    }
  };
  await Promise.all(Array.from({ length: ROW_CONCURRENCY }, worker));
  if (cancelled) return;
  if (stop) {
    await job.stopForCredits(msg.run, stop, Date.now());
    return;
  }
  await job.finishChunk(msg.run, msg.chunk, Date.now());
}

/** One row: its parameters checked by the capability's own schema, then the executor. */
export async function runRow(
  env: Env,
  ctx: ExecutionContext,
  type: BulkType,
  fields: Record<string, number>,
  options: BulkOptionValues,
  row: InputRow,
  idx: number,
  accountId: number,
  plan: string,
  capability: AnyCapability = rowCapability(type, options),
): Promise<RowRun> {
  const prepared = prepareRow(type, fields, options, row, idx);
  if (prepared.kind === "done") return { kind: "done", record: prepared.record };

  const { response, result } = await executeCapability(capability, prepared.params, {
    env,
    waitUntil: (p) => ctx.waitUntil(p),
    accountId,
    plan,
    surface: "bulk",
  });
  if (response.status === 402 || (response.status === 429 && !response.headers.has("Retry-After"))) {
    const body = (await response.json()) as ErrorBody;
    return { kind: "credits", message: body.errors.message };
  }
  if (response.status !== 200 || !result) {
    const body = (await response.json().catch(() => null)) as ErrorBody | null;
    return { kind: "done", record: failedRecord(idx, response.status, body?.errors?.message ?? `status ${response.status}`, body?.errors?.type) };
  }
  const cost = type.capability.cost;
  const credits: RowRecord["credits"] = {};
  if (result.found && cost) credits[cost.balance] = cost.amount;
  for (const [balance, amount] of Object.entries(result.extraCost ?? {})) {
    const b = balance as keyof RowRecord["credits"];
    credits[b] = (credits[b] ?? 0) + (amount ?? 0);
  }
  return { kind: "done", record: foundRecord(type, options, idx, result, credits) };
}

type PreparedRow = { kind: "done"; record: RowRecord } | { kind: "call"; idx: number; params: Record<string, unknown> };

const blankRecord = (idx: number, outcome: RowRecord["outcome"], reason: string, error?: string): RowRecord => ({ idx, outcome, reason, valid: false, cells: [], error, emails: 0, credits: {} });

/** The capability a job's rows run: its own, or with the handler its bulk declaration gives for the job's options. */
export function rowCapability(type: BulkType, options: BulkOptionValues): AnyCapability {
  const run = type.decl.run;
  if (!run) return type.capability;
  const own = type.capability;
  return { ...own, handler: (params, ctx) => run(params, ctx, options, (p) => own.handler(p, ctx)) };
}

/** A row's call parameters, checked by the capability's own schema; or its record when it does not run. */
function prepareRow(type: BulkType, fields: Record<string, number>, options: BulkOptionValues, row: InputRow, idx: number): PreparedRow {
  const done = (outcome: RowRecord["outcome"], reason: string, error: string): PreparedRow => ({ kind: "done", record: blankRecord(idx, outcome, reason, error) });
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
      return done("skipped", "over_cap", `max_emails_per_domain (${options.max_emails_per_domain}) reached for ${row.r}`);
  }
  const cells: Record<string, string> = {};
  for (const [param, at] of Object.entries(fields)) cells[param] = (row.c[at] ?? "").trim();
  const parsed = type.capability.params.safeParse(type.decl.paramsFor(cells, options));
  if (!parsed.success) return done("invalid", "refused", describeIssue(parsed.error));
  return { kind: "call", idx, params: parsed.data as Record<string, unknown> };
}

/** An answer as the job records it: found or not, withheld by the job's filters, or saying the input itself is invalid. */
function foundRecord(type: BulkType, options: BulkOptionValues, idx: number, result: BulkRowResult, credits: RowRecord["credits"]): RowRecord {
  const data = (result.body as { data?: unknown }).data ?? null;
  const invalid = result.found ? null : (type.decl.invalidInput?.(data) ?? null);
  const cells = result.note ? [] : resultCells(type, options, data);
  const base = { idx, valid: false, cells, emails: 0, credits };
  if (invalid) return { ...base, outcome: "invalid", reason: "refused", error: invalid };
  if (result.note) return { ...base, outcome: "not_found", reason: "filtered", error: result.note };
  if (!result.found) return { ...base, outcome: "not_found", reason: "not_found" };
  return { ...base, outcome: "found", reason: "found", valid: type.decl.isValid ? type.decl.isValid(data) : true, emails: emailsIn(data) };
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

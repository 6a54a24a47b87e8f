import type { Memo } from "../../engine/memo.js";
import type { Env } from "../../env.js";
import { type ErrorBody, toErrorResponse } from "../../http/errors.js";
import type { CreditBalance } from "../../limits/groups.js";
import { isolateClient, type LimiterClient } from "../../limits/limiter-client.js";
import type { Settlement, SettlementOutcome } from "../../limits/limiter-messages.js";
import type { AnyCapability, CapabilityResult } from "./registry.js";
import { billedParts, releaseOf, runCalls, settlementOf } from "./run-calls.js";

/**
 * The capability executor (run-calls.ts) for many calls of one account at once (a bulk chunk),
 * with what a chunk needs around it:
 *  - one admission for the whole batch, under a key every delivery of the same rows shares: the
 *    account's limiter tells the 30-day repeats from the calls to bill (identical calls in the
 *    batch are one request, billed once) and reserves each of those at its full price, in order,
 *    while the balance covers it; the calls it cannot pay are not run (`refusal` says why);
 *  - one settlement, to exactly what the found answers cost (each billed request its own cost;
 *    not-found and free calls are given back, their windows closed); the limiter sends the
 *    charges to the D1 copy itself.
 * The caller records the results together with the settlement (a delivery that dies after that
 * leaves the job's object to send it), sends it, and reports each call as the limiter decided.
 */

export interface BatchInvocation {
  env: Env;
  waitUntil(promise: Promise<unknown>): void;
  accountId: number;
  plan: string;
  /** Lookups shared between the calls (engine/memo.ts). */
  memo: Memo;
  /** Calls running side by side. */
  concurrency: number;
  /** The admission's idempotency key: deliveries of the same rows ask under the same key and share its reservation. */
  key: string;
  now?: () => number;
  /** This isolate's money state (tests play several isolates with several). */
  client?: LimiterClient;
  /** Told the batch's reservations as soon as it is admitted, before its calls run (a long chunk keeps them alive). */
  onAdmitted?(reservationIds: readonly string[]): void;
}

export type BatchCallOutcome =
  | {
      ok: true;
      result: CapabilityResult;
      fingerprint: string | null;
      billed: boolean;
      credits: Partial<Record<CreditBalance, number>>;
    }
  | { ok: false; status: number; message: string; type?: string };

export interface BatchRun {
  /** Per call: its outcome, or null when it was not run (the balance could not pay for it). */
  outcomes: (BatchCallOutcome | null)[];
  /** Per call: how long it ran, in ms. */
  durations: number[];
  /** The answer calls not run would have had (402 quota_exceeded, or 429 by the capability's rule). */
  refusal: Response | null;
  /** The reservations of the batch (a long chunk keeps them alive). */
  reservationIds: string[];
  /** What the found answers cost (null when nothing was reserved): recorded with the results, then sent. */
  settlement: Settlement | null;
  /** Sends the settlement and answers the limiter's decision (undefined if it could not be had now). */
  settle(): Promise<SettlementOutcome | undefined>;
  /** Gives the whole reservation back: the results were not kept (the job stopped). */
  release(): void;
}

export async function executeBatch(
  cap: AnyCapability,
  calls: readonly Record<string, unknown>[],
  inv: BatchInvocation,
): Promise<BatchRun | null> {
  const now = inv.now ?? Date.now;
  const client = inv.client ?? isolateClient();
  const run = await runCalls(cap, calls, {
    env: inv.env,
    waitUntil: inv.waitUntil,
    accountId: inv.accountId,
    plan: inv.plan,
    client,
    now,
    // Bulk rows are paced by the job's queue, not by the per-request rate table.
    rateGroup: null,
    source: "bulk",
    creditBilled: cap.cost !== null,
    key: inv.key,
    partial: true,
    concurrency: inv.concurrency,
    onAdmitted: inv.onAdmitted,
    run: (params) =>
      cap.handler(params, {
        env: inv.env,
        now,
        waitUntil: inv.waitUntil,
        surface: "bulk",
        accountId: inv.accountId,
        memo: inv.memo,
      }),
  });
  if (!("results" in run)) return null;
  const { parts, charged } = billedParts(cap, run);
  const outcomes = await Promise.all(
    run.results.map(async (r, i): Promise<BatchCallOutcome | null> => {
      if (!r) return null;
      if (!r.ok) return failure(r.error);
      const credits = charged[i];
      return {
        ok: true,
        result: r.result,
        fingerprint: run.fingerprints[i],
        billed: !!credits,
        credits: credits ?? {},
      };
    }),
  );
  const settlement = settlementOf(run, parts);
  const release = releaseOf(run);
  return {
    outcomes,
    durations: run.durations,
    refusal: run.admission.refused?.response ?? null,
    reservationIds: run.admission.reservationIds,
    settlement,
    async settle() {
      if (!settlement) return undefined;
      return client.settleNow(inv.env, inv.accountId, inv.plan, settlement, inv.waitUntil);
    },
    release() {
      if (release) client.settle(inv.env, inv.accountId, inv.plan, release, inv.waitUntil);
    },
  };
}

/** A call that threw: the status and message its /v1 answer would have (domain errors mapped the same way). */
async function failure(err: unknown): Promise<BatchCallOutcome> {
  const response = toErrorResponse(err);
  const body = (await response.json().catch(() => null)) as ErrorBody | null;
  return {
    ok: false,
    status: response.status,
    message: body?.errors?.message ?? `status ${response.status}`,
    type: body?.errors?.type,
  };
}

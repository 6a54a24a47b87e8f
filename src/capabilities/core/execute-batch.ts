import type { Memo } from "../../engine/memo.js";
import type { Env } from "../../env.js";
import { type ErrorBody, toErrorResponse } from "../../http/errors.js";
import { admitRequest } from "../../limits/admission.js";
import type { CreditBalance } from "../../limits/groups.js";
import { requestFingerprint } from "../../limits/repeat-billing.js";
import { logError } from "../../request-context.js";
import type { AnyCapability, CapabilityResult } from "./registry.js";
import { logSurfaceCalls, surfaceLogRow } from "./surface-log.js";

/**
 * The capability executor for many calls of one account at once (a bulk chunk). Same rules as
 * executeCapability, fewer round trips:
 *  - one admission for the whole batch: the account's limiter tells the 30-day repeats from the
 *    calls to bill (identical calls in the batch are one request, billed once) and reserves each
 *    of those at its full price, in the same round trip and storage transaction as a single call;
 *  - one settlement, to exactly what the found answers cost (not-found and free calls are given
 *    back, their windows closed); the limiter sends the charges to the D1 copy itself;
 *  - one queue send of log rows.
 * When the balance cannot cover the whole batch it runs nothing and answers null: the caller then
 * runs the calls one by one with executeCapability, which stops exactly where the credits end.
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
  now?: () => number;
}

export type BatchCallOutcome =
  | { ok: true; result: CapabilityResult; billed: boolean; credits: Partial<Record<CreditBalance, number>> }
  | { ok: false; status: number; message: string; type?: string };

export interface BatchRun {
  outcomes: BatchCallOutcome[];
  /**
   * Settles the batch's reservation and records its charges and log rows. Call it once the
   * results are safely kept, saying which were (`kept(i)` for call i): a call whose result was not
   * kept (the job stopped, or another delivery of the same rows kept its own) is not charged. If
   * the caller dies before, the limiter's sweep refunds the whole reservation and a redelivery runs
   * (and bills) the calls once.
   */
  commit(kept: (call: number) => boolean): Promise<void>;
}

type Amounts = Partial<Record<CreditBalance, number>>;

function add(into: Amounts, from: Amounts | undefined) {
  for (const [b, n] of Object.entries(from ?? {}) as [CreditBalance, number][]) if (n) into[b] = (into[b] ?? 0) + n;
}

export async function executeBatch(cap: AnyCapability, calls: readonly Record<string, unknown>[], inv: BatchInvocation): Promise<BatchRun | null> {
  const now = inv.now ?? Date.now;
  const started = now();
  const cost = cap.cost;
  const fingerprints = cost ? await Promise.all(calls.map((params) => requestFingerprint(cap.name, params))) : [];
  // Each distinct request at its full price (base plus options); the limiter reserves only those
  // that are not repeats.
  const requests = new Map<string, Amounts>();
  if (cost) {
    calls.forEach((params, i) => {
      const fp = fingerprints[i]!;
      if (requests.has(fp)) return;
      const price: Amounts = { [cost.balance]: cost.amount };
      add(price, cap.extraCostFor?.(params));
      requests.set(fp, price);
    });
  }
  const admission = await admitRequest(inv.env, {
    accountId: inv.accountId,
    plan: inv.plan,
    // Bulk rows are paced by the job's queue, not by the per-request rate table.
    capability: { rateGroup: null, cost: null, exhaustedAs: cap.exhaustedAs, estimatedCostHeader: cap.estimatedCostHeader },
    extraCost: {},
    now: started,
    waitUntil: inv.waitUntil,
    billing: cost ? { accountId: inv.accountId, capability: cap.name, source: "bulk", requests: [...requests].map(([fingerprint, price]) => ({ fingerprint, cost: price })) } : undefined,
  });
  if (!admission.admitted) return null;
  const repeats = admission.repeats;

  const outcomes: (BatchCallOutcome | undefined)[] = new Array(calls.length);
  const durations: number[] = new Array(calls.length).fill(0);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < calls.length; i = next++) {
      const t0 = now();
      try {
        const result = await cap.handler(calls[i]!, { env: inv.env, now, waitUntil: inv.waitUntil, surface: "bulk", accountId: inv.accountId, memo: inv.memo });
        outcomes[i] = { ok: true, result, billed: false, credits: {} };
      } catch (err) {
        outcomes[i] = await failure(err);
      }
      durations[i] = now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(inv.concurrency, calls.length)) }, worker));

  // A request is billed once: its first found answer pays (base price plus what its options used).
  const charged: Amounts = {};
  const billedFingerprints = new Set<string>();
  if (cost) {
    outcomes.forEach((o, i) => {
      const fp = fingerprints[i]!;
      if (!o?.ok || !o.result.found || fp in repeats || billedFingerprints.has(fp)) return;
      o.billed = true;
      o.credits = { [cost.balance]: cost.amount };
      add(o.credits, o.result.extraCost);
      add(charged, o.credits);
      billedFingerprints.add(fp);
    });
  }
  const done = outcomes as BatchCallOutcome[];
  return {
    outcomes: done,
    async commit(kept) {
      done.forEach((o, i) => {
        if (!o.ok || !o.billed || kept(i)) return;
        o.billed = false;
        for (const [b, n] of Object.entries(o.credits) as [CreditBalance, number][]) charged[b] = (charged[b] ?? 0) - n;
        billedFingerprints.delete(fingerprints[i]!);
      });
      // Found: the reservation is kept and trued up to what was charged (the rest given back), and
      // the windows of the requests billed stay open.
      await admission.settle({ found: true, charged, billed: [...billedFingerprints] });
      const logs = done.map((o, i) => surfaceLogRow({ accountId: inv.accountId, surface: "bulk" }, cap, calls[i]!, { status: o.ok ? 200 : o.status, billed: o.ok && o.billed, durationMs: durations[i]! }));
      inv.waitUntil(logSurfaceCalls(inv.env, logs).catch((err) => logError("request log write failed", err)));
    },
  };
}

/** A call that threw: the status and message its /v1 answer would have (domain errors mapped the same way). */
async function failure(err: unknown): Promise<BatchCallOutcome> {
  const response = toErrorResponse(err);
  const body = (await response.json().catch(() => null)) as ErrorBody | null;
  return { ok: false, status: response.status, message: body?.errors?.message ?? `status ${response.status}`, type: body?.errors?.type };
}

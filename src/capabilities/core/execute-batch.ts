import type { Memo } from "../../engine/memo.js";
import type { Env } from "../../env.js";
import { type ErrorBody, toErrorResponse } from "../../http/errors.js";
import { admitRequest } from "../../limits/admission.js";
import type { CreditBalance } from "../../limits/groups.js";
import { isolateClient, type LimiterClient } from "../../limits/limiter-client.js";
import type { Settlement, SettlementOutcome } from "../../limits/limiter-messages.js";
import { requestFingerprint } from "../../limits/repeat-billing.js";
import type { AnyCapability, CapabilityResult } from "./registry.js";

/**
 * The capability executor for many calls of one account at once (a bulk chunk). Same rules as
 * executeCapability, fewer round trips:
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

type Amounts = Partial<Record<CreditBalance, number>>;

function add(into: Amounts, from: Amounts | undefined) {
  for (const [b, n] of Object.entries(from ?? {}) as [CreditBalance, number][]) if (n) into[b] = (into[b] ?? 0) + n;
}

export async function executeBatch(
  cap: AnyCapability,
  calls: readonly Record<string, unknown>[],
  inv: BatchInvocation,
): Promise<BatchRun | null> {
  const now = inv.now ?? Date.now;
  const client = inv.client ?? isolateClient();
  const started = now();
  const cost = cap.cost;
  const fingerprints = cost ? await Promise.all(calls.map((params) => requestFingerprint(cap.name, params))) : [];
  // Each distinct request at its full price (base plus options), in the calls' order; the limiter
  // reserves only those that are not repeats, while the balance covers them.
  const prices = new Map<string, Amounts>();
  if (cost) {
    calls.forEach((params, i) => {
      const fp = fingerprints[i];
      if (prices.has(fp)) return;
      const price: Amounts = { [cost.balance]: cost.amount };
      add(price, cap.extraCostFor?.(params));
      prices.set(fp, price);
    });
  }
  const admission = await admitRequest(inv.env, {
    accountId: inv.accountId,
    plan: inv.plan,
    // Bulk rows are paced by the job's queue, not by the per-request rate table.
    capability: {
      rateGroup: null,
      cost: null,
      exhaustedAs: cap.exhaustedAs,
      estimatedCostHeader: cap.estimatedCostHeader,
    },
    extraCost: {},
    now: started,
    waitUntil: inv.waitUntil,
    key: inv.key,
    partial: true,
    client,
    billing: cost
      ? {
          accountId: inv.accountId,
          capability: cap.name,
          source: "bulk",
          requests: [...prices].map(([fingerprint, price]) => ({ fingerprint, cost: price })),
        }
      : undefined,
  });
  if (!admission.admitted) return null;
  inv.onAdmitted?.(admission.reservationIds);
  const repeats = admission.repeats;
  const refused = new Set(admission.refused?.fingerprints ?? []);

  const outcomes: (BatchCallOutcome | null)[] = new Array(calls.length).fill(null);
  const durations: number[] = new Array(calls.length).fill(0);
  const runnable = calls.map((_, i) => i).filter((i) => !cost || !refused.has(fingerprints[i]));
  let next = 0;
  const worker = async () => {
    for (let k = next++; k < runnable.length; k = next++) {
      const i = runnable[k];
      const t0 = now();
      try {
        const result = await cap.handler(calls[i], {
          env: inv.env,
          now,
          waitUntil: inv.waitUntil,
          surface: "bulk",
          accountId: inv.accountId,
          memo: inv.memo,
        });
        outcomes[i] = { ok: true, result, fingerprint: cost ? fingerprints[i] : null, billed: false, credits: {} };
      } catch (err) {
        outcomes[i] = await failure(err);
      }
      durations[i] = now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(inv.concurrency, runnable.length)) }, worker));

  // A request is billed once: its first found answer pays (base price plus what its options used).
  const parts: NonNullable<Settlement["parts"]>[number][] = [];
  if (cost) {
    outcomes.forEach((o, i) => {
      const fp = fingerprints[i];
      if (!o?.ok || !o.result.found || fp in repeats || parts.some((p) => p.fingerprint === fp)) return;
      o.billed = true;
      o.credits = { [cost.balance]: cost.amount };
      add(o.credits, o.result.extraCost);
      const reserved = prices.get(fp);
      if (!reserved) throw new Error("a billed request has no price from its admission");
      parts.push({ fingerprint: fp, cost: o.credits, reserved });
    });
  }
  const ids = admission.reservationIds;
  const settlement: Settlement | null = ids.length ? { reservationIds: ids, found: true, adjust: {}, parts } : null;
  return {
    outcomes,
    durations,
    refusal: admission.refused?.response ?? null,
    reservationIds: ids,
    settlement,
    async settle() {
      if (!settlement) return undefined;
      return client.settleNow(inv.env, inv.accountId, inv.plan, settlement, inv.waitUntil);
    },
    release() {
      if (ids.length)
        client.settle(
          inv.env,
          inv.accountId,
          inv.plan,
          { reservationIds: ids, found: false, adjust: {} },
          inv.waitUntil,
        );
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

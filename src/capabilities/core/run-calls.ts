import type { Env } from "../../env.js";
import { type Admission, admitRequest } from "../../limits/admission.js";
import type { CreditBalance, RateGroup } from "../../limits/groups.js";
import type { LimiterClient } from "../../limits/limiter-client.js";
import type { Settlement, SettlementPart } from "../../limits/limiter-messages.js";
import { requestFingerprint } from "../../limits/repeat-billing.js";
import type { AnyCapability, CapabilityResult } from "./registry.js";

/**
 * The one capability executor: fingerprint → admit → run → what the found answers are charged.
 * A /v1, MCP or agent request is a batch of one call (execute.ts); a bulk chunk is many calls of one
 * account (execute-batch.ts). The surfaces differ only in what they do around these steps: the
 * answer they build, the report they write, and when the settlement goes.
 *
 *  - Each credit-billed call's request fingerprint (docs/wire-contract.md §3.2: the same request
 *    within 30 days of a billed one is answered free) and price (base plus the options it asks for).
 *  - One admission for them all, each distinct request once: the account's limiter tells the
 *    repeats from the requests to bill, reserves those (all or nothing; with `partial`, in order
 *    while the balance covers them) and counts the rate group, in one round trip.
 *  - The handlers of the calls admitted, side by side up to `concurrency`.
 *  - A request is billed once: its first found answer pays its base price plus what its options used
 *    (billedParts); the settlement charges exactly those parts and releases the rest (settlementOf).
 */

export type Amounts = Partial<Record<CreditBalance, number>>;

export interface CallsRequest {
  env: Env;
  waitUntil(promise: Promise<unknown>): void;
  accountId: number;
  plan: string;
  client: LimiterClient;
  now: () => number;
  /** The rate group the calls count in (null: not rate-limited, e.g. bulk rows paced by their queue). */
  rateGroup: RateGroup | null;
  /** The billing source recorded with each charge. */
  source: "api" | "website" | "bulk";
  /** Credits are billed per request (false: a free capability, or a surface that is paid per request). */
  creditBilled: boolean;
  /** A request this isolate already knows is a repeat (LimiterClient.knownRepeat): no decision is asked for it. */
  knownFree?(fingerprint: string): boolean;
  /** The caller takes the billing decision after its answer: one call may then be paid from the isolate's lease. */
  chargeLater?: boolean;
  /** The admission's idempotency key (deliveries of the same bulk rows share it and its reservation). */
  key?: string;
  /** Reserve in order while the balance covers it; the calls it cannot pay are not run. */
  partial?: boolean;
  concurrency: number;
  /** Told the reservations as soon as the calls are admitted, before they run (a long chunk keeps them alive). */
  onAdmitted?(reservationIds: readonly string[]): void;
  /** Runs one call's handler in the surface's context. */
  run(params: Record<string, unknown>): Promise<CapabilityResult>;
}

export type CallResult = { ok: true; result: CapabilityResult } | { ok: false; error: unknown };

export interface CallsRun {
  admission: Extract<Admission, { admitted: true }>;
  /** Per call: its request fingerprint (null when credits are not billed per request). */
  fingerprints: (string | null)[];
  /** Per call: its request was known free in this isolate (no decision was asked). */
  knownFree: boolean[];
  /** The price of each request reserved for, by fingerprint. */
  prices: Map<string, Amounts>;
  /** Per call: how it ended, or null when it was not run (the balance could not pay for it). */
  results: (CallResult | null)[];
  /** Per call: how long it ran, in ms. */
  durations: number[];
}

export async function runCalls(
  cap: AnyCapability,
  calls: readonly Record<string, unknown>[],
  req: CallsRequest,
): Promise<CallsRun | Extract<Admission, { admitted: false }>> {
  const started = req.now();
  const fingerprints = req.creditBilled
    ? await Promise.all(calls.map((params) => requestFingerprint(cap.name, params)))
    : calls.map(() => null);
  const knownFree = fingerprints.map((fp) => fp !== null && (req.knownFree?.(fp) ?? false));
  // Each distinct request at its full price, in the calls' order.
  const prices = new Map<string, Amounts>();
  calls.forEach((params, i) => {
    const fp = fingerprints[i];
    if (fp === null || knownFree[i] || prices.has(fp)) return;
    prices.set(fp, costOf(cap, cap.extraCostFor?.(params)));
  });
  const admission = await admitRequest(req.env, {
    accountId: req.accountId,
    plan: req.plan,
    // A credit-billed call's cost travels with its fingerprint (`billing`), never as the capability's.
    capability: {
      rateGroup: req.rateGroup,
      cost: null,
      exhaustedAs: cap.exhaustedAs,
      estimatedCostHeader: cap.estimatedCostHeader,
    },
    extraCost: {},
    now: started,
    waitUntil: req.waitUntil,
    key: req.key,
    partial: req.partial,
    chargeLater: req.chargeLater,
    client: req.client,
    billing: prices.size
      ? {
          accountId: req.accountId,
          capability: cap.name,
          source: req.source,
          requests: [...prices].map(([fingerprint, cost]) => ({ fingerprint, cost })),
        }
      : undefined,
  });
  if (!admission.admitted) return admission;
  req.onAdmitted?.(admission.reservationIds);

  const refused = new Set(admission.refused?.fingerprints ?? []);
  const results: (CallResult | null)[] = new Array(calls.length).fill(null);
  const durations: number[] = new Array(calls.length).fill(0);
  const runnable = calls.map((_, i) => i).filter((i) => !refused.has(fingerprints[i] ?? ""));
  let next = 0;
  const worker = async () => {
    for (let k = next++; k < runnable.length; k = next++) {
      const i = runnable[k];
      const t0 = req.now();
      try {
        results[i] = { ok: true, result: await req.run(calls[i]) };
      } catch (error) {
        results[i] = { ok: false, error };
      }
      durations[i] = req.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(req.concurrency, runnable.length)) }, worker));
  return { admission, fingerprints, knownFree, prices, results, durations };
}

/**
 * What each call is charged: a credit-billed request that found something, not a repeat, is billed
 * once (its first found answer), its base price plus what its options used. Answers the settlement's
 * parts, and per call what it is charged (null: nothing).
 */
export function billedParts(
  cap: AnyCapability,
  run: CallsRun,
): { parts: SettlementPart[]; charged: (Amounts | null)[] } {
  const parts: SettlementPart[] = [];
  const charged = run.results.map((r, i): Amounts | null => {
    const fp = run.fingerprints[i];
    if (!cap.cost || fp === null || !r?.ok || !r.result.found) return null;
    if (run.knownFree[i] || fp in run.admission.repeats || parts.some((p) => p.fingerprint === fp)) return null;
    const cost = costOf(cap, r.result.extraCost);
    const reserved = run.prices.get(fp);
    if (!reserved) throw new Error("a billed request has no price from its admission");
    parts.push({ fingerprint: fp, cost, reserved });
    return cost;
  });
  return { parts, charged };
}

/** The settlement of the calls' reservations: each billed part charged, the rest released (null when nothing was reserved). */
export function settlementOf(run: CallsRun, parts: SettlementPart[]): Settlement | null {
  const ids = run.admission.reservationIds;
  return ids.length ? { reservationIds: ids, found: true, adjust: {}, parts } : null;
}

/** The settlement that gives every reservation of the calls back (nothing kept). */
export function releaseOf(run: CallsRun): Settlement | null {
  const ids = run.admission.reservationIds;
  return ids.length ? { reservationIds: ids, found: false, adjust: {} } : null;
}

/** A credit-billed call's price: the capability's base cost plus what its options use. */
export function costOf(cap: AnyCapability, extra: Amounts | undefined): Amounts {
  const cost: Amounts = { ...extra };
  if (cap.cost) cost[cap.cost.balance] = (cost[cap.cost.balance] ?? 0) + cap.cost.amount;
  return cost;
}

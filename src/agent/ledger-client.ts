import type { Store } from "mppx/server/core";
import { type HoldOutcome, ledgerFor, type PaymentLedger, type SettlementEntry } from "./ledger.js";

/**
 * What the payment gate needs from the ledger. Production uses the PaymentLedger Durable Object;
 * tests can hand the gate a failing ledger to reach the "ledger unavailable" path.
 */
export interface Ledger {
  /** `now`: the gate's clock (tests move it); the object's own clock otherwise. */
  hold(id: string, expiresAt: number, now?: number): Promise<HoldOutcome>;
  /** `ranUnbilled`: the capability ran and its answer was not billed (counts against MAX_UNBILLED_RUNS). */
  release(id: string, token: string, ranUnbilled?: boolean, now?: number): Promise<void>;
  settle(token: string, entry: SettlementEntry): Promise<{ settled: boolean; settledAt: number }>;
}

export function durableLedger(ns: DurableObjectNamespace<PaymentLedger>): Ledger {
  return {
    hold: (id, expiresAt, now) => ledgerFor(ns, id).hold(id, expiresAt, now),
    release: async (id, token, ranUnbilled, now) => {
      await ledgerFor(ns, id).release(id, token, ranUnbilled, now);
    },
    settle: (token, entry) => ledgerFor(ns, entry.holdId).settle(token, entry),
  };
}

/**
 * An mppx atomic Store on the ledger objects, for the Tempo method's own replay markers (so a
 * broadcast transaction hash is refused everywhere, not just in one isolate's memory). `update` is
 * a compare-and-set loop: the callback runs here, the write only lands if nothing changed meanwhile.
 */
export function durableMppxStore(ns: DurableObjectNamespace<PaymentLedger>): Store.AtomicStore {
  const stub = (key: string) => ledgerFor(ns, `kv:${key}`);
  const encode = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? { $bigint: x.toString() } : x));
  const decode = (s: string | null) =>
    s === null
      ? null
      : JSON.parse(s, (_k, x) => (x && typeof x === "object" && typeof x.$bigint === "string" ? BigInt(x.$bigint) : x));
  return {
    async get(key) {
      return decode(await stub(key).kvGet(key));
    },
    async put(key, value) {
      await stub(key).kvPut(key, encode(value));
    },
    async delete(key) {
      await stub(key).kvDelete(key);
    },
    async update(key, fn) {
      for (let attempt = 0; attempt < 20; attempt++) {
        const raw = await stub(key).kvGet(key);
        const change = fn(decode(raw));
        if (change.op === "noop") return change.result;
        const next = change.op === "set" ? encode(change.value) : null;
        if (await stub(key).kvCompareAndSet(key, raw, next)) return change.result;
      }
      throw new Error(`mppx store key ${key} kept changing under contention`);
    },
  } as Store.AtomicStore;
}

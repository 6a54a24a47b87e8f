import { env } from "cloudflare:workers";
import type { Env } from "../../src/env.js";

/**
 * The test env with its limiter namespace wrapped so every RPC made to a limiter is recorded;
 * `failures` makes a method throw on its first N calls (a limiter that cannot be reached).
 */
export function recordingEnv(base: Env = env as Env, failures: Record<string, number> = {}) {
  const calls: string[] = [];
  const left = { ...failures };
  const ns = base.ACCOUNT_LIMITER;
  const ACCOUNT_LIMITER = {
    idFromName: (name: string) => ns.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = ns.get(id) as unknown as Record<string, (...args: unknown[]) => unknown>;
      return new Proxy(stub, {
        get: (target, prop) =>
          typeof prop === "string" && ["admit", "admitMany", "settleMany", "balances", "status", "syncUsage"].includes(prop)
            ? (...args: unknown[]) => {
                calls.push(prop);
                if ((left[prop] ?? 0) > 0) {
                  left[prop]! -= 1;
                  return Promise.reject(new Error(`limiter unreachable (${prop})`));
                }
                return target[prop]!(...args);
              }
            : target[prop as string],
      });
    },
  };
  return { env: { ...base, ACCOUNT_LIMITER } as unknown as Env, calls };
}

/** A waitUntil that collects what it is given, and a way to wait for all of it. */
export function collect() {
  const pending: Promise<unknown>[] = [];
  return { waitUntil: (p: Promise<unknown>) => void pending.push(p), settled: () => Promise.all(pending) };
}

import { env } from "cloudflare:workers";
import { vi } from "vitest";
import type { Env } from "../../src/env.js";

/**
 * Virtual time for the slow faults: `Date.now` everywhere in this isolate (the isolates' limiter
 * clients, the limiters, the bulk jobs) reads the real clock plus an offset the test moves, so a
 * round trip, a call or an outage can "take" minutes or hours without the test waiting for them.
 * Timers still run on real time. `restore()` gives `Date.now` back.
 */
export function virtualTime() {
  const real = Date.now.bind(Date);
  let offset = 0;
  const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + offset);
  return {
    /** Moves every clock of the isolate forward by `ms`. */
    advance(ms: number) {
      offset += ms;
    },
    restore() {
      spy.mockRestore();
    },
  };
}

/**
 * An env whose round trips to the account limiters take long: `slowness(method, args)` answers how
 * many milliseconds of virtual time pass between the limiter's decision and its reply reaching the
 * caller (0: at once), moved with `advance` (virtualTime's).
 */
export function slowLimiters(
  base: Env,
  advance: (ms: number) => void,
  slowness: (method: string, args: unknown[]) => number,
): Env {
  const ns = base.ACCOUNT_LIMITER;
  const ACCOUNT_LIMITER = {
    idFromName: (name: string) => ns.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = ns.get(id) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      return new Proxy(stub, {
        get: (target, prop) =>
          typeof prop === "string" && ["admit", "exchange", "balances", "status", "syncUsage"].includes(prop)
            ? async (...args: unknown[]) => {
                const result = await target[prop]!(...args);
                advance(slowness(prop, args));
                return result;
              }
            : target[prop as string],
      });
    },
  };
  return { ...base, ACCOUNT_LIMITER } as unknown as Env;
}

/** The env with the job telling its deliveries a lease of `claimMs` (their renewals then come every third of it). */
export function withChunkClaim(base: Env, claimMs: number): Env {
  const jobs = base.BULK_JOB;
  const BULK_JOB = {
    idFromName: (name: string) => jobs.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = jobs.get(id) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      return new Proxy(stub, {
        get: (target, prop) =>
          prop === "beginChunk"
            ? async (...args: unknown[]) => ({ ...((await target.beginChunk!(...args)) as object), claimMs })
            : target[prop as string],
      });
    },
  };
  return { ...base, BULK_JOB } as unknown as Env;
}

/**
 * An env whose D1 reads wait for `open()`: the delivery's rows run until the test lets them answer.
 * `waiting()` counts the reads held so far (a delivery's rows have started once it is above 0).
 */
export function slowRows(base: Env = env as Env) {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const held = { reads: 0 };
  const db = base.DB;
  const DB = new Proxy(db, {
    get: (target, prop) =>
      prop === "prepare"
        ? (sql: string) => {
            const statement = target.prepare(sql);
            return new Proxy(statement, {
              get: (s, p) =>
                p === "bind"
                  ? (...args: unknown[]) => slowStatement(s.bind(...args), opened, held)
                  : typeof s[p as keyof typeof s] === "function"
                    ? (s[p as keyof typeof s] as (...a: unknown[]) => unknown).bind(s)
                    : s[p as keyof typeof s],
            });
          }
        : (target[prop as keyof typeof target] as unknown),
  });
  return { env: { ...base, DB } as Env, open, waiting: () => held.reads };
}
function slowStatement(
  statement: D1PreparedStatement,
  opened: Promise<void>,
  held: { reads: number },
): D1PreparedStatement {
  return new Proxy(statement, {
    get: (s, p) =>
      p === "all" || p === "first" || p === "raw" || p === "run"
        ? async (...args: unknown[]) => {
            held.reads++;
            await opened;
            return (s[p] as (...a: unknown[]) => unknown).apply(s, args);
          }
        : typeof s[p as keyof typeof s] === "function"
          ? (s[p as keyof typeof s] as (...a: unknown[]) => unknown).bind(s)
          : s[p as keyof typeof s],
  });
}

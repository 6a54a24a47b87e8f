import { createExecutionContext, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { AsyncLocalStorage } from "node:async_hooks";
import { processChunk } from "../../src/bulk/consumer.js";
import type { BulkJob } from "../../src/bulk/job-object.js";
import { jobStub } from "../../src/bulk/jobs.js";
import { executeCapability } from "../../src/capabilities/core/execute.js";
import type { AnyCapability } from "../../src/capabilities/core/registry.js";
import { emailVerifier } from "../../src/capabilities/email-verifier.js";
import { batchMemo } from "../../src/engine/memo.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { type ClientOptions, LimiterClient } from "../../src/limits/limiter-client.js";
import type { LimiterMessage } from "../../src/limits/limiter-messages.js";
import { planFor } from "../../src/limits/plans.js";
import { requestFingerprint } from "../../src/limits/repeat-billing.js";
import { createdId, createJob, launchLosingMessages } from "../bulk/support.js";
import { createAccount } from "./accounts.js";
import { limiterClock } from "./limiter.js";
import { slowRows, withChunkClaim } from "./slow-time.js";

/**
 * A fault-injection harness for the money invariants (docs/billing.md). One schedule plays one
 * account: one limiter, several isolates (each its own LimiterClient, its own env whose round trips
 * to the limiter fail, lose their reply after the limiter decided, hang as if their sender were
 * cancelled, or are delayed), every surface spending from the account (/v1 answered from a lease,
 * /v1/mcp through reservations, the agent surface, a bulk job whose chunk is delivered twice at
 * once, fenced, or by a delivery that dies after recording), isolates that die, a month or day that
 * ends mid-schedule, credit packs granted (sometimes twice, sometimes hours later), and slowness:
 * each isolate has its own clock, so a round trip can take longer than the orphan time and an
 * outage longer than the drain budget; a call can outlast a lease's quiet life, a bulk chunk run
 * past its reservation's age, and the limiter's sweeps run after jumps of minutes or hours (the
 * limiter evicted before each, as the runtime would have by then).
 * Schedules are drawn from a seed: the
 * seed reproduces every choice (which call, which fault, when), not the exact interleaving of the
 * runtime. At the end it brings what is alive to rest and checks every invariant; what an isolate's
 * death lost is measured.
 */

export interface ScheduleResult {
  seed: number;
  plan: string;
  boundary: "month" | "day" | null;
  isolates: number;
  answers: number;
  billed: number;
  refused: number;
  bulk: boolean;
  deaths: number;
  violations: string[];
  /** Per isolate that died: credits of answers it gave that nobody was charged for. */
  lossPerDeath: number[];
  /** Calls charged whose report died with its isolate (the charge shows in /v1/usage; no row disagrees). */
  reportsLost: number;
  /** The slow faults played: round trips slower than the orphan time, calls slower than a lease's quiet life, limiter outages longer than the drain budget, chunks running past the reservation's age, jumps of minutes or hours (sweeps, a pack order retried). */
  slow: { roundTrips: number; calls: number; outages: number; chunks: number; jumps: number };
  /**
   * Enterprise (a daily limit alone, shared by the isolates): the verifier requests left of the
   * first day, the calls answered in it, the units counted but never answered (what dead isolates'
   * shares and cancelled calls left unserved), and the shares still open at rest (dead isolates').
   * Null on other plans, and `unserved`/`openAtRest` null when the limiter's day moved on.
   */
  rate: {
    room: number;
    admitted: number;
    unserved: number | null;
    /** Calls started in the first day that gave no answer (their admission may have been counted). */
    unanswered: number | null;
    openAtRest: number | null;
  } | null;
}

/** The clients of the harness's isolates: quick timers, and a small lease so balances run out. */
export const HARNESS_CLIENT: Partial<ClientOptions> = {
  settleWaitMs: 2,
  rideWaitMs: 10,
  countWaitMs: 5,
  pollMs: 2,
  resendAfterMs: 25,
  retryMs: 2,
  giveUpMs: 2_000,
  admissionAttempts: 3,
  leaseCredits: 8,
  leaseFloor: 10,
  drainBudgetMs: 3_000,
  orphanMs: 1_000,
  rateShareUnits: 4,
  rateShareFloor: 2,
  rateShareIdleMs: 2_000,
};

/** mulberry32: a small seeded generator. */
export function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    chance: (p: number) => next() < p,
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}
type Random = ReturnType<typeof random>;

interface Faults {
  failBefore: number;
  loseReply: number;
  hang: number;
  delayMs: number;
  /** Chance that a round trip's reply takes longer than the orphan time (on the isolate's clock). */
  slow: number;
  /** The limiter is unreachable from this isolate, each failed round trip taking a third of the drain budget. */
  outage: boolean;
}
const CALM: Faults = { failBefore: 0, loseReply: 0, hang: 0, delayMs: 0, slow: 0, outage: false };

interface Isolate {
  id: number;
  client: LimiterClient;
  env: Env;
  faults: Faults;
  dead: boolean;
  /** Resolves when the isolate dies: what it was doing is abandoned. */
  died: Promise<void>;
  die(): void;
  /** Its requests' waitUntil work. */
  pending: Promise<unknown>[];
  skew: number;
  /** How far this isolate's clock is ahead of the runtime's (its slow round trips and calls moved it). */
  offset: number;
  /** Dies when it sends a bulk chunk's billing (a delivery that dies after recording). */
  dieOnBulkBilling: boolean;
}

interface Answer {
  iso: Isolate;
  surface: "v1" | "mcp" | "agent";
  fingerprint: string;
  status: number;
  found: boolean;
  report?: boolean;
  /** The limiter's UTC day when it was answered. */
  day: string;
}

const never = () => new Promise<never>(() => {});
/**
 * The request each round trip is made in (the harness runs every call in its own context): a round
 * trip that hangs leaves its request waiting for ever, as a request the runtime cancelled; it is
 * marked so the harness stops waiting for it. Nothing it would have answered is an answer.
 */
interface Request {
  hung: boolean;
  onHang: () => void;
}
const requests = new AsyncLocalStorage<Request>();
function asRequest<T>(body: () => Promise<T>): Promise<T | undefined> {
  let onHang!: () => void;
  const hung = new Promise<undefined>((r) => {
    onHang = () => r(undefined);
  });
  const request: Request = {
    hung: false,
    onHang: () => {
      request.hung = true;
      onHang();
    },
  };
  return Promise.race([requests.run(request, body), hung]);
}
/** A waitUntil whose round trip hangs is cancelled after this long, as the runtime would. */
const WAIT_UNTIL_CANCEL_MS = 2_000;
const LIMITER_METHODS = new Set(["exchange", "admit", "balances", "status", "syncUsage"]);

/** The isolate's env: its round trips to limiters meet its faults; once dead, nothing it sends comes back. */
function isolateEnv(iso: Isolate, faults: Random): Env {
  const base = env as Env;
  const ns = base.ACCOUNT_LIMITER;
  const jobs = base.BULK_JOB;
  const ACCOUNT_LIMITER = {
    idFromName: (name: string) => ns.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = ns.get(id) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      return new Proxy(stub, {
        get: (target, prop) => {
          if (typeof prop !== "string" || !LIMITER_METHODS.has(prop)) return target[prop as string];
          return async (...args: unknown[]) => {
            if (iso.dead) return never();
            const msg = args[0] as LimiterMessage;
            if (iso.dieOnBulkBilling && prop === "exchange" && msg.settlements?.some((s) => s.parts)) {
              iso.die();
              void target[prop]!(...args);
              return never();
            }
            const f = iso.faults;
            if (f.outage) {
              await elapse(iso, (HARNESS_CLIENT.drainBudgetMs ?? 0) / 3);
              throw new Error("limiter unreachable (outage)");
            }
            if (faults.chance(f.failBefore)) throw new Error("limiter unreachable (injected)");
            if (f.delayMs) await new Promise((r) => setTimeout(r, faults.int(f.delayMs)));
            if (faults.chance(f.hang)) {
              // The limiter decides; the request that sent it never resumes.
              void target[prop]!(...args).catch(() => {});
              requests.getStore()?.onHang();
              return never();
            }
            const result = await target[prop]!(...args);
            if (iso.dead) return never();
            // The reply comes back after the orphan time has passed on this isolate's clock.
            if (faults.chance(f.slow)) await elapse(iso, (HARNESS_CLIENT.orphanMs ?? 0) + 1 + faults.int(1_000));
            if (faults.chance(f.loseReply)) throw new Error("limiter reply lost (injected)");
            return result;
          };
        },
      });
    },
  };
  const BULK_JOB = {
    idFromName: (name: string) => jobs.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = jobs.get(id) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      return new Proxy(stub, {
        get: (target, prop) =>
          typeof prop === "string" && typeof target[prop] === "function"
            ? async (...args: unknown[]) => (iso.dead ? never() : target[prop]!(...args))
            : target[prop as string],
      });
    },
  };
  return { ...base, ACCOUNT_LIMITER, BULK_JOB } as unknown as Env;
}

function makeIsolate(id: number, seed: number, rnd: Random): Isolate {
  let kill!: () => void;
  const died = new Promise<void>((r) => (kill = r));
  const iso: Isolate = {
    id,
    client: new LimiterClient({ ...HARNESS_CLIENT, now: () => Date.now() + iso.offset }),
    env: env as Env,
    faults: { ...CALM },
    dead: false,
    died,
    die: () => {
      iso.dead = true;
      kill();
    },
    pending: [],
    skew: rnd.int(401) - 200,
    offset: 0,
    dieOnBulkBilling: false,
  };
  iso.env = isolateEnv(iso, random(seed * 31 + id));
  return iso;
}

/** The end of the day a schedule with no month's or day's edge starts in. */
const ANY_TIME_DAY_END = Date.UTC(2027, 6, 2);
const PLANS = ["pro-plus", "scale", "enterprise", "basic"] as const;
/** A slow call's answer takes this long: past a quiet lease's old life (30 s), within the request's deadline (180 s). */
const SLOW_CALL_MS = 150_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * `ms` pass on the isolate's clock, in steps shorter than the orphan time with a few real polls
 * between them: its other requests go on looking at their lines meanwhile, as they would while
 * a round trip or a call takes long (a jump at once would make every waiter look gone).
 */
async function elapse(iso: Isolate, ms: number) {
  const step = (HARNESS_CLIENT.orphanMs ?? 1_000) * 0.8;
  for (let left = ms; left > 0; left -= step) {
    iso.offset += Math.min(step, left);
    await sleep((HARNESS_CLIENT.pollMs ?? 2) * 2);
  }
}
const VERIFY_COST = 1;

/** Runs one schedule drawn from `seed`; answers what it checked. */
export interface ScheduleOptions {
  steps?: number;
  /** At each quiet point, the first send of what the live isolates owe hangs (its request cancelled). */
  hangAtQuietPoints?: boolean;
}

export async function runSchedule(seed: number, opts: ScheduleOptions = {}): Promise<ScheduleResult> {
  const rnd = random(seed);
  const plan = rnd.pick(PLANS);
  const boundary = rnd.chance(0.25) ? "month" : rnd.chance(0.2) ? "day" : null;
  const steps = opts.steps ?? 40 + rnd.int(30);
  const violations: string[] = [];
  const account = await createAccount({ plan });
  const accountId = account.accountId;
  const stub = env.ACCOUNT_LIMITER.get(
    env.ACCOUNT_LIMITER.idFromName(`account:${accountId}`),
  ) as DurableObjectStub<AccountLimiter>;

  // The limiter's clock: a little before a month's or a day's end, or any time of a fixed day. Never
  // the machine's time: a seed's day then ended where the real clock's did (a fixed seed that used up
  // its day failed only when run near midnight UTC).
  const start =
    boundary === "month"
      ? Date.UTC(2027, rnd.int(12) + 1, 1) - 150
      : boundary === "day"
        ? Date.UTC(2027, rnd.int(12), 2 + rnd.int(25)) - 150
        : ANY_TIME_DAY_END - rnd.int(86_400_000);
  const clock = await limiterClock(stub, start);
  // Near the end of the verification balance, so it runs out during the schedule.
  const allowance = planFor(plan).credits.verification;
  const headroom = 12 + rnd.int(25);
  // Stored as the limiter stores a decision's credits (in memory alone, an instance evicted before
  // its first decision forgot it: the schedule then started with the whole month's allowance).
  await runInDurableObject(stub, (instance: AccountLimiter, state) => {
    const book = (
      instance as unknown as {
        credits: { current(now: number): { used: { verification: number } }; stored(): unknown };
      }
    ).credits;
    book.current(start).used.verification = allowance - headroom;
    state.storage.kv.put("credits", book.stored());
  });

  // Enterprise: the verifier's day has only a few requests left, so isolates' shares of it are
  // granted, refused near the floor, given back and lost with their isolates (drawn apart from the
  // schedule's own choices, which stay what they were).
  const day0 = utcDay(start);
  const rateRoom = plan === "enterprise" ? 12 + random(seed * 7 + 3).int(30) : null;
  if (rateRoom !== null)
    await runInDurableObject(stub, (instance: AccountLimiter, state) => {
      const g = { second: { count: 0, last: 0 }, minute: { count: 0, last: 0 }, day: day0, daily: DAILY - rateRoom };
      instance.counters.load("verifier", g);
      state.storage.kv.put("g:verifier", g);
    });

  const isolates = Array.from({ length: 2 + rnd.int(3) }, (_, i) => makeIsolate(i, seed, rnd));
  const live = () => isolates.filter((i) => !i.dead);
  const emails = Array.from({ length: 24 + rnd.int(16) }, (_, i) =>
    rnd.chance(0.8) ? `s${seed}u${i}@mailinator.com` : `s${seed}u${i}@acme-verify.test`,
  );
  const fingerprints = new Map<string, string>();
  for (const email of emails) fingerprints.set(email, await requestFingerprint("email-verifier", { email }));
  const agentEmails = new Set<string>();
  const answers: Answer[] = [];
  let packGranted = 0;
  const packKeys = new Set<string>();

  // A bulk job of the same addresses, its chunk delivered by the harness itself.
  const bulk = rnd.chance(0.5)
    ? await bulkJob(
        account,
        emails.filter(() => rnd.chance(0.6)),
      )
    : null;
  const planOf = async () => plan;
  let bulkDeliveries: Promise<unknown>[] = [];

  const slow = { roundTrips: 0, calls: 0, outages: 0, chunks: 0, jumps: 0 };
  /**
   * The limiter's sweep after time passed: the bulk job's alarm, which sends a dead delivery's
   * billing BILLING_RESEND_MS (30 s) after it was recorded, has run by then too.
   */
  const sweepAfterJump = async () => {
    if (bulk) {
      await runInDurableObject(jobStub(env, bulk.id), async (_i: BulkJob, state) =>
        state.storage.sql.exec(`UPDATE billing SET at = 0`),
      );
      await runDurableObjectAlarm(jobStub(env, bulk.id));
    }
    await runDurableObjectAlarm(stub);
  };
  /** The verifier, its answer taking SLOW_CALL_MS on the isolate's and the limiter's clocks, the limiter's sweep running meanwhile. */
  const slowVerifier = (iso: Isolate): AnyCapability => {
    const verifier = emailVerifier as AnyCapability;
    return {
      ...verifier,
      handler: async (params, ctx) => {
        clock.at(clock.now + SLOW_CALL_MS);
        await elapse(iso, SLOW_CALL_MS);
        await sweepAfterJump();
        return verifier.handler(params, ctx);
      },
    };
  };

  let startedInDay0 = 0;
  const call = (iso: Isolate, surface: Answer["surface"], email: string, slowCall = false) => {
    if (utcDay(clock.now) === day0) startedInDay0 += 1;
    const op = asRequest(async () => {
      const execution = await executeCapability(
        slowCall ? slowVerifier(iso) : emailVerifier,
        { email },
        {
          env: iso.env,
          waitUntil: (p) => void iso.pending.push(p),
          accountId,
          plan,
          surface: surface === "agent" ? "agent" : "v1",
          chargeLater: surface === "v1",
          client: iso.client,
          now: () => Date.now() + iso.skew,
        },
      );
      if (requests.getStore()?.hung) return;
      const answer: Answer = {
        iso,
        surface,
        fingerprint: fingerprints.get(email) ?? (await requestFingerprint("email-verifier", { email })),
        status: execution.response.status,
        found: execution.result?.found ?? false,
        day: utcDay(clock.now),
      };
      answers.push(answer);
      const written = execution.billing.whenDecided(async (billed) => {
        answer.report = billed;
      });
      if (written) await written;
    }).catch(() => {
      // A call whose admission could not be had answers an error (503): not an answer.
      if (!iso.dead)
        answers.push({
          iso,
          surface,
          fingerprint: "",
          status: 503,
          found: false,
          report: false,
          day: utcDay(clock.now),
        });
    });
    return Promise.race([op, iso.died]);
  };

  const deliver = (iso: Isolate, e: Env = iso.env) => {
    const ctx = createExecutionContext();
    const run = asRequest(() =>
      processChunk(e, ctx, { jobId: bulk!.id, chunk: 0, run: 1 }, planOf, batchMemo(), iso.client),
    ).catch(() => {});
    return Promise.race([run, iso.died]);
  };

  /** Moves every clock forward (the limiter's and the isolates'), as if nothing happened for `ms`. */
  const jump = (ms: number) => {
    clock.at(clock.now + ms);
    for (const iso of isolates) iso.offset += ms;
  };
  /**
   * Brings the schedule to a quiet point before a long jump: deliveries done, outages over, what
   * the live isolates owe sent (their next requests would send it), as anything running for
   * minutes or hours would be past its deadline.
   */
  const quiesce = async () => {
    await Promise.all(bulkDeliveries);
    bulkDeliveries = [];
    const kept = live().map((iso) => [iso, iso.faults] as const);
    // What the live isolates owe reaches their limiter before minutes pass, as their next requests
    // (within the sweep's 10 minutes: billing.md's bound) would send it. With hangAtQuietPoints the
    // first send hangs, its request cancelled, and the next one sends it again.
    if (opts.hangAtQuietPoints) {
      for (const iso of live()) iso.faults = { ...CALM, hang: 1 };
      await settleLive(isolates, accountId, violations);
    }
    for (const iso of live()) iso.faults = { ...CALM };
    await settleLive(isolates, accountId, violations);
    for (const [iso, faults] of kept) iso.faults = { ...faults, outage: false };
  };
  /** Minutes or hours pass: the limiter's sweeps run; an operator retries a pack order under its key. */
  const longJump = async () => {
    await quiesce();
    slow.jumps += 1;
    // Minutes or hours of quiet: the runtime has evicted the limiter by then (workerd after 10 s
    // idle), and the next decisions are made by a new instance from what the old one stored.
    await evictDurableObject(stub);
    jump(rnd.pick([11 * 60_000, 2 * 3_600_000]));
    await sweepAfterJump();
    if (boundary !== "month" && packKeys.size) await stub.grantPack(5 + rnd.int(10), rnd.pick([...packKeys]));
  };
  /** A delivery whose rows run 12 minutes (past the reservation's age), renewing every third of a short lease. */
  const slowChunk = async () => {
    await quiesce();
    const iso = rnd.pick(live());
    slow.chunks += 1;
    const rows = slowRows(withChunkClaim(iso.env, 60));
    const delivery = deliver(iso, rows.env);
    await sleep(30);
    for (let i = 0; i < 3; i++) {
      jump(4 * 60_000);
      await sleep(40);
    }
    await sweepAfterJump();
    rows.open();
    await delivery;
  };

  for (let done = 0; done < steps; ) {
    const wave: Promise<unknown>[] = [];
    const width = 1 + rnd.int(5);
    // At most one call of a wave is slow (the others run beside it); long jumps wait for the wave.
    let slowInWave = false;
    let after: (() => Promise<void>) | null = null;
    for (let k = 0; k < width && done < steps; k++, done++) {
      clock.at(clock.now + rnd.int(boundary ? 25 : 400));
      const iso = rnd.pick(live());
      const roll = rnd.next();
      if (roll < 0.36) {
        const slowCall: boolean = !slowInWave && rnd.chance(0.08);
        slowInWave ||= slowCall;
        if (slowCall) slow.calls += 1;
        wave.push(call(iso, "v1", rnd.pick(emails), slowCall));
      } else if (roll < 0.52) wave.push(call(iso, "mcp", rnd.pick(emails)));
      else if (roll < 0.57) {
        const email = `s${seed}agent${rnd.int(4)}@mailinator.com`;
        agentEmails.add(email);
        wave.push(call(iso, "agent", email));
      } else if (roll < 0.7) {
        const level = rnd.pick([0, 0.05, 0.15, 0.3]);
        iso.faults = {
          failBefore: level,
          loseReply: level,
          hang: level / 3,
          delayMs: rnd.pick([0, 0, 5, 20]),
          slow: rnd.pick([0, 0, 0.1, 0.3]),
          outage: rnd.chance(0.08),
        };
        if (iso.faults.slow) slow.roundTrips += 1;
        if (iso.faults.outage) slow.outages += 1;
      } else if (roll < 0.73) {
        if (live().filter((i) => !i.dieOnBulkBilling).length > 1) iso.die();
      } else if (roll < 0.755) {
        after ??= longJump;
      } else if (roll < 0.79) {
        if (boundary !== "month") {
          // An operator grant, sometimes sent twice under the same key.
          const key = rnd.chance(0.5) && packKeys.size ? rnd.pick([...packKeys]) : `harness-${seed}-${done}`;
          const credits = 5 + rnd.int(10);
          const granted = await stub.grantPack(credits, key);
          if (!packKeys.has(key)) packGranted += credits;
          packKeys.add(key);
          void granted;
        }
      } else if (bulk) {
        const mode = rnd.next();
        if (mode < 0.5) bulkDeliveries.push(deliver(iso));
        else if (mode < 0.8) {
          // Delivered twice at once (the queue's at-least-once, or a lease run out): one is fenced.
          const other = rnd.pick(live());
          bulkDeliveries.push(deliver(iso), deliver(other));
        } else if (mode < 0.9 && live().filter((i) => !i.dieOnBulkBilling).length > 1) {
          // A delivery that dies right after recording its rows.
          iso.dieOnBulkBilling = true;
          bulkDeliveries.push(deliver(iso));
        } else after ??= slowChunk;
      }
    }
    await Promise.all(wave);
    if (after) await after();
  }

  // ---- rest: what is alive finishes its work; then the invariants are read --------------------
  for (const iso of live()) iso.faults = { ...CALM };
  await settleLive(isolates, accountId, violations);
  await Promise.all(bulkDeliveries);
  bulkDeliveries = [];
  if (bulk) {
    for (let tries = 0; tries < 3 && !(await chunkFinished(bulk.id)); tries++) await deliver(live()[0]!);
    await runInDurableObject(jobStub(env, bulk.id), async (_i: BulkJob, state) =>
      state.storage.sql.exec(`UPDATE billing SET at = 0`),
    );
    await runDurableObjectAlarm(jobStub(env, bulk.id));
  }
  // The live isolates go quiet: their rate shares, unused, go back with what they still send.
  for (const iso of live()) iso.offset += HARNESS_CLIENT.rateShareIdleMs ?? 0;
  await settleLive(isolates, accountId, violations);
  await stub.syncUsage();

  // A table is created on first use: a schedule that billed nothing (every call refused) has none.
  const rows = <T>(state: DurableObjectState, table: string, query: string, ...args: SqlStorageValue[]): T[] =>
    state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", table).toArray().length
      ? (state.storage.sql.exec(query, ...args).toArray() as T[])
      : [];
  const { credits, windows, verifierDay, openShares } = await runInDurableObject(stub, (_i: AccountLimiter, state) => ({
    verifierDay: state.storage.kv.get<{ day: string; daily: number }>("g:verifier"),
    openShares: rows(state, "rate_shares", "SELECT 1 FROM rate_shares WHERE closed = 0 AND day = ?", day0).length,
    credits: state.storage.kv.get<{
      month: string;
      used: { verification: number };
      pack: { remaining: number } | null;
    }>("credits"),
    windows: rows<{ fingerprint: string; billed_at: number; charged: string | null }>(
      state,
      "repeat_windows",
      "SELECT fingerprint, billed_at, charged FROM repeat_windows",
    ).map((w) => ({
      fingerprint: w.fingerprint,
      billedAt: w.billed_at,
      charged: w.charged === null ? null : (JSON.parse(w.charged) as { verification?: number }),
    })),
  }));
  const bulkRows = bulk ? await bulkRowsOf(bulk.id, bulk.emails, fingerprints) : [];
  const usage = await env.DB.prepare("SELECT day, count FROM usage_days WHERE account_id = ?")
    .bind(accountId)
    .all<{ day: number; count: number }>();
  const end = clock.now;
  clock.at(null);

  // ---- the invariants ------------------------------------------------------------------------
  // Every charge is decided on the schedule's clock. One decided on another (a limiter instance
  // that had lost it) is no money fault, and would make the month's check below compare charges
  // made years apart: it is named as what it is.
  for (const w of windows)
    if (w.billedAt < start || w.billedAt > end)
      violations.push(
        `window ${w.fingerprint.slice(0, 8)} billed at ${new Date(w.billedAt).toISOString()}, off the schedule's clock`,
      );
  const windowOf = new Map(windows.map((w) => [w.fingerprint, w]));
  const monthStart = Date.parse(`${credits?.month}-01T00:00:00Z`);
  const charged = (ws: typeof windows) => ws.reduce((n, w) => n + (w.charged?.verification ?? 0), 0);
  for (const w of windows)
    if (w.charged?.verification !== VERIFY_COST)
      violations.push(`window ${w.fingerprint.slice(0, 8)} charged ${JSON.stringify(w.charged)}, not its cost`);
  const usedNow = credits?.used.verification ?? 0;
  if (usedNow > allowance) violations.push(`used ${usedNow} beyond the allowance ${allowance}`);
  if ((credits?.pack?.remaining ?? 0) < 0) violations.push("the pack went below zero");
  if (boundary === "month") {
    // The new month's usage is exactly what was charged in it: no earlier instant reset or moved it.
    const inMonth = windows.filter((w) => w.billedAt >= monthStart);
    if (usedNow !== charged(inMonth))
      violations.push(`month ${credits?.month}: used ${usedNow}, charged in it ${charged(inMonth)}`);
  } else {
    const packSpent = packGranted - (credits?.pack?.remaining ?? 0);
    if (usedNow - (allowance - headroom) + packSpent !== charged(windows)) {
      violations.push(
        `credits taken ${usedNow - (allowance - headroom) + packSpent} (pack ${packSpent}), charged ${charged(windows)}`,
      );
    }
  }
  const reportsLost = checkReports(answers, bulkRows, windowOf, agentEmails, fingerprints, violations);
  // /v1/usage counts what the limiter charged, day by day.
  const byDay = new Map<number, number>();
  for (const w of windows)
    byDay.set(
      Math.floor(w.billedAt / 86_400_000) * 86_400_000,
      (byDay.get(Math.floor(w.billedAt / 86_400_000) * 86_400_000) ?? 0) + 1,
    );
  const usageByDay = new Map<number, number>();
  for (const u of usage.results) usageByDay.set(u.day, (usageByDay.get(u.day) ?? 0) + u.count);
  for (const [day, n] of byDay)
    if (usageByDay.get(day) !== n)
      violations.push(
        `usage of day ${new Date(day).toISOString().slice(0, 10)}: ${usageByDay.get(day) ?? 0}, charged ${n}`,
      );
  if ([...usageByDay.values()].reduce((a, b) => a + b, 0) !== windows.length)
    violations.push(
      `usage counts ${[...usageByDay.values()].reduce((a, b) => a + b, 0)} calls, the limiter charged ${windows.length}`,
    );

  // What the dead lost: answers they gave that nobody was charged for.
  const lossPerDeath = isolates
    .filter((i) => i.dead)
    .map(
      (iso) =>
        answers.filter(
          (a) =>
            a.iso === iso &&
            a.status === 200 &&
            a.found &&
            a.surface !== "agent" &&
            a.report === undefined &&
            !windowOf.has(a.fingerprint),
        ).length * VERIFY_COST,
    );

  const rate =
    rateRoom === null
      ? null
      : checkRateShares(
          { room: rateRoom, day0, started: startedInDay0 },
          answers,
          verifierDay,
          openShares,
          isolates,
          violations,
        );

  return {
    seed,
    plan,
    boundary,
    isolates: isolates.length,
    answers: answers.filter((a) => a.status === 200).length,
    billed: windows.length,
    refused: answers.filter((a) => a.status === 402 || a.status === 429).length,
    bulk: bulk !== null,
    deaths: isolates.filter((i) => i.dead).length,
    violations,
    lossPerDeath,
    reportsLost,
    slow,
    rate,
  };
}

const DAILY = 100_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Enterprise's daily limit, shared by the isolates: the first day never admits more than was left
 * of it (answers given while the limiter was in that day), and at rest every share still open is a
 * dead isolate's (the live ones, gone quiet, gave theirs back). What was counted but never answered
 * is measured: dead isolates' unspent shares, and calls cancelled or re-admitted after their
 * admission was counted.
 */
function checkRateShares(
  { room, day0, started }: { room: number; day0: string; started: number },
  answers: Answer[],
  verifierDay: { day: string; daily: number } | undefined,
  openShares: number,
  isolates: Isolate[],
  violations: string[],
): NonNullable<ScheduleResult["rate"]> {
  const admitted = answers.filter((a) => a.status === 200 && a.day === day0).length;
  if (admitted > room) violations.push(`day ${day0}: ${admitted} verifier calls admitted, only ${room} were left`);
  if (verifierDay?.day !== day0) return { room, admitted, unserved: null, unanswered: null, openAtRest: null };
  const counted = verifierDay.daily - (DAILY - room);
  if (counted > room) violations.push(`day ${day0}: ${counted} requests counted, only ${room} were left`);
  const deaths = isolates.filter((i) => i.dead).length;
  if (openShares > deaths) violations.push(`${openShares} rate shares still open at rest, ${deaths} isolate(s) died`);
  // Calls whose admission may have been counted but that gave no answer: cancelled (hung), dead with
  // their isolate, or failed (503) after a decision whose reply was lost.
  const unanswered = started - answers.filter((a) => a.day === day0 && a.status !== 503).length;
  return { room, admitted, unserved: counted - admitted, unanswered, openAtRest: openShares };
}

/**
 * Every report agrees with the limiter: a request reported billed was charged, once; a request
 * charged was reported billed, unless the isolate that answered it died before its report
 * (counted); a found bulk row is billed, or a repeat of a request billed; the agent surface charges
 * nothing; every live isolate's answer got its decision.
 */
function checkReports(
  answers: Answer[],
  bulkRows: { fingerprint: string; found: boolean; credits: number }[],
  windowOf: Map<string, { charged: { verification?: number } | null }>,
  agentEmails: Set<string>,
  fingerprints: Map<string, string>,
  violations: string[],
): number {
  let lost = 0;
  const reportsBilled = new Map<string, number>();
  for (const a of answers) {
    if (a.status !== 200) continue;
    if (a.report === undefined && !a.iso.dead && a.surface !== "agent")
      violations.push(`a live isolate's call (${a.surface}) never got its billing decision`);
    if (a.surface === "agent") {
      if (a.report) violations.push("an agent-surface call was billed in credits");
      continue;
    }
    if (a.report) reportsBilled.set(a.fingerprint, (reportsBilled.get(a.fingerprint) ?? 0) + 1);
    if (a.report && !a.found) violations.push("a call that found nothing was reported billed");
    // An answer given by a live isolate is billed, or is a repeat of a request billed (its window).
    if (a.report === false && a.found && !a.iso.dead && !windowOf.has(a.fingerprint)) {
      // Enough to tell a repeat's race from a reservation released under it, when it is read.
      const same = answers.filter((o) => o !== a && o.fingerprint === a.fingerprint);
      const sameRows = bulkRows.filter((r) => r.fingerprint === a.fingerprint).length;
      violations.push(
        `a live isolate's found answer (${a.surface}) was billed nowhere (request ${a.fingerprint.slice(0, 8)}, answer ${answers.indexOf(a) + 1} of ${answers.length}; the same request: ${same.map((o) => `${o.surface} ${o.status} ${o.report}`).join(", ") || "no other answer"}, ${sameRows} bulk row(s))`,
      );
    }
  }
  for (const row of bulkRows) {
    if (row.credits > 0) reportsBilled.set(row.fingerprint, (reportsBilled.get(row.fingerprint) ?? 0) + 1);
    if (row.credits > 0 && !row.found) violations.push("a bulk row that found nothing was billed");
    if (row.found && row.credits === 0 && !windowOf.has(row.fingerprint))
      violations.push("a bulk row that found something was billed nowhere");
  }
  const all = new Set([...reportsBilled.keys(), ...windowOf.keys()]);
  for (const fp of all) {
    const reports = reportsBilled.get(fp) ?? 0;
    const window = windowOf.get(fp);
    if (reports > 1) violations.push(`request ${fp.slice(0, 8)} reported billed ${reports} times`);
    if (reports > 0 && !window) violations.push(`request ${fp.slice(0, 8)} reported billed, never charged`);
    if (window && reports === 0) {
      if (answers.some((a) => a.fingerprint === fp && a.iso.dead && a.report === undefined && a.found)) lost += 1;
      else violations.push(`request ${fp.slice(0, 8)} charged, reported billed nowhere`);
    }
  }
  for (const email of agentEmails)
    if (windowOf.has(fingerprints.get(email) ?? "")) violations.push("an agent-surface request opened a window");
  return lost;
}

/**
 * Waits for what the live isolates' requests still do after answering (a waitUntil whose round
 * trip hangs is cancelled, as the runtime would), then sends what each still owes its limiter.
 */
async function settleLive(isolates: Isolate[], accountId: number, violations: string[]) {
  for (let round = 0; round < 2; round++) {
    for (const iso of isolates.filter((i) => !i.dead))
      await Promise.race([Promise.all(iso.pending.splice(0)), new Promise((r) => setTimeout(r, WAIT_UNTIL_CANCEL_MS))]);
  }
  // Before the harness sends it: what an isolate owes must have a sender of its own (a wait, a
  // message in flight, a stranded line its next request takes up), or it waits for ever.
  for (const iso of isolates.filter((i) => !i.dead))
    if (iso.client.owedWithoutSender().length)
      violations.push("a live isolate owes its limiter what nothing will send");
  // Each isolate sends what it owes in a request of its own: a round trip that hangs (a fault a
  // quiet point keeps) leaves that request waiting for ever, as the runtime would cancel it, and the
  // line's next sender sends the message again. Awaited outside a request, it held the schedule.
  // An isolate may die in it (one set to die sending a bulk chunk's billing that it still owed):
  // its request ends with it, as every call's and delivery's does.
  for (const iso of isolates.filter((i) => !i.dead))
    await Promise.race([asRequest(() => iso.client.flush(iso.env, accountId)), iso.died]);
}

async function bulkJob(account: Awaited<ReturnType<typeof createAccount>>, emails: string[]) {
  if (!emails.length) return null;
  const id = await createdId(
    await createJob(account, "verifier", { name: "harness", data: [["email"], ...emails.map((e) => [e])] }),
  );
  // Its chunk is delivered by the harness itself.
  await launchLosingMessages(account, id);
  return { id, emails };
}

async function chunkFinished(jobId: number): Promise<boolean> {
  return runInDurableObject(jobStub(env, jobId), (instance: BulkJob, state) => {
    const status = (instance as unknown as { job: { status: string } }).job.status;
    return status !== "running" || state.storage.sql.exec("SELECT 1 FROM chunks WHERE chunk = 0").toArray().length > 0;
  });
}

async function bulkRowsOf(jobId: number, emails: string[], fingerprints: Map<string, string>) {
  const rows = await runInDurableObject(jobStub(env, jobId), (_i: BulkJob, state) =>
    state.storage.sql
      .exec<{ idx: number; outcome: string; c_verify: number }>("SELECT idx, outcome, c_verify FROM rows")
      .toArray(),
  );
  // Rows are indexed in input order (the header is not a row); duplicates within the job are not run.
  return rows
    .filter((r) => r.outcome === "found" || r.outcome === "not_found" || r.c_verify > 0)
    .map((r) => ({
      fingerprint: fingerprints.get(emails[r.idx]!) ?? "",
      found: r.outcome === "found",
      credits: r.c_verify,
    }));
}

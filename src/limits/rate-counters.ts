import { DAY_MS } from "../platform/time.js";
import type { Change } from "./limiter-change.js";
import type { GroupCount, LimitSnapshot } from "./limiter-messages.js";
import type { Limits } from "./rate-table.js";

/**
 * The rate-limit counters of one account's limiter, per endpoint group (`g:<group>` keys): pure
 * code on a map the limiter loads, every change written with the decision that made it.
 */

interface Counter {
  count: number;
  /** Instant of the last accepted request; the counter resets after a full window of silence. */
  last: number;
}
export interface GroupState {
  second: Counter;
  minute: Counter;
  /** UTC day (YYYY-MM-DD) the daily count belongs to. */
  day: string;
  daily: number;
}

const SECOND = 1_000;
const MINUTE = 60_000;
/** Count keys remembered (counts sent again are counted once; no decision depends on counts). */
const COUNT_KEYS = 10_000;

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const secondsToUtcMidnight = (ms: number) =>
  Math.max(1, Math.ceil((Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS - ms) / 1000));
export const secondsToNextMinute = (ms: number) =>
  Math.max(1, Math.ceil((Math.floor(ms / MINUTE) * MINUTE + MINUTE - ms) / 1000));

/** What the rate-limit headers report for a group: its limits, what is left of each, and when windows reset. */
export function limitSnapshot(
  limits: Limits,
  used: { second: number; minute: number; daily: number },
  now: number,
): LimitSnapshot {
  const left = (limit: number, n: number) => (limit ? Math.max(0, limit - n) : 0);
  return {
    limits,
    secondLeft: left(limits.second, used.second),
    minuteLeft: left(limits.minute, used.minute),
    dailyLeft: left(limits.daily, used.daily),
    minuteResetSeconds: secondsToNextMinute(now),
    dailyResetSeconds: secondsToUtcMidnight(now),
  };
}

export class RateCounters {
  private readonly countKeys = new Set<string>();

  constructor(private readonly groups: Map<string, GroupState> = new Map()) {}

  /** Loads a stored `g:<group>` value. */
  load(group: string, state: GroupState) {
    this.groups.set(group, state);
  }

  /** A group's counters as of `now`; the UTC day never moves back (a day already left is not entered again). */
  state(group: string, now: number): GroupState {
    const s = this.groups.get(group) ?? {
      second: { count: 0, last: 0 },
      minute: { count: 0, last: 0 },
      day: utcDay(now),
      daily: 0,
    };
    const today = utcDay(now);
    // biome-ignore lint/complexity/useMathMinMax: days are "YYYY-MM-DD" strings, compared as text, not numbers
    const day = today > s.day ? today : s.day;
    return {
      second: now - s.second.last >= SECOND ? { count: 0, last: s.second.last } : s.second,
      minute: now - s.minute.last >= MINUTE ? { count: 0, last: s.minute.last } : s.minute,
      day,
      daily: s.day === day ? s.daily : 0,
    };
  }

  /** The limit a request of `state` would pass, or null when none: the longest wait first. */
  exceeded(
    state: GroupState,
    limits: Limits,
    now: number,
  ): { reason: "rps" | "rpm" | "daily"; retryAfter: number } | null {
    if (limits.daily && state.daily >= limits.daily) return { reason: "daily", retryAfter: secondsToUtcMidnight(now) };
    if (limits.minute && state.minute.count >= limits.minute) return { reason: "rpm", retryAfter: 60 };
    if (limits.second && state.second.count >= limits.second) return { reason: "rps", retryAfter: 1 };
    return null;
  }

  /** Counts one request of `group` in `state` (its counters as of `now`). */
  count(group: string, state: GroupState, now: number, change: Change) {
    state.second = { count: state.second.count + 1, last: Math.max(state.second.last, now) };
    state.minute = { count: state.minute.count + 1, last: Math.max(state.minute.last, now) };
    state.daily += 1;
    this.groups.set(group, state);
    change.writes[`g:${group}`] = state;
  }

  /**
   * Moves the daily count of `group` in `state` (its counters as of `now`) by `n` requests: a rate
   * share granted (counted used at once) or the unspent part of one given back (never below zero).
   */
  addDaily(group: string, state: GroupState, n: number, change: Change) {
    state.daily = Math.max(0, state.daily + n);
    this.groups.set(group, state);
    change.writes[`g:${group}`] = state;
  }

  /** Adds requests admitted elsewhere to their groups' counters (each key once, while remembered). */
  applyCounts(counts: readonly GroupCount[], now: number, change: Change) {
    for (const { group, at, key } of counts) {
      if (key) {
        if (this.countKeys.has(key)) continue;
        if (this.countKeys.size >= COUNT_KEYS) {
          const [oldest] = this.countKeys;
          this.countKeys.delete(oldest);
        }
        this.countKeys.add(key);
      }
      const stored = this.groups.get(group);
      // A count from a UTC day already over belongs to no counter that is still shown.
      if (stored && utcDay(at) < stored.day) continue;
      this.count(group, this.state(group, now), now, change);
    }
  }

  snapshot(state: GroupState, limits: Limits, now: number): LimitSnapshot {
    return limitSnapshot(limits, { second: state.second.count, minute: state.minute.count, daily: state.daily }, now);
  }
}

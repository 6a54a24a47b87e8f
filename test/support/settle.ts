import { vi } from "vitest";

/**
 * Waiting for what a request leaves behind after it answers: a queue consumer's log row, a
 * `waitUntil` settlement, a delivery. The work has no event a test can await from outside the
 * Worker, so the check is polled; its deadline is generous because a busy machine (two cores shared
 * by several test runs) can take seconds, where vitest's 1 s default failed tests that were right.
 * A check that holds returns at once: the deadline costs nothing on an idle machine. Under the 60 s
 * test timeout (vitest.config.ts), so a check that never holds fails with its own message.
 */
export const SETTLE_TIMEOUT_MS = 10_000;
const INTERVAL_MS = 20;

interface Options {
  /** A longer deadline (a shorter one is raised to SETTLE_TIMEOUT_MS). */
  timeout?: number;
  interval?: number;
}

const optionsOf = (options: Options = {}) => ({
  timeout: Math.max(options.timeout ?? 0, SETTLE_TIMEOUT_MS),
  interval: options.interval ?? INTERVAL_MS,
});

/** Resolves with the check's first truthy value (vi.waitUntil with a deadline a busy machine meets). */
export function settle<T>(check: () => T | Promise<T>, options?: Options): Promise<T> {
  return vi.waitUntil(check, optionsOf(options));
}

/** Resolves once the assertion stops throwing (vi.waitFor with a deadline a busy machine meets). */
export function eventually<T>(assertion: () => T | Promise<T>, options?: Options): Promise<T> {
  return vi.waitFor(assertion, optionsOf(options));
}

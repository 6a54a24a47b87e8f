// A crawl clock for tests with no wall time in it: time moves only when the crawler waits (a
// Retry-After, a pause) or when a fixture's answer says it took time (`x-fixture-latency-ms`), so
// what a test reads off it is the same however loaded the machine is. `watchFetches()` records
// every request the crawler makes at this clock's time, in the test's own isolate: a test can say
// "asked again no sooner than 1 s later" exactly, without waiting a second or mapping a fixture's
// wall-clock log onto this clock.
import { vi } from "vitest";
import type { CrawlClock } from "../../src/engine/web/crawl/crawler.js";
import { LATENCY_HEADER } from "../fixtures/latency.js";

export class VirtualClock implements CrawlClock {
  /** Where this clock starts: the wall's time once, so absolute dates (an HTTP-date Retry-After) read sensibly. */
  private readonly origin = Date.now();
  private elapsed = 0;
  private waited = 0;
  /**
   * Requests made while watching (`watchFetches`): at this clock's time when each was sent, and how
   * many others were in flight then (0: it was sent alone, after the one before had its answer), and
   * the status it was answered with.
   */
  readonly requests: { url: string; at: number; alongside: number; status?: number }[] = [];
  private inFlight = 0;

  /** `onSleep` moves what the crawler talks to forward too (a fixture site's clock: advanceUrl). */
  constructor(private readonly onSleep?: (ms: number) => Promise<unknown>) {}

  now = (): number => this.origin + this.elapsed;

  sleep = async (ms: number): Promise<void> => {
    if (ms > 0) {
      this.elapsed += ms;
      this.waited += ms;
      await this.onSleep?.(ms);
    }
    await Promise.resolve();
  };

  /** Time the crawler spent waiting on this clock (which cost no wall time). */
  get saved(): number {
    return this.waited;
  }

  /** The times (on this clock) at which `url` was asked for. */
  asked(url: string): number[] {
    return this.requests.filter((r) => r.url === url).map((r) => r.at);
  }

  /**
   * Watches this isolate's `fetch` until the returned function is called: each request is recorded
   * at this clock's time, and an answer that says it took time moves the clock to when it came.
   */
  watchFetches(): () => void {
    const real = globalThis.fetch;
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const sentAt = this.now();
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      const request: (typeof this.requests)[number] = { url, at: sentAt, alongside: this.inFlight };
      this.requests.push(request);
      this.inFlight++;
      const res = await real(input, init).finally(() => this.inFlight--);
      request.status = res.status;
      const took = Number(res.headers.get(LATENCY_HEADER) ?? 0);
      if (took > 0) this.elapsed = Math.max(this.elapsed, sentAt + took - this.origin);
      return res;
    });
    return () => spy.mockRestore();
  }
}

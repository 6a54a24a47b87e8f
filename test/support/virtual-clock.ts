// A crawl clock for tests: time runs as the real clock does, plus every wait the crawler asks for,
// which costs no wall time. `at(realMs)` turns a fixture's real timestamp of a request into this
// clock's time, so a test can say "asked again no sooner than 1 s later" without waiting a second.
import type { CrawlClock } from "../../src/engine/web/crawl/crawler.js";

export class VirtualClock implements CrawlClock {
  /** Waits asked for, with the real time each was asked at. */
  readonly waits: { realAt: number; ms: number }[] = [];

  /** `onSleep` moves what the crawler talks to forward too (a fixture site's clock: advanceUrl). */
  constructor(private readonly onSleep?: (ms: number) => Promise<unknown>) {}

  private skipped(realMs: number): number {
    return this.waits.filter((w) => w.realAt <= realMs).reduce((sum, w) => sum + w.ms, 0);
  }

  now = (): number => Date.now() + this.skipped(Date.now());

  sleep = async (ms: number): Promise<void> => {
    if (ms > 0) {
      this.waits.push({ realAt: Date.now(), ms });
      await this.onSleep?.(ms);
    }
    await Promise.resolve();
  };

  /** This clock's time at a real timestamp (a fixture's record of a request). */
  at(realMs: number): number {
    return realMs + this.skipped(realMs);
  }

  /** Wall time this clock skipped. */
  get saved(): number {
    return this.waits.reduce((sum, w) => sum + w.ms, 0);
  }
}

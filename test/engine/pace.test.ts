// A site's stated allowance as one crawl call keeps it: answers of one window merged, asks still out
// counted, a new window after the stated reset.
import { describe, expect, it } from "vitest";
import { newPace, noteAllowance, RESET_MARGIN_MS, spareAsks, untilReset } from "../../src/engine/web/crawl/pace.js";

const T = 1_000_000;

describe("a stated allowance", () => {
  it("keeps the fewest left and the earliest reset of one window's answers, whatever order they come in", () => {
    const pace = newPace();
    noteAllowance(pace, { remaining: 2, resetAt: T + 9_800, limit: 6 }, T);
    noteAllowance(pace, { remaining: 3, resetAt: T + 9_300, limit: null }, T + 10);
    expect(pace.allowance).toEqual({ remaining: 2, resetAt: T + 9_300, limit: 6 });
  });

  it("takes a reset more than a second later as a new window or a block (a 429's)", () => {
    const pace = newPace();
    noteAllowance(pace, { remaining: 2, resetAt: T + 9_000, limit: 6 }, T);
    noteAllowance(pace, { remaining: 0, resetAt: T + 20_000, limit: null }, T + 100);
    expect(pace.allowance).toEqual({ remaining: 0, resetAt: T + 20_000, limit: 6 });
  });

  it("counts asks still out against what is left, and gives a turned window its stated size", () => {
    const pace = newPace();
    expect(spareAsks(pace, T)).toBe(Number.POSITIVE_INFINITY);
    noteAllowance(pace, { remaining: 3, resetAt: T + 5_000, limit: 6 }, T);
    pace.unanswered = 2;
    expect(spareAsks(pace, T)).toBe(1);
    expect(spareAsks(pace, T + 5_000 + RESET_MARGIN_MS)).toBe(4);
    pace.unanswered = 0;
    expect(untilReset(pace, T + 1_000)).toBe(4_000 + RESET_MARGIN_MS);
  });

  it("asks one page of a turned window whose size it was not told, and waits on no reset it was not told", () => {
    const pace = newPace();
    noteAllowance(pace, { remaining: 0, resetAt: T + 1_000, limit: null }, T);
    expect(spareAsks(pace, T + 2_000)).toBe(1);
    noteAllowance(pace, { remaining: 0, resetAt: null, limit: null }, T + 2_000);
    expect(spareAsks(pace, T + 60_000)).toBe(0);
    expect(untilReset(pace, T + 60_000)).toBeNull();
  });
});

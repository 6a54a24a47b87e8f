// Dependencies point one way: http → capabilities → engine. The engine returns facts and knows
// nothing of response shapes, routes or accounts.
import { describe, expect, it } from "vitest";

const sources = import.meta.glob("../../src/engine/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const UPWARD = /from\s+"(?:\.\.\/)+(capabilities|account|agent|bulk|limits|oauth|leads|delivery|operator|mcp)\//;

describe("the engine's dependencies", () => {
  it("reads every engine module", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(30);
  });

  it("imports nothing from the layers above it", () => {
    const upward = Object.entries(sources).flatMap(([file, text]) =>
      text.split("\n").filter((line) => UPWARD.test(line)).map((line) => `${file}: ${line.trim()}`),
    );
    expect(upward).toEqual([]);
  });
});

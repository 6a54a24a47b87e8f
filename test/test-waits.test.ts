// Waiting for work a request leaves behind goes through test/support/settle.ts, whose deadline a
// busy machine meets; vitest's own 1 s default failed right tests on a loaded machine.
import { describe, expect, it } from "vitest";

const tests = import.meta.glob(["./**/*.ts", "!./support/settle.ts", "!./test-waits.test.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

describe("waits in the tests", () => {
  it("all go through settle() or eventually() (test/support/settle.ts), never vitest's 1 s default", () => {
    const direct = Object.entries(tests).flatMap(([file, text]) =>
      text
        .split("\n")
        .map((line, i) => ({ file, line: i + 1, text: line.trim() }))
        .filter(({ text }) => /\bvi\s*\.\s*wait(Until|For)\s*\(/.test(text)),
    );
    expect(direct.map((d) => `${d.file}:${d.line}: ${d.text}`)).toEqual([]);
    expect(Object.keys(tests).length).toBeGreaterThan(100);
  });
});

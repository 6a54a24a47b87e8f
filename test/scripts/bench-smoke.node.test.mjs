// Smoke runs of the benches' parts that need no server, cheap enough for every `npm test` (the
// ones that start their own `wrangler dev` run with `npm run bench -- <name> --smoke`, see
// docs/performance.md). The repeat lookup of `npm run bench -- scale` once died at start because it
// replayed a copy of the limiter's schema that had moved ("duplicate column name: call").
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { repeatWindowsClass, timeRepeatLookup } from "../../bench/lib/repeat-lookup.mjs";

describe("bench smoke: the scale bench's 30-day repeat lookup", () => {
  it("times RepeatWindows.find on the table the class makes itself, finding the windows that are open", async () => {
    const RepeatWindows = await repeatWindowsClass();
    const result = timeRepeatLookup(RepeatWindows, 100, 50);
    assert.match(result.sql, /^SELECT .* FROM repeat_windows WHERE fingerprint = \?/);
    assert.ok(result.hits > 0, "open windows are found");
    assert.ok(result.hit >= 0 && result.miss >= 0);
  });
});

import { describe, expect, it } from "vitest";
import { ExpiringMap } from "../../src/platform/expiring-map.js";

describe("ExpiringMap (the per-isolate caches' shared shape)", () => {
  it("answers until ttl has run out, and not one millisecond longer", () => {
    const map = new ExpiringMap<string, number>(10);
    map.set("a", 1, 1_000);
    expect(map.get("a", 1_999, 1_000)).toBe(1);
    expect(map.get("a", 2_000, 1_000)).toBeUndefined();
    // Expired entries are dropped, not revived by a later, smaller clock.
    expect(map.get("a", 1_500, 1_000)).toBeUndefined();
  });

  it("misses for a clock before the instant the entry was stored", () => {
    const map = new ExpiringMap<string, number>(10);
    map.set("a", 1, 5_000);
    expect(map.get("a", 4_999, 1_000)).toBeUndefined();
    expect(map.get("a", 5_000, 1_000)).toBe(1);
  });

  it("drops the oldest entry beyond its bound, counting a re-set as new", () => {
    const map = new ExpiringMap<string, number>(2);
    map.set("a", 1, 0);
    map.set("b", 2, 0);
    map.set("a", 3, 0);
    map.set("c", 4, 0);
    expect(map.get("b", 0, 10)).toBeUndefined();
    expect(map.get("a", 0, 10)).toBe(3);
    expect(map.get("c", 0, 10)).toBe(4);
  });

  it("deletes by key and by value", () => {
    const map = new ExpiringMap<string, { id: number }>(10);
    map.set("a", { id: 1 }, 0);
    map.set("b", { id: 1 }, 0);
    map.set("c", { id: 2 }, 0);
    map.deleteWhere((v) => v.id === 1);
    map.delete("c");
    expect([map.get("a", 0, 10), map.get("b", 0, 10), map.get("c", 0, 10)]).toEqual([undefined, undefined, undefined]);
  });
});

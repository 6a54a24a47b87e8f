import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildRing, indexBindingFor, indexBindings, ownerOf, shardCount, shardKeyOf } from "../../src/db/shards.js";

const domains = Array.from({ length: 20_000 }, (_, i) => `company-${i}.example${i % 7 === 0 ? ".co.uk" : ".com"}`);

describe("routing a domain to its index database", () => {
  it("keys an address, a host and its domain on the registrable domain, in any case", () => {
    for (const key of ["Jane.Doe@EU.Acme.co.uk", "eu.acme.co.uk", "acme.co.uk.", "ACME.CO.UK"])
      expect(shardKeyOf(key), key).toBe("acme.co.uk");
    expect(shardKeyOf("someone@localhost")).toBe("localhost");
  });

  it("keeps the index in the main database with one shard and names INDEX_0 … INDEX_{N-1} beyond", () => {
    expect(indexBindings(1)).toEqual(["DB"]);
    expect(indexBindings(4)).toEqual(["INDEX_0", "INDEX_1", "INDEX_2", "INDEX_3"]);
    expect(() => indexBindings(0)).toThrow(/whole number/);
    expect(shardCount({})).toBe(1);
    expect(shardCount({ INDEX_SHARDS: " 4 " })).toBe(4);
  });

  it("sends an address to the database of its domain, the same in every call", async () => {
    const four = { ...env, INDEX_SHARDS: "4" };
    for (const d of domains.slice(0, 200)) {
      const home = await indexBindingFor(four, d);
      expect(await indexBindingFor(four, `someone@${d}`)).toBe(home);
      expect(await indexBindingFor(four, `www.${d}`)).toBe(home);
    }
    expect(await indexBindingFor({ ...env, INDEX_SHARDS: "1" }, "acme.test")).toBe("DB");
  });

  it("spreads domains evenly: each of 4 databases holds 25 % ± 5 points", () => {
    const ring = buildRing(indexBindings(4));
    const counts = new Map<string, number>();
    for (const d of domains) counts.set(ownerOf(ring, d), (counts.get(ownerOf(ring, d)) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(indexBindings(4));
    for (const [name, n] of counts) expect(Math.abs(n / domains.length - 0.25), name).toBeLessThan(0.05);
  });

  it("moves about 1/(N+1) of the domains when a database is added, and only to the new one", () => {
    for (const n of [4, 8]) {
      const before = buildRing(indexBindings(n));
      const after = buildRing(indexBindings(n + 1));
      const added = `INDEX_${n}`;
      let moved = 0;
      for (const d of domains) {
        const from = ownerOf(before, d);
        const to = ownerOf(after, d);
        if (from === to) continue;
        moved++;
        expect(to, d).toBe(added);
      }
      // A modulo would move n/(n+1) of them (80 % from 4 to 5); the ring moves close to 1/(n+1).
      expect(moved / domains.length, `${n} → ${n + 1}`).toBeGreaterThan(0.5 / (n + 1));
      expect(moved / domains.length, `${n} → ${n + 1}`).toBeLessThan(1.5 / (n + 1));
    }
  });
});

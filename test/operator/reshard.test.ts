import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { indexRowCounts } from "../../src/db/shard-moves.js";
import { indexBindings, indexFor, layoutOf, setLayout } from "../../src/db/shards.js";
import { call, createAccount, json } from "../support/accounts.js";

const operator = { "X-Operator-Secret": "test-operator-secret", "content-type": "application/json" };

/** A company with two people and a phone number per domain: 5 index rows of 4 tables each. */
function rows(prefix: string, count: number, name = (i: number) => `${prefix} Company ${i}`) {
  return Array.from({ length: count }, (_, i) => {
    const domain = `${prefix}-${i}.test`;
    return [
      { kind: "company", domain, name: name(i), industry: "Reshard Testing", keywords: ["reshard"] },
      { kind: "person", domain, email: `ada.${i}@${domain}`, first_name: "Ada", last_name: `L${i}` },
      { kind: "person", domain, email: `bob.${i}@${domain}`, first_name: "Bob", last_name: `M${i}` },
      { kind: "phone", domain, phone: "+1 212 555 0100", country: "US" },
    ];
  }).flat();
}

async function importRows(list: object[]) {
  const res = await call("/operator/import", { method: "POST", headers: operator, body: JSON.stringify(list) });
  expect(res.status).toBe(200);
  expect((await json(res)).rejected).toBe(0);
}

async function totals(names: readonly string[]) {
  const sum: Record<string, number> = {};
  for (const name of names) {
    const d1 = name === "DB" ? env.DB : (env as unknown as Record<string, D1Database>)[name]!;
    for (const [table, n] of Object.entries(await indexRowCounts(d1))) sum[table] = (sum[table] ?? 0) + n;
  }
  return sum;
}

/** What the Worker answers for every seeded domain, read where the layout in force says. */
async function readBack(domains: readonly string[]) {
  const out: Record<string, string[]> = {};
  for (const d of domains) {
    const index = await indexFor(env, d);
    const { results } = await index.$client
      .prepare(
        "SELECT e.email || ' ' || coalesce(c.name, '') AS row FROM emails e LEFT JOIN companies c ON c.domain = e.domain WHERE e.domain = ? ORDER BY e.email",
      )
      .bind(d)
      .all<{ row: string }>();
    out[d] = results.map((r) => r.row);
  }
  return out;
}

async function waitFor<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("resharding the index (POST /operator/index/reshard, a Workflow)", () => {
  it("moves the index from the main database to 4 through a crash: no row lost or doubled, reads right throughout, writes made mid-move kept", async () => {
    // The deployment before any split: the index in the main database.
    await setLayout(env, { current: ["DB"], target: null, phase: "steady", moveId: null });
    await importRows(rows("before", 30));
    const seeded = Array.from({ length: 30 }, (_, i) => `before-${i}.test`);
    const before = await totals(["DB"]);
    expect(before).toMatchObject({ companies: 30, emails: 60, people: 60, phones: 30 });
    const expected = await readBack(seeded);
    const a = await createAccount({ plan: "scale" });
    const search = async () => {
      const res = await call("/v1/reveal/search", {
        method: "POST",
        headers: { ...a.headers, "content-type": "application/json" },
        body: JSON.stringify({ filters: { industry: { include: ["Reshard Testing"] } }, limit: 100 }),
      });
      expect(res.status).toBe(200);
      const body = await json(res);
      return { total: body.data.total, names: body.data.companies.map((c: { name: string }) => c.name).sort() };
    };
    const searched = await search();
    expect(searched).toMatchObject({ total: 30 });
    expect(searched.names).toHaveLength(30);

    const started = await call("/operator/index/reshard", {
      method: "POST",
      headers: operator,
      body: JSON.stringify({ shards: 4, page_size: 7, settle_ms: 300, crash: { page: 1, after_domains: 3 } }),
    });
    expect(started.status).toBe(202);
    const { id } = (await json(started)).data;
    const progress = async () => (await json(await call(`/operator/index/reshard/${id}`, { headers: operator }))).data;

    // Writes while the move runs: new domains, and a change to a domain being moved.
    await waitFor(
      "the dual phase",
      () => layoutOf(env, { fresh: true }),
      (l) => l.phase !== "steady",
    );
    expect((await layoutOf(env, { fresh: true })).target).toEqual(indexBindings(4));
    await importRows([...rows("during", 10), { kind: "company", domain: "before-0.test", name: "Renamed Mid-move" }]);
    expected["before-0.test"] = (expected["before-0.test"] ?? []).map((r) =>
      r.replace("before Company 0", "Renamed Mid-move"),
    );
    // Reads are right whatever the phase.
    expect(await readBack(seeded)).toEqual(expected);

    const end = await waitFor(
      "the workflow",
      progress,
      (p) => p.workflow?.status === "complete" || p.workflow?.status === "errored",
    );
    expect(end.workflow.status).toBe("complete");
    // The 10 domains written mid-move went to both rings, so they were copied (kept) and cleaned too;
    // the injected crash was retried once.
    expect(end.move).toMatchObject({ status: "done", domains_copied: 40, domains_cleaned: 40, steps_retried: 1 });

    // Rows before + rows written mid-move = rows after, all in the 4 index databases, none left behind.
    const after = await totals(indexBindings(4));
    const writtenMidMove: Record<string, number> = { companies: 10, emails: 20, people: 20, phones: 10 };
    for (const table of Object.keys(before))
      expect(after[table], table).toBe((before[table] ?? 0) + (writtenMidMove[table] ?? 0));
    expect(Object.values(await totals(["DB"])).every((n) => n === 0)).toBe(true);
    for (const name of indexBindings(4))
      expect((await indexRowCounts((env as unknown as Record<string, D1Database>)[name]!)).emails).toBeGreaterThan(0);
    expect(await layoutOf(env, { fresh: true })).toMatchObject({
      current: indexBindings(4),
      target: null,
      phase: "steady",
    });

    expect(await readBack(seeded)).toEqual(expected);
    const merged = await search();
    expect(merged.total).toBe(40);
    expect(merged.names).toHaveLength(40);
    expect(merged.names).toContain("Renamed Mid-move");
  });

  it("refuses a bad shard count and is closed without the operator secret", async () => {
    const bad = await call("/operator/index/reshard", {
      method: "POST",
      headers: operator,
      body: JSON.stringify({ shards: 0 }),
    });
    expect(bad.status).toBe(400);
    const closed = await call("/operator/index/reshard", { method: "POST", body: JSON.stringify({ shards: 4 }) });
    expect(closed.status).toBe(401);
    expect((await call("/operator/index/reshard/nope", { headers: operator })).status).toBe(404);
  });
});

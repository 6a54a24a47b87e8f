import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

/** The index tables: in the main database (migrations/) and in every index database (migrations-index/). */
const INDEX_TABLES = ["domains", "companies", "people", "emails", "email_sources", "phones"];

/** Columns and indexes of the index tables as SQLite sees them, whatever migrations made them. */
async function shapeOf(d1: D1Database) {
  const shape: Record<string, unknown> = {};
  for (const table of INDEX_TABLES) {
    const columns = await d1
      .prepare(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`)
      .bind(table)
      .all();
    const indexes = await d1
      .prepare(
        `SELECT il.name, il."unique", group_concat(coalesce(ii.name, '<expr>'), ',') AS columns
         FROM pragma_index_list(?1) il JOIN pragma_index_xinfo(il.name) ii ON ii.key = 1
         GROUP BY il.name ORDER BY il.name`,
      )
      .bind(table)
      .all();
    shape[table] = {
      columns: [...columns.results].sort((a, b) => String(a.name).localeCompare(String(b.name))),
      indexes: indexes.results,
    };
  }
  return shape;
}

describe("the index databases' schema", () => {
  it("is the main database's index tables, column for column and index for index", async () => {
    const main = await shapeOf(env.DB);
    expect(Object.keys(main)).toEqual(INDEX_TABLES);
    for (const index of [env.INDEX_0, env.INDEX_1, env.INDEX_2, env.INDEX_3])
      expect(await shapeOf(index)).toEqual(main);
  });

  it("holds no removal claims: they stay in the main database and apply to every shard", async () => {
    const { results } = await env.INDEX_0.prepare("SELECT name FROM sqlite_master WHERE name = 'claims'").all();
    expect(results).toEqual([]);
  });
});

import { type Column, type SQL, sql } from "drizzle-orm";

/**
 * `column IN (the values)` with the values bound as ONE JSON array parameter and unpacked by
 * json_each: D1 binds at most 100 parameters per statement, so a plain IN list of thousands of
 * values would take one round trip per 90 of them. The plan stays a primary-key or index lookup per
 * value (test/engine/index-query-plans.test.ts).
 */
export function inJsonArray(column: Column | SQL, values: readonly (string | number)[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/**
 * A bound string is at most 2 MB in D1: values go in arrays of at most this many, so even 5,000
 * addresses of the longest length an address can have (254 bytes) stay under it.
 */
export const JSON_ARRAY_CHUNK = 5_000;

export function jsonArrayChunks<T>(values: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += JSON_ARRAY_CHUNK) out.push(values.slice(i, i + JSON_ARRAY_CHUNK));
  return out;
}

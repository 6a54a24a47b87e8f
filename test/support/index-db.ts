import { env } from "cloudflare:workers";
import type { Db } from "../../src/db/client.js";
import { indexFor } from "../../src/db/shards.js";

/**
 * The index database a fixture row of `key` (a domain, host or address) belongs in, as the Worker
 * routes it (src/db/shards.ts): tests write and read index rows where the Worker looks for them,
 * with 4 shards as with 1.
 */
export function indexOf(key: string): Promise<Db> {
  return indexFor(env, key);
}

/** The same database as a D1 binding, for raw SQL. */
export async function indexD1Of(key: string): Promise<D1Database> {
  return (await indexFor(env, key)).$client;
}

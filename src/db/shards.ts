import { getDomain } from "tldts";
import type { Env } from "../env.js";
import { boundedMap } from "../platform/isolate-state.js";
import { type Db, db } from "./client.js";

/**
 * Where the contact index lives: which D1 database holds a domain's rows. Every query on the index
 * tables (domains, companies, people, emails, email_sources, phones) goes through this module:
 *
 * - `indexFor(env, key)`: the database that holds `key`'s rows, for a domain, a host or an address
 *   (its registrable domain decides, so `a@eu.acme.com`, `eu.acme.com` and `acme.com` meet);
 * - `everyIndex(env)`: every index database, for the few reads that cannot name a domain (company
 *   search, similar domains, a profile URL), which query them in parallel and merge.
 *
 * Everything else (accounts, keys, logs, billing memory, bulk jobs, leads, OAuth, removal claims)
 * stays in the main database, `env.DB`.
 *
 * **Layout.** `INDEX_SHARDS` = "1" keeps the index in the main database (`DB`), as before shards
 * existed; "N" > 1 spreads it over the bindings `INDEX_0` … `INDEX_{N-1}` (their schema is
 * `migrations-index/`).
 *
 * **Routing: a consistent-hash ring, not a modulo.** Each index database owns `VNODES` points on a
 * 32-bit ring (hashes of its binding name and a point number); a domain belongs to the first point
 * at or after its own hash. Adding a database moves only the domains that now fall just before its
 * points, about 1/(N+1) of them, and moves them only *to* the new one; with `hash % N`, going from
 * N to N+1 moves N/(N+1) of all domains between old databases too (4 → 5: 80 % instead of 20 %),
 * which is as much copying as starting over. The ring needs no directory to read (no extra query
 * per call) and gives every isolate the same answer from the layout alone.
 */

/** Points per database on the ring: with 64, each of 4 databases owns 25 % ± ~3 % of domains. */
export const VNODES = 64;

export type IndexEnv = Pick<Env, "DB"> & { INDEX_SHARDS?: string };

/** The binding names of the index databases a shard count means (1: the main database). */
export function indexBindings(shards: number): string[] {
  if (!Number.isInteger(shards) || shards < 1)
    throw new Error(`INDEX_SHARDS must be a whole number ≥ 1, not ${shards}`);
  return shards === 1 ? ["DB"] : Array.from({ length: shards }, (_, i) => `INDEX_${i}`);
}

/** The shard count `INDEX_SHARDS` sets (unset: 1, the main database). */
export function shardCount(env: { INDEX_SHARDS?: string }): number {
  const raw = env.INDEX_SHARDS?.trim();
  return raw ? Number(raw) : 1;
}

/** What decides a row's database: the registrable domain of a domain, host or address, lower case. */
export function shardKeyOf(key: string): string {
  const host = key
    .slice(key.lastIndexOf("@") + 1)
    .toLowerCase()
    .replace(/\.$/, "");
  return getDomain(host, { allowPrivateDomains: false }) ?? host;
}

/** 32-bit FNV-1a with a murmur3 finaliser: FNV alone clusters similar strings on the ring. */
export function ringHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export interface Ring {
  readonly bindings: readonly string[];
  readonly points: Uint32Array;
  /** owners[i] is the index in `bindings` of the database owning points[i]. */
  readonly owners: Uint16Array;
}

export function buildRing(bindings: readonly string[]): Ring {
  const all = bindings.flatMap((name, owner) =>
    Array.from({ length: VNODES }, (_, v) => ({ at: ringHash(`${name}#${v}`), owner })),
  );
  all.sort((a, b) => a.at - b.at || a.owner - b.owner);
  return {
    bindings,
    points: Uint32Array.from(all, (p) => p.at),
    owners: Uint16Array.from(all, (p) => p.owner),
  };
}

/** The binding name that owns `shardKey` on the ring. */
export function ownerOf(ring: Ring, shardKey: string): string {
  const h = ringHash(shardKey);
  let lo = 0;
  let hi = ring.points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ring.points[mid] ?? 0) < h) lo = mid + 1;
    else hi = mid;
  }
  // Past the last point: the ring wraps to the first.
  const owner = ring.bindings[ring.owners[lo === ring.points.length ? 0 : lo] ?? 0];
  if (owner === undefined) throw new Error("an index layout names at least one database");
  return owner;
}

// The ring is a pure function of the layout; building one hashes N × VNODES names and sorts them.
const rings = boundedMap<string, Ring>("indexRings");

function ringFor(bindings: readonly string[]): Ring {
  const name = bindings.join(",");
  let ring = rings.get(name);
  if (!ring) {
    ring = buildRing(bindings);
    rings.set(name, ring);
  }
  return ring;
}

function bindingOf(env: IndexEnv, name: string): D1Database {
  const d1 = (env as unknown as Record<string, D1Database | undefined>)[name];
  if (!d1) throw new Error(`INDEX_SHARDS=${env.INDEX_SHARDS} needs a D1 binding named ${name}; wrangler.toml has none`);
  return d1;
}

/** The binding name (DB, INDEX_0, …) that holds `key`'s rows. */
export async function indexBindingFor(env: IndexEnv, key: string): Promise<string> {
  return ownerOf(ringFor(indexBindings(shardCount(env))), shardKeyOf(key));
}

/** The index database holding the rows of `key` (a domain, host or address). */
export async function indexFor(env: IndexEnv, key: string): Promise<Db> {
  return db(bindingOf(env, await indexBindingFor(env, key)));
}

/** Every index database, for reads that name no domain: query them in parallel and merge. */
export async function everyIndex(env: IndexEnv): Promise<Db[]> {
  return indexBindings(shardCount(env)).map((name) => db(bindingOf(env, name)));
}

/** Runs `read` on every index database in parallel; the answers in binding order. */
export async function onEveryIndex<T>(env: IndexEnv, read: (index: Db) => Promise<T>): Promise<T[]> {
  return Promise.all((await everyIndex(env)).map(read));
}

/**
 * `items` grouped by the index database holding each, in their order within a group; an item's
 * key (a domain, host or address) is the item itself unless `keyOf` says otherwise.
 */
export async function groupByIndex<T = string>(
  env: IndexEnv,
  items: readonly T[],
  keyOf: (item: T) => string = (item) => item as unknown as string,
): Promise<[Db, T[]][]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const name = await indexBindingFor(env, keyOf(item));
    const group = groups.get(name);
    if (group) group.push(item);
    else groups.set(name, [item]);
  }
  return [...groups].map(([name, group]) => [db(bindingOf(env, name)), group]);
}

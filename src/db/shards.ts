import { getDomain } from "tldts";
import type { Env } from "../env.js";
import { boundedMap, perBinding } from "../platform/isolate-state.js";
import { type Db, db } from "./client.js";
import { flowBookmarks, sessionOf } from "./index-sessions.js";

/**
 * Where the contact index lives: which D1 database holds a domain's rows. Every query on the index
 * tables (domains, companies, people, emails, email_sources, phones) goes through this module:
 *
 * - `indexFor(env, key)`: the database that holds `key`'s rows, for a domain, a host or an address
 *   (its registrable domain decides, so `a@eu.acme.com`, `eu.acme.com` and `acme.com` meet);
 * - `everyIndex(env)` / `onEveryIndex(env, read)`: every index database, for the few reads that
 *   cannot name a domain (company search, similar domains, a profile URL): in parallel, then merged;
 * - `indexWritersFor(env, key)`: the databases a write of `key`'s rows goes to: one, or two while a
 *   reshard moves the domain (src/operator/reshard-run.ts).
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

export type IndexEnv = Pick<Env, "DB"> & { INDEX_SHARDS?: string; INDEX_LAYOUT_TTL_MS?: string };

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

/**
 * The layout: which ring reads follow and which rings writes reach. Outside a reshard, one ring:
 * the `index_layout` row's, or `INDEX_SHARDS`'s before any reshard wrote one. During a move from
 * ring A to ring B (src/operator/reshard-run.ts):
 * - `dual`: reads from A (it holds everything), writes to A and B (B misses nothing written
 *   while the copy runs);
 * - `switched`: reads from B (the copy is done), writes still to both (an isolate that has not
 *   seen the switch yet reads A, which still gets every write);
 * then `steady` on B, and the moved rows are deleted from A.
 * Each phase change is followed by a wait longer than `layoutTtl`, so no isolate acts on a layout
 * two phases old.
 */
export type Phase = "steady" | "dual" | "switched";
export interface IndexLayout {
  current: string[];
  target: string[] | null;
  phase: Phase;
  moveId: string | null;
}

/** How long an isolate reuses the layout it read (ms): INDEX_LAYOUT_TTL_MS, default 5 s. */
export function layoutTtl(env: { INDEX_LAYOUT_TTL_MS?: string }): number {
  const ms = Number(env.INDEX_LAYOUT_TTL_MS);
  return env.INDEX_LAYOUT_TTL_MS !== undefined && env.INDEX_LAYOUT_TTL_MS !== "" && Number.isFinite(ms) ? ms : 5_000;
}

// Per main-database binding and INDEX_SHARDS value: the layout read and when.
const layouts = perBinding<D1Database, Map<string, { layout: IndexLayout; at: number }>>("indexLayouts");

/** The layout in force, from this isolate's copy when younger than `layoutTtl` (never with `fresh`). */
export async function layoutOf(env: IndexEnv, { fresh = false } = {}): Promise<IndexLayout> {
  const now = Date.now();
  const setting = env.INDEX_SHARDS ?? "";
  let byShards = layouts.get(env.DB);
  const cached = byShards?.get(setting);
  if (cached && !fresh && now - cached.at < layoutTtl(env)) return cached.layout;
  const row = await env.DB.prepare("SELECT current, target, phase, move_id FROM index_layout WHERE id = 1").first<{
    current: string;
    target: string | null;
    phase: Phase;
    move_id: string | null;
  }>();
  const layout: IndexLayout = row
    ? {
        current: row.current.split(","),
        target: row.target ? row.target.split(",") : null,
        phase: row.phase,
        moveId: row.move_id,
      }
    : { current: indexBindings(shardCount(env)), target: null, phase: "steady", moveId: null };
  if (!byShards) {
    byShards = new Map();
    layouts.set(env.DB, byShards);
  }
  byShards.set(setting, { layout, at: now });
  return layout;
}

/** Writes the layout (the reshard workflow's phase changes); this isolate sees it at once. */
export async function setLayout(env: IndexEnv, layout: IndexLayout, now = Date.now()): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO index_layout (id, current, target, phase, move_id, updated_at) VALUES (1, ?1, ?2, ?3, ?4, ?5)
     ON CONFLICT(id) DO UPDATE SET current = excluded.current, target = excluded.target, phase = excluded.phase,
       move_id = excluded.move_id, updated_at = excluded.updated_at`,
  )
    .bind(layout.current.join(","), layout.target?.join(",") ?? null, layout.phase, layout.moveId, now)
    .run();
  layouts.get(env.DB)?.clear();
}

const readRing = (layout: IndexLayout) =>
  layout.phase === "switched" && layout.target ? layout.target : layout.current;
const writeRings = (layout: IndexLayout) =>
  layout.phase !== "steady" && layout.target ? [layout.current, layout.target] : [layout.current];

/** The drizzle handle of an index database, as this flow's session (src/db/index-sessions.ts). */
function handle(env: IndexEnv, name: string): Db {
  return db(sessionOf(bindingOf(env, name), name));
}

function bindingOf(env: IndexEnv, name: string): D1Database {
  const d1 = (env as unknown as Record<string, D1Database | undefined>)[name];
  if (!d1) throw new Error(`INDEX_SHARDS=${env.INDEX_SHARDS} needs a D1 binding named ${name}; wrangler.toml has none`);
  return d1;
}

/** The binding name (DB, INDEX_0, …) that answers reads of `key`'s rows. */
export async function indexBindingFor(env: IndexEnv, key: string): Promise<string> {
  return ownerOf(ringFor(readRing(await layoutOf(env))), shardKeyOf(key));
}

/** The binding names a write of `key`'s rows goes to: one, or two while a reshard moves it. */
export async function writeBindingsFor(env: IndexEnv, key: string): Promise<string[]> {
  const shardKey = shardKeyOf(key);
  return [...new Set(writeRings(await layoutOf(env)).map((ring) => ownerOf(ringFor(ring), shardKey)))];
}

/** The index database holding the rows of `key` (a domain, host or address), for reading. */
export async function indexFor(env: IndexEnv, key: string): Promise<Db> {
  return handle(env, await indexBindingFor(env, key));
}

/**
 * The index databases a write of `key`'s rows must reach, each written the same way (the same
 * statements, its own reads): one database, or two while a reshard moves the domain.
 */
export async function indexWritersFor(env: IndexEnv, key: string): Promise<Db[]> {
  return (await writeBindingsFor(env, key)).map((name) => handle(env, name));
}

/** Every index database reads go to, for reads that name no domain: query them in parallel and merge. */
export async function everyIndex(env: IndexEnv): Promise<Db[]> {
  return readRing(await layoutOf(env)).map((name) => handle(env, name));
}

/** Runs `read` on every index database in parallel; the answers in binding order. */
export async function onEveryIndex<T>(env: IndexEnv, read: (index: Db) => Promise<T>): Promise<T[]> {
  return Promise.all((await everyIndex(env)).map(read));
}

/**
 * `items` grouped by the index database holding each, in their order within a group; an item's
 * key (a domain, host or address) is the item itself unless `keyOf` says otherwise. With
 * `{ writes: true }`, by every database a write of the item goes to (an item can be in two groups
 * while a reshard runs).
 */
export async function groupByIndex<T = string>(
  env: IndexEnv,
  items: readonly T[],
  keyOf: (item: T) => string = (item) => item as unknown as string,
  { writes = false } = {},
): Promise<[Db, T[]][]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const names = writes ? await writeBindingsFor(env, keyOf(item)) : [await indexBindingFor(env, keyOf(item))];
    for (const name of names) {
      const group = groups.get(name);
      if (group) group.push(item);
      else groups.set(name, [item]);
    }
  }
  return [...groups].map(([name, group]) => [handle(env, name), group]);
}

/**
 * The bookmarks of this flow's sessions of the index databases, by binding name: a flow that
 * continues elsewhere (the deep crawl after a first pass) starts from them.
 */
export function indexBookmarks(env: IndexEnv): Record<string, string> {
  const names = new Map<D1Database, string>();
  for (const name of ["DB", ...Object.keys(env).filter((k) => /^INDEX_\d+$/.test(k))])
    names.set(bindingOf(env, name), name);
  return flowBookmarks((d1) => names.get(d1));
}

/** The D1 binding of an index database by name, its primary (the reshard workflow copies between them). */
export function indexD1(env: IndexEnv, name: string): D1Database {
  return bindingOf(env, name);
}

/**
 * A bounded in-isolate map whose entries expire: the shape every per-isolate cache here shares
 * (verified keys, claim lookups, known 30-day billing windows). Each entry remembers when it was
 * stored; a read `ttlMs` or more after that misses and drops it, and a read from before that instant
 * (a clock that moved backwards, or a test's `now`) misses too, so an entry's life is never
 * stretched. Beyond `maxEntries` the oldest entry is dropped (Maps iterate in insertion order, and
 * `set` re-inserts), which bounds memory; a dropped entry is simply read from its source again.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { value: V; storedAt: number }>();

  constructor(private readonly maxEntries: number) {}

  get(key: K, now: number, ttlMs: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.storedAt >= ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return now < entry.storedAt ? undefined : entry.value;
  }

  set(key: K, value: V, storedAt: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, storedAt });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Drops every entry whose value matches (e.g. all credentials of one revoked key). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }
}

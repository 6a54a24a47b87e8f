/**
 * Work shared by the calls of one bulk batch: rows of the same domain ask the index, the crawl
 * check and the catch-all record the same questions, so each is asked once per batch (`once`),
 * and per-address questions (claims, sources) asked by rows running side by side go to D1 as one
 * `IN (...)` query (`together`). A failed load is shared too (every row of an unreachable domain
 * gets the same error without asking again). A memo lives for one queue batch only, so it is
 * bounded by the rows of that batch and never serves data older than the batch.
 */
export interface Memo {
  once<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** One value of a keyed lookup; keys asked for in the same turn are loaded with one `loadMany`. */
  together<V>(kind: string, key: string, loadMany: (keys: string[]) => Promise<Map<string, V>>): Promise<V | undefined>;
}

/** No sharing: every call loads (the /v1 and agent surfaces answer one call at a time). */
export const noMemo: Memo = {
  once: (_key, load) => load(),
  together: async (_kind, key, loadMany) => (await loadMany([key])).get(key),
};

interface Pending<V> {
  keys: string[];
  loadMany: (keys: string[]) => Promise<Map<string, V>>;
  result: Promise<Map<string, V>>;
}

export function batchMemo(): Memo {
  const entries = new Map<string, Promise<unknown>>();
  const pending = new Map<string, Pending<unknown>>();
  return {
    once<T>(key: string, load: () => Promise<T>): Promise<T> {
      let entry = entries.get(key) as Promise<T> | undefined;
      if (!entry) {
        entry = load();
        entries.set(key, entry);
      }
      return entry;
    },
    together<V>(
      kind: string,
      key: string,
      loadMany: (keys: string[]) => Promise<Map<string, V>>,
    ): Promise<V | undefined> {
      const cacheKey = `${kind}\u0000${key}`;
      const known = entries.get(cacheKey) as Promise<V | undefined> | undefined;
      if (known) return known;
      let group = pending.get(kind) as Pending<V> | undefined;
      if (!group) {
        const keys: string[] = [];
        // Rows that reach this lookup in the same turn (they waited on the same shared answer) join the group.
        const result = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
          pending.delete(kind);
          return loadMany(keys);
        });
        const created: Pending<V> = { keys, loadMany, result };
        group = created;
        pending.set(kind, created as Pending<unknown>);
      }
      group.keys.push(key);
      const value = group.result.then((values) => values.get(key));
      entries.set(cacheKey, value);
      return value;
    },
  };
}

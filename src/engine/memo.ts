/**
 * Work shared by the calls of one bulk batch: rows of the same domain ask the index, the crawl
 * check and the catch-all record the same questions, so each is asked once per batch. Keys name
 * the question (`facts:acme.com`); a failed load is shared too (every row of an unreachable domain
 * gets the same error without asking again). A memo lives for one queue batch only, so it is
 * bounded by the rows of that batch and never serves data older than the batch.
 */
export type Memo = <T>(key: string, load: () => Promise<T>) => Promise<T>;

/** No sharing: every call loads (the /v1 and agent surfaces answer one call at a time). */
export const noMemo: Memo = (_key, load) => load();

export function batchMemo(): Memo {
  const entries = new Map<string, Promise<unknown>>();
  return <T>(key: string, load: () => Promise<T>): Promise<T> => {
    let entry = entries.get(key) as Promise<T> | undefined;
    if (!entry) {
      entry = load();
      entries.set(key, entry);
    }
    return entry;
  };
}

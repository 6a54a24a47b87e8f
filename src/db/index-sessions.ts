import { AsyncLocalStorage } from "node:async_hooks";
import { perBinding } from "../platform/isolate-state.js";

/**
 * Reads of the contact index go to D1's read replicas through the Sessions API, with bookmarks so
 * that a flow sees its own writes:
 * - one capability call (and one deep crawl) is one flow: per index database, one session, so
 *   every read after the call's first-pass crawl writes sees them (the first answer);
 * - a flow's sessions start from the newest bookmark this isolate holds for that database, so a
 *   later call in the same isolate (the same caller's next call, usually) never reads an older
 *   state than one it was shown;
 * - the deep crawl's queue message carries the first pass's bookmarks, so the deep pass starts
 *   from a state that holds what the first pass wrote.
 * Outside a flow (operator routes, the reshard workflow, scripts), statements go to the binding
 * itself: the primary.
 */
type Sessions = {
  started: Map<D1Database, D1Database & { getBookmark(): string | null }>;
  from: Record<string, string>;
};
const flows = new AsyncLocalStorage<Sessions>();

// The newest bookmark this isolate has seen per index database (the binding object).
const newest = perBinding<D1Database, string>("indexBookmarks");

/** Runs `fn` as one flow: its index reads and writes share one session per database. */
export function inIndexFlow<T>(fn: () => Promise<T>, bookmarks: Record<string, string> = {}): Promise<T> {
  if (flows.getStore()) return fn();
  const sessions: Sessions = { started: new Map(), from: bookmarks };
  return flows.run(sessions, async () => {
    try {
      return await fn();
    } finally {
      for (const [d1, session] of sessions.started) {
        const bookmark = session.getBookmark();
        if (bookmark && bookmark > (newest.get(d1) ?? "")) newest.set(d1, bookmark);
      }
    }
  });
}

/** `d1` (the index database bound as `name`) as this flow's session, or itself outside a flow. */
export function sessionOf(d1: D1Database, name: string): D1Database {
  const flow = flows.getStore();
  // A binding without sessions (a recording wrapper in a test) is used as it is.
  if (!flow || typeof d1.withSession !== "function") return d1;
  let session = flow.started.get(d1);
  if (!session) {
    const from = [flow.from[name], newest.get(d1)]
      .filter((b): b is string => !!b)
      .sort()
      .at(-1);
    session = d1.withSession(from ?? "first-unconstrained") as unknown as D1Database & { getBookmark(): string | null };
    flow.started.set(d1, session);
  }
  return session;
}

/** The bookmarks of this flow's sessions so far, by binding name (for a flow that continues elsewhere). */
export function flowBookmarks(names: (d1: D1Database) => string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [d1, session] of flows.getStore()?.started ?? []) {
    const name = names(d1);
    const bookmark = session.getBookmark();
    if (name && bookmark) out[name] = bookmark;
  }
  return out;
}

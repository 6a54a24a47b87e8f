import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { inIndexFlow } from "../../src/db/index-sessions.js";
import { indexBookmarks, indexFor, indexWritersFor } from "../../src/db/shards.js";
import type { DeepCrawlMessage } from "../../src/engine/web/crawl/deep-crawl-message.js";
import { enqueueDeepCrawl } from "../../src/engine/web/crawl/deep-crawl-queue.js";
import type { Env } from "../../src/env.js";

/** The index databases, each recording the constraint or bookmark every session starts from. */
function recordingSessions(started: string[]): Env {
  const wrap = (d1: D1Database) =>
    new Proxy(d1, {
      get(target, prop) {
        if (prop === "withSession")
          return (from: string) => {
            started.push(from);
            return target.withSession(from);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return {
    ...env,
    DB: wrap(env.DB),
    INDEX_0: wrap(env.INDEX_0),
    INDEX_1: wrap(env.INDEX_1),
    INDEX_2: wrap(env.INDEX_2),
    INDEX_3: wrap(env.INDEX_3),
  } as Env;
}

describe("index reads through D1 sessions", () => {
  it("reads a flow's own writes, and starts the next flow in this isolate from the newest bookmark", async () => {
    const started: string[] = [];
    const e = recordingSessions(started);
    const bookmarks = await inIndexFlow(async () => {
      for (const index of await indexWritersFor(e, "session-flow.test"))
        await index.$client
          .prepare("INSERT INTO domains (domain, crawl_status) VALUES ('session-flow.test', 'done')")
          .run();
      const row = await (await indexFor(e, "session-flow.test")).$client
        .prepare("SELECT crawl_status FROM domains WHERE domain = 'session-flow.test'")
        .first();
      expect(row).toEqual({ crawl_status: "done" });
      return indexBookmarks(e);
    });
    // The first flow of this test's databases starts unconstrained (the nearest replica) unless the
    // isolate has seen a bookmark of the database before.
    expect(started).toHaveLength(1);
    const [name, bookmark] = Object.entries(bookmarks)[0] ?? [];
    expect(name).toMatch(/^(DB|INDEX_\d)$/);
    expect(bookmark).toBeTruthy();
    started.length = 0;
    await inIndexFlow(async () => (await indexFor(e, "session-flow.test")).$client.prepare("SELECT 1").first());
    expect(started).toHaveLength(1);
    expect(started[0]! >= bookmark!).toBe(true);
    expect(started[0]).not.toBe("first-unconstrained");
  });

  it("sends the first pass's bookmarks with the deep crawl, which starts its sessions from them", async () => {
    const sent: DeepCrawlMessage[] = [];
    const queue = { send: async (m: DeepCrawlMessage) => void sent.push(m) } as unknown as Queue<DeepCrawlMessage>;
    const e = { ...env, CRAWL_QUEUE: queue } as Env;
    await inIndexFlow(async () => {
      for (const index of await indexWritersFor(e, "session-deep.test"))
        await index.$client
          .prepare("INSERT INTO domains (domain, crawl_status) VALUES ('session-deep.test', 'crawling')")
          .run();
      await enqueueDeepCrawl(e, { domain: "session-deep.test", done: [], pending: [] }, () => {});
    });
    expect(sent).toHaveLength(1);
    expect(Object.values(sent[0]?.bookmarks ?? {}).every((b) => typeof b === "string" && b.length > 0)).toBe(true);
    expect(Object.keys(sent[0]?.bookmarks ?? {})).toHaveLength(1);
  });
});

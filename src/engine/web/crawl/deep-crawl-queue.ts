import { inIndexFlow } from "../../../db/index-sessions.js";
import { indexBookmarks } from "../../../db/shards.js";
import type { Env } from "../../../env.js";
import { logError } from "../../../request-context.js";
import { storeCrawl } from "../../index/store.js";
import { crawlDeepPass, describeCrawl } from "./crawler.js";
import type { DeepCrawlMessage } from "./deep-crawl-message.js";

export { DEEP_CRAWL_QUEUE, type DeepCrawlMessage } from "./deep-crawl-message.js";

/** Sends the deep pass to the queue; without a queue binding (a bare local run) it runs after the response instead. */
export async function enqueueDeepCrawl(
  env: Env,
  message: DeepCrawlMessage,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<void> {
  const trimmed: DeepCrawlMessage = {
    domain: message.domain,
    done: message.done.slice(0, 200),
    pending: message.pending.slice(0, 200),
    ...(message.pendingScores ? { pendingScores: message.pendingScores.slice(0, 200) } : {}),
    ...(message.retry?.length ? { retry: message.retry.slice(0, 50) } : {}),
    ...(message.challengedOnce?.length ? { challengedOnce: message.challengedOnce.slice(0, 50) } : {}),
    ...(message.lang ? { lang: message.lang.slice(0, 35) } : {}),
    ...(message.origin ? { origin: message.origin.slice(0, 300) } : {}),
    ...(message.allowance ? { allowance: message.allowance } : {}),
    bookmarks: message.bookmarks ?? indexBookmarks(env),
  };
  if (env.CRAWL_QUEUE) {
    try {
      await env.CRAWL_QUEUE.send(trimmed, { contentType: "json" });
      return;
    } catch (err) {
      // The caller already has its first-pass answer; a queue hiccup must not turn it into an error.
      logError("deep crawl not queued; running it after the response", message.domain, err);
    }
  }
  waitUntil(runDeepCrawl(env, trimmed, Date.now()).catch((err) => logError("deep crawl failed", message.domain, err)));
}

export async function runDeepCrawl(
  env: Env,
  message: DeepCrawlMessage,
  now: number,
): Promise<"stored" | "unreachable"> {
  const outcome = await crawlDeepPass(env, message.domain, message);
  if (!outcome.origin) return "unreachable";
  await storeCrawl(env, {
    domain: message.domain,
    pages: outcome.pages,
    status: "done",
    error: describeCrawl(outcome),
    now,
  });
  return "stored";
}

const isAllowance = (a: unknown): a is NonNullable<DeepCrawlMessage["allowance"]> => {
  const x = a as NonNullable<DeepCrawlMessage["allowance"]>;
  const count = (v: unknown) => v === null || (typeof v === "number" && Number.isFinite(v));
  return !!x && typeof x.remaining === "number" && count(x.resetAt) && count(x.limit);
};

function isDeepCrawlMessage(body: unknown): body is DeepCrawlMessage {
  const b = body as DeepCrawlMessage;
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === "string");
  return (
    !!b &&
    typeof b.domain === "string" &&
    strings(b.done) &&
    strings(b.pending) &&
    (b.retry === undefined || strings(b.retry)) &&
    (b.challengedOnce === undefined || strings(b.challengedOnce)) &&
    (b.lang === undefined || typeof b.lang === "string") &&
    (b.origin === undefined || typeof b.origin === "string") &&
    (b.allowance === undefined || isAllowance(b.allowance)) &&
    (b.bookmarks === undefined ||
      (typeof b.bookmarks === "object" &&
        b.bookmarks !== null &&
        Object.values(b.bookmarks).every((x) => typeof x === "string"))) &&
    (b.pendingScores === undefined ||
      (Array.isArray(b.pendingScores) && b.pendingScores.every((x) => typeof x === "number")))
  );
}

/**
 * Consumer: one deep pass per message. A site that cannot be reached is retried later (the queue's
 * max_retries then moves the message to the dead-letter queue); a malformed message is dropped.
 */
export async function consumeDeepCrawls(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    if (!isDeepCrawlMessage(message.body)) {
      logError("dropping malformed deep-crawl message", message.id);
      message.ack();
      continue;
    }
    try {
      const body = message.body;
      const result = await inIndexFlow(() => runDeepCrawl(env, body, Date.now()), body.bookmarks);
      if (result === "stored") message.ack();
      else message.retry({ delaySeconds: 60 * 2 ** Math.min(message.attempts, 4) });
    } catch (err) {
      logError("deep crawl failed", message.body.domain, err);
      message.retry({ delaySeconds: 60 });
    }
  }
}

import { createApp } from "./app.js";
import { BULK_ROWS_DEAD_LETTER_QUEUE, BULK_ROWS_QUEUE, consumeBulkRows, consumeDeadBulkRows } from "./bulk/consumer.js";
import type { Env } from "./env.js";
import { consumeDeepCrawls, DEEP_CRAWL_QUEUE } from "./engine/web/crawl/deep-crawl-queue.js";
import { consumeRequestLogs, REQUEST_LOG_QUEUE } from "./account/request-log-queue.js";
import { runRetention } from "./account/retention-job.js";
import { consumeDeadDeliveries, consumeDeliveries, DELIVERY_DEAD_LETTER_QUEUE, DELIVERY_QUEUE } from "./delivery/index.js";
import { logError } from "./request-context.js";

export { AccountLimiter } from "./limits/account-limiter.js";
export { PaymentLedger } from "./agent/ledger.js";
export { BulkJob } from "./bulk/job-object.js";

const app = createApp();

/** Queue consumers by queue name; add yours beside these. */
const QUEUE_CONSUMERS: Record<string, (batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) => Promise<void>> = {
  [DEEP_CRAWL_QUEUE]: consumeDeepCrawls,
  [REQUEST_LOG_QUEUE]: consumeRequestLogs,
  [DELIVERY_QUEUE]: consumeDeliveries,
  [BULK_ROWS_QUEUE]: consumeBulkRows,
  [BULK_ROWS_DEAD_LETTER_QUEUE]: consumeDeadBulkRows,
  [DELIVERY_DEAD_LETTER_QUEUE]: consumeDeadDeliveries,
};

export default {
  fetch: app.fetch,
  async queue(batch, env, ctx) {
    const consume = QUEUE_CONSUMERS[batch.queue];
    if (!consume) {
      logError(`no consumer for queue ${batch.queue}; messages left for retry`);
      batch.retryAll();
      return;
    }
    await consume(batch, env, ctx);
  },
  // Cron (wrangler.toml [triggers]): retention work that must stay off the request path.
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runRetention(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;

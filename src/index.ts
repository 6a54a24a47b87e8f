import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";
import { createApp } from "./app.js";
import { BULK_ROWS_DEAD_LETTER_QUEUE, BULK_ROWS_QUEUE } from "./bulk/messages.js";
import { DELIVERY_DEAD_LETTER_QUEUE, DELIVERY_QUEUE } from "./delivery/queue-names.js";
import { SMTP_RETRY_QUEUE } from "./engine/verify/smtp-retry-message.js";
import { DEEP_CRAWL_QUEUE } from "./engine/web/crawl/deep-crawl-message.js";
import type { Env } from "./env.js";
import type { ReshardParams } from "./operator/reshard-run.js";
import { REQUEST_LOG_QUEUE } from "./platform/request-log-row.js";
import { logError } from "./request-context.js";

export { PaymentLedger } from "./agent/ledger.js";
export { BulkJob } from "./bulk/job-object.js";
export { MailHostPacer } from "./engine/verify/mail-host-pacer.js";
export { AccountLimiter } from "./limits/account-limiter.js";
export { Throttle } from "./platform/throttle.js";

// What this file imports statically is evaluated when an isolate starts, for every request: keep
// it to the app's frame (src/app.ts builds the route families on first use), the Durable Object
// classes and names. `npm run check:startup` fails when a route family or a consumer comes back.
const app = createApp();

type QueueConsumer = (batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) => Promise<void>;

/** Queue consumers by queue name, each imported with the first batch of its queue; add yours beside these. */
const QUEUE_CONSUMERS: Record<string, () => Promise<QueueConsumer>> = {
  [DEEP_CRAWL_QUEUE]: async () => (await import("./engine/web/crawl/deep-crawl-queue.js")).consumeDeepCrawls,
  [REQUEST_LOG_QUEUE]: async () => (await import("./platform/request-log-queue.js")).consumeRequestLogs,
  [DELIVERY_QUEUE]: async () => (await import("./delivery/queue.js")).consumeDeliveries,
  [BULK_ROWS_QUEUE]: async () => (await import("./bulk/consumer.js")).consumeBulkRows,
  [BULK_ROWS_DEAD_LETTER_QUEUE]: async () => (await import("./bulk/consumer.js")).consumeDeadBulkRows,
  [DELIVERY_DEAD_LETTER_QUEUE]: async () => (await import("./delivery/queue.js")).consumeDeadDeliveries,
  [SMTP_RETRY_QUEUE]: async () => (await import("./engine/verify/smtp-retries.js")).consumeSmtpRetries,
};

export default {
  fetch: app.fetch,
  async queue(batch, env, ctx) {
    const consumer = QUEUE_CONSUMERS[batch.queue];
    if (!consumer) {
      logError(`no consumer for queue ${batch.queue}; messages left for retry`);
      batch.retryAll();
      return;
    }
    await (await consumer())(batch, env, ctx);
  },
  // Cron (wrangler.toml [triggers]): retention work that must stay off the request path.
  async scheduled(controller, env, ctx) {
    const [{ runRetention }, { pruneDashboard }] = await Promise.all([
      import("./account/retention-job.js"),
      import("./dashboard/retention.js"),
    ]);
    ctx.waitUntil(runRetention(env, controller.scheduledTime));
    ctx.waitUntil(pruneDashboard(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;

/**
 * The contact index's reshard (a Cloudflare Workflow, started by POST /operator/index/reshard): its
 * steps are loaded on its first run (src/operator/reshard-run.ts), not when an isolate starts.
 */
export class IndexReshard extends WorkflowEntrypoint<Env, ReshardParams> {
  override async run(event: WorkflowEvent<ReshardParams>, step: WorkflowStep) {
    return (await import("./operator/reshard-run.js")).runReshard(this.env, event, step);
  }
}

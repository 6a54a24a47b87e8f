// The one delivery system: save_lead webhooks, per-request callbacks and bulk end events all go
// through the `deliveries` queue, signed with Standard Webhooks and logged per attempt.

export { CALLBACK_PARAM, checkCallbackUrl, scheduleCallback, WebhookUrlParam } from "./callback.js";
export { attemptsOf, listAttempts } from "./log.js";
export {
  consumeDeadDeliveries,
  consumeDeliveries,
  DELIVERY_DEAD_LETTER_QUEUE,
  DELIVERY_QUEUE,
  DeliveryTooLargeError,
  enqueueDelivery,
} from "./queue.js";
export { rotateSigningSecret, type SigningSecretRecord, signingSecret, signingSecretRecord } from "./secrets.js";
export type { DeliveryKind, DeliveryRequest, SecretScope } from "./types.js";
export { assertDeliverableUrl } from "./url-check.js";

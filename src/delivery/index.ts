// The one delivery system: save_lead webhooks, per-request callbacks and bulk end events all go
// through the `deliveries` queue, signed with Standard Webhooks and logged per attempt.
export type { DeliveryKind, DeliveryRequest, SecretScope } from "./types.js";
export { assertDeliverableUrl } from "./url-check.js";
export { enqueueDelivery, consumeDeliveries, consumeDeadDeliveries, DELIVERY_QUEUE, DELIVERY_DEAD_LETTER_QUEUE, DeliveryTooLargeError } from "./queue.js";
export { signingSecret, signingSecretRecord, rotateSigningSecret, type SigningSecretRecord } from "./secrets.js";
export { listAttempts, attemptsOf } from "./log.js";

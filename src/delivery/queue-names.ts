// A leaf module, so src/index.ts can name the queues without evaluating their consumer at startup.

/** wrangler.toml: producer DELIVERY_QUEUE, consumer with max_retries = 3 and dead-letter queue `deliveries-dlq`. */
export const DELIVERY_QUEUE = "deliveries";
export const DELIVERY_DEAD_LETTER_QUEUE = "deliveries-dlq";

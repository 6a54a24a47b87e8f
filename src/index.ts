import { createApp } from "./app.js";
import type { Env } from "./env.js";

export { AccountLimiter } from "./limits/account-limiter.js";
export { PaymentLedger } from "./agent/ledger.js";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;

/** Upstream headers an agent gets to see (the shared agents account's real counters). */
export const FORWARDED_HEADERS = [
  "ratelimit",
  "ratelimit-policy",
  "x-second-rate-limit",
  "x-minute-rate-limit",
  "x-daily-rate-limit",
  "x-minute-request-left",
  "x-daily-request-left",
  "x-minute-reset-seconds",
  "x-daily-reset-seconds",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after",
] as const;

import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, gte, lt, sql } from "drizzle-orm";
import { capabilityByName } from "../../capabilities/index.js";
import { db } from "../../db/client.js";
import { usageDays } from "../../db/schema-contract.js";
import type { Env } from "../../env.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { flushOwed, limiterFor } from "../../limits/admission.js";
import { DAY_MS, parseInstant, startOfUtcDay } from "../../platform/time.js";
import { logError } from "../../request-context.js";
import { creditSummary } from "../credits.js";

/**
 * GET /v1/usage (docs/wire-contract.md §9.2): the union of the two documented shapes, one row per day of the
 * range (newest first, zeros on days without a charged call) and a `total` with the same keys.
 * Counts come from `usage_days`, the D1 copy of the billed calls the account's limiter holds
 * (src/limits/usage-copy.ts). The limiter sends it within a second of a charge; this route asks it
 * to send what is still waiting first, so the answer includes every call billed before it.
 */

/** Usage buckets of the newer shape. */
export const USAGE_CATEGORIES = [
  "search",
  "verifier",
  "phones",
  "sources",
  "similar",
  "technologies",
  "email_count",
  "export",
] as const;
const SOURCE_KEYS = ["source_website", "source_bulk", "source_extension", "source_api", "source_sheets"] as const;
/** Keys of the older shape: per product (domain, finder, ...) and per channel (api, bulk, ...). */
const LEGACY_KEYS = [
  "usage",
  "domain",
  "finder",
  "verifier",
  "technologies",
  "ip",
  "website",
  "bulk",
  "extension",
  "api",
  "mobile",
  "desktop",
  "sheets",
] as const;
const COUNT_KEYS = [...new Set([...USAGE_CATEGORIES, ...SOURCE_KEYS, ...LEGACY_KEYS])];
type Counts = Record<(typeof COUNT_KEYS)[number], number>;

/** Older-shape product keys by capability; anything else counts only in `usage`. */
const LEGACY_PRODUCT: Record<string, "domain" | "finder"> = {
  "domain-search": "domain",
  "email-finder": "finder",
  "author-finder": "finder",
  "professional-network": "finder",
};

export const MAX_USAGE_DAYS = 366;

const countsShape = Object.fromEntries(COUNT_KEYS.map((k) => [k, z.number().int()])) as Record<
  (typeof COUNT_KEYS)[number],
  z.ZodNumber
>;
const UsageDaySchema = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    ...countsShape,
    created_at: z.string().openapi({ description: "YYYY-MM-DD (UTC)" }),
  })
  .openapi("UsageDay");
const UsageSchema = z
  .object({
    data: z.array(UsageDaySchema),
    total: z.object(countsShape).openapi("UsageTotal"),
    balances: z.record(z.string(), z.object({ available: z.number(), used: z.number(), allowance: z.number() })),
  })
  .openapi("Usage");
export type Usage = z.infer<typeof UsageSchema>;

const Query = z.object({
  start: z
    .string()
    .optional()
    .openapi({ description: "First day (YYYY-MM-DD or RFC 3339); default 29 days before end" }),
  end: z.string().optional().openapi({ description: "Last day, inclusive; default today" }),
});

const route = createRoute({
  method: "get",
  path: "/usage",
  tags: ["Account"],
  security,
  summary: "Charged requests per day (every day of the range, zeros included) and in total; not rate-limited",
  request: { query: Query },
  responses: {
    200: { description: "Usage", content: { "application/json": { schema: UsageSchema } } },
    ...ErrorResponses,
  },
});

function zeros(): Counts {
  return Object.fromEntries(COUNT_KEYS.map((k) => [k, 0])) as Counts;
}

function day(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = parseInstant(text);
  if (ms === null)
    throw new ApiError(400, "params_invalid", `The parameter '${name}' is invalid: expected YYYY-MM-DD or RFC 3339.`);
  return startOfUtcDay(ms);
}

/** Adds `n` charged calls of one capability and source to a day's counts, under every key that covers them. */
function add(counts: Counts, capability: string, source: string, n: number) {
  const category = capabilityByName(capability)?.usageCategory;
  if (category) counts[category] += n;
  const legacy = LEGACY_PRODUCT[capability];
  if (legacy) counts[legacy] += n;
  if (source === "bulk") {
    counts.source_bulk += n;
    counts.bulk += n;
  } else if (source === "website") {
    counts.source_website += n;
    counts.website += n;
  } else {
    counts.source_api += n;
    counts.api += n;
  }
  counts.usage += n;
}

export function registerUsageRoute(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const to = day(q.end, "end", startOfUtcDay(Date.now()));
    const from = day(q.start, "start", to - 29 * DAY_MS);
    if (from > to) throw new ApiError(400, "params_invalid", "The parameter 'start' is invalid: it is after 'end'.");
    if ((to - from) / DAY_MS + 1 > MAX_USAGE_DAYS) {
      throw new ApiError(
        400,
        "params_invalid",
        `The parameter 'start' is invalid: the range is limited to ${MAX_USAGE_DAYS} days.`,
      );
    }
    const account = c.get("auth").account;
    await syncedUsage(c.env, account.id);
    const rows = await db(c.env.DB)
      .select({
        day: usageDays.day,
        capability: usageDays.capability,
        source: usageDays.source,
        n: sql<number>`sum(${usageDays.count})`,
      })
      .from(usageDays)
      .where(and(eq(usageDays.accountId, account.id), gte(usageDays.day, from), lt(usageDays.day, to + DAY_MS)))
      .groupBy(usageDays.day, usageDays.capability, usageDays.source);

    const days = new Map<number, Counts>();
    for (let d = to; d >= from; d -= DAY_MS) days.set(d, zeros());
    const total = zeros();
    for (const r of rows) {
      const counts = days.get(startOfUtcDay(r.day));
      if (!counts) continue;
      add(counts, r.capability, r.source, Number(r.n));
      add(total, r.capability, r.source, Number(r.n));
    }
    const data = [...days.entries()].map(([d, counts], i) => ({
      id: i + 1,
      user_id: account.id,
      ...counts,
      created_at: new Date(d).toISOString().slice(0, 10),
    }));
    // Spend comes from usage_days; what is left lives with the limiter.
    return c.json({ data, total, balances: await creditSummary(c.env, account) }, 200);
  });
}

/**
 * Brings the D1 copy up to date: this isolate's settlements first (they decide which windows are
 * kept), then whatever the limiter has not sent. A failure is logged and the copy read as it is.
 */
async function syncedUsage(env: Env, accountId: number): Promise<void> {
  try {
    await flushOwed(env, accountId);
    await limiterFor(env, accountId).syncUsage();
  } catch (err) {
    logError("usage: bringing the D1 copy up to date failed; answering from it as it is", err);
  }
}

import type { RateGroup } from "./groups.js";
import type { PlanName } from "./plans.js";

/** Requests per second / minute / day; 0 means no limit. */
export interface Limits {
  second: number;
  minute: number;
  daily: number;
}

const l = (second: number, minute: number, daily: number): Limits => ({ second, minute, daily });
const NO_LIMITS = l(0, 0, 0);

/** The spec's plan table, row for row (Free, Basic, Growth, Pro). */
const TABLE: Record<RateGroup, [Limits, Limits, Limits, Limits]> = {
  search: [l(1, 2, 5), l(3, 50, 500), l(5, 80, 1_000), l(8, 150, 4_000)],
  verifier: [l(1, 2, 10), l(2, 40, 500), l(3, 60, 1_000), l(5, 100, 4_000)],
  author: [l(1, 2, 5), l(3, 50, 500), l(5, 80, 1_000), l(5, 100, 4_000)],
  enrich: [l(1, 2, 5), l(3, 50, 500), l(5, 80, 1_000), l(5, 150, 4_000)],
  person_company: [l(1, 2, 5), l(3, 50, 500), l(5, 80, 1_000), l(5, 100, 4_000)],
  phone: [l(1, 2, 5), l(2, 20, 200), l(3, 40, 500), l(5, 80, 2_000)],
  location: [l(1, 5, 20), l(2, 20, 200), l(3, 40, 500), l(5, 80, 2_000)],
  count: [l(1, 5, 20), l(3, 50, 1_000), l(5, 80, 2_000), l(8, 150, 5_000)],
  format: [l(1, 5, 20), l(2, 50, 1_000), l(3, 80, 2_000), l(5, 150, 5_000)],
  sources: [l(1, 5, 20), l(2, 20, 100), l(3, 10, 100), l(5, 10, 100)],
  suggestions: [l(1, 5, 20), l(3, 50, 500), l(5, 80, 1_000), l(8, 150, 4_000)],
  me: [l(2, 30, 500), l(5, 100, 3_000), l(5, 150, 5_000), l(10, 200, 10_000)],
  // The spec names dashboard searches among the keys without a row of their own: they take the
  // Domain search row, counted apart from the account's API calls.
  searches: [l(1, 2, 5), l(3, 50, 500), l(5, 80, 1_000), l(8, 150, 4_000)],
};

const COLUMN: Partial<Record<PlanName, 0 | 1 | 2 | 3>> = { free: 0, basic: 1, growth: 2, pro: 3 };

/** Credit packs: a pack of this many credits or more removes the limits. */
export const UNLIMITED_PACK_CREDITS = 50_000;

/** Which plan's row a pack of a given size brings while it has credits (the higher of plan and pack applies). */
export function packTier(packCredits: number): PlanName | "unlimited" {
  if (packCredits >= UNLIMITED_PACK_CREDITS) return "unlimited";
  if (packCredits >= 10_000) return "pro";
  if (packCredits >= 2_500) return "growth";
  return "basic";
}

export function planLimits(plan: string, group: RateGroup): Limits {
  if (plan === "pro-plus" || plan === "scale") return NO_LIMITS;
  if (plan === "enterprise") return l(0, 0, 100_000);
  return TABLE[group][COLUMN[plan as PlanName] ?? 0];
}

/** The higher of two limits, where 0 (no limit) is the highest. */
const higher = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.max(a, b));

/** Limits in force for an account: its plan's row, raised by an active credit pack. */
export function effectiveLimits(plan: string, group: RateGroup, activePackCredits: number): Limits {
  const base = planLimits(plan, group);
  if (activePackCredits <= 0) return base;
  const tier = packTier(activePackCredits);
  if (tier === "unlimited") return NO_LIMITS;
  const pack = planLimits(tier, group);
  return l(higher(base.second, pack.second), higher(base.minute, pack.minute), higher(base.daily, pack.daily));
}

/**
 * Keys of GET /v1/rate-limits. They mostly equal the endpoint path; the spec's exceptions are
 * enrich, profile-finder, phone, enrich-email, enrich-company, enrich-combined, me, searches and
 * reveal (listed, not enforced).
 */
export const RATE_LIMIT_KEYS: Record<string, RateGroup | null> = {
  "domain-search": "search",
  "email-finder": "search",
  similar: "search",
  technology: "search",
  "email-verifier": "verifier",
  "author-finder": "author",
  enrich: "enrich",
  "enrich-email": "person_company",
  "enrich-company": "person_company",
  "enrich-combined": "person_company",
  "profile-finder": "phone",
  phone: "phone",
  "phone-validator": "phone",
  location: "location",
  "email-count": "count",
  "email-format": "format",
  "email-sources": "sources",
  "domain-suggestions": "suggestions",
  me: "me",
  searches: "searches",
  reveal: null,
};

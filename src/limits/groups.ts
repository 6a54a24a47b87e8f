/**
 * What the limiter counts: rate-limit groups (rows of the spec's plan table) and credit balances.
 * Declared here, below the capabilities that name them, so limits never import the registry.
 */

/** Rows of the spec's plan rate-limit table (one set of counters per account and row). */
export const RATE_GROUPS = [
  "search", // Domain search, email finder, similar domains, technology
  "verifier",
  "author",
  "enrich", // /enrich
  "person_company", // person, company, combined enrichment
  "phone", // profile finder, phone finder, phone validator
  "location",
  "count",
  "format",
  "sources",
  "suggestions",
  "me",
  "searches", // dashboard searches: capability calls made from the dashboard's "Try it" page
] as const;
export type RateGroup = (typeof RATE_GROUPS)[number];

export type CreditBalance = "search" | "verification" | "phone";

export interface CreditCost {
  balance: CreditBalance;
  amount: number;
}

/** What admission needs to know of a capability: its group, its price and how an empty balance is told. */
export interface BillingTerms {
  /** Null: never rate-limited. */
  rateGroup: RateGroup | null;
  /** Null: free. */
  cost: CreditCost | null;
  exhaustedAs?: "quota_exceeded" | "rate_limit";
  estimatedCostHeader?: string;
}

/** One credit balance as the limiter reports it. */
export interface BalanceView {
  available: number;
  used: number;
  allowance: number;
}

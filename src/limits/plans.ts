/**
 * Plans: price, monthly credit allowances and per-account caps. Rate limits per plan live in
 * rate-table.ts; both are keyed by the same plan names.
 */
export const PLAN_NAMES = ["free", "basic", "growth", "pro", "pro-plus", "scale", "enterprise"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  id: number;
  name: PlanName;
  label: string;
  frequency: "monthly" | "yearly";
  priceMonthly: string;
  priceYearly: string;
  /** Monthly credit allowances by balance. */
  credits: { search: number; verification: number; phone: number };
  caps: { keys: number; teams: number; leads: number; lists: number; attributes: number };
}

const plan = (p: Plan) => p;

export const PLANS: Record<PlanName, Plan> = {
  free: plan({
    id: 1,
    name: "free",
    label: "Free",
    frequency: "monthly",
    priceMonthly: "0",
    priceYearly: "0",
    credits: { search: 25, verification: 50, phone: 5 },
    caps: { keys: 2, teams: 1, leads: 1_000, lists: 5, attributes: 10 },
  }),
  basic: plan({
    id: 2,
    name: "basic",
    label: "Basic",
    frequency: "monthly",
    priceMonthly: "49",
    priceYearly: "468",
    credits: { search: 500, verification: 1_000, phone: 50 },
    caps: { keys: 5, teams: 2, leads: 10_000, lists: 20, attributes: 25 },
  }),
  growth: plan({
    id: 3,
    name: "growth",
    label: "Growth",
    frequency: "monthly",
    priceMonthly: "99",
    priceYearly: "948",
    credits: { search: 2_500, verification: 5_000, phone: 250 },
    caps: { keys: 10, teams: 5, leads: 50_000, lists: 50, attributes: 50 },
  }),
  pro: plan({
    id: 4,
    name: "pro",
    label: "Pro",
    frequency: "monthly",
    priceMonthly: "199",
    priceYearly: "1908",
    credits: { search: 10_000, verification: 20_000, phone: 1_000 },
    caps: { keys: 20, teams: 10, leads: 200_000, lists: 200, attributes: 100 },
  }),
  "pro-plus": plan({
    id: 5,
    name: "pro-plus",
    label: "Pro Plus",
    frequency: "monthly",
    priceMonthly: "389",
    priceYearly: "3732",
    credits: { search: 25_000, verification: 50_000, phone: 2_500 },
    caps: { keys: 30, teams: 20, leads: 500_000, lists: 500, attributes: 200 },
  }),
  scale: plan({
    id: 6,
    name: "scale",
    label: "Scale",
    frequency: "monthly",
    priceMonthly: "799",
    priceYearly: "7668",
    credits: { search: 100_000, verification: 200_000, phone: 10_000 },
    caps: { keys: 50, teams: 50, leads: 2_000_000, lists: 1_000, attributes: 500 },
  }),
  enterprise: plan({
    id: 7,
    name: "enterprise",
    label: "Enterprise",
    frequency: "yearly",
    priceMonthly: "1999",
    priceYearly: "19188",
    credits: { search: 500_000, verification: 1_000_000, phone: 50_000 },
    caps: { keys: 100, teams: 200, leads: 10_000_000, lists: 5_000, attributes: 1_000 },
  }),
};

export function planFor(name: string): Plan {
  return (PLANS as Record<string, Plan>)[name] ?? PLANS.free;
}

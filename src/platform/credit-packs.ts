/**
 * The credit packs the service sells: the same packs whoever sells them (the dashboard's Plans page
 * and POST /v1/credit-packs/{pack}, paid with MPP; the operator's POST
 * /operator/accounts/{id}/credit-packs with `{"pack": …}`). A pack's credits count for every
 * balance and stay until used; while a pack has credits the account's rate limits are the higher of
 * its plan's and the pack's, and a pack of 50,000 credits or more lifts them (the spec's rule,
 * src/limits/rate-table.ts).
 */
export interface CreditPack {
  id: string;
  credits: number;
  /** US dollars, as the MPP offer's display amount (paid in USDC or USDT). */
  price: string;
}

export const CREDIT_PACKS: readonly CreditPack[] = [
  { id: "pack-1k", credits: 1_000, price: "19" },
  { id: "pack-10k", credits: 10_000, price: "149" },
  { id: "pack-50k", credits: 50_000, price: "499" },
];

export const creditPack = (id: string) => CREDIT_PACKS.find((p) => p.id === id);

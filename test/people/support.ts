import { expect } from "vitest";
import { call } from "../support/accounts.js";

/** Loads rows through the operator import route, the way an operator would, and checks none was rejected. */
export async function importRows(rows: Record<string, unknown>[]) {
  const res = await call("/operator/import", {
    method: "POST",
    headers: { "content-type": "application/json", "X-Operator-Secret": "test-operator-secret" },
    body: JSON.stringify(rows),
  });
  const report = (await res.json()) as { accepted: number; rejected: number; errors: unknown[] };
  expect(res.status).toBe(200);
  expect(report.errors).toEqual([]);
  return report;
}

export async function claim(kind: "email" | "phone" | "linkedin", value: string) {
  const { addClaim, normaliseClaimValue } = await import("../../src/engine/index/claims.js");
  const { env } = await import("cloudflare:workers");
  await addClaim(env, kind, normaliseClaimValue(kind, value)!, "test");
}

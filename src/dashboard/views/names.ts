import { ROUTE_TYPES } from "../../account/log-retention.js";
import { CAPABILITIES } from "../../capabilities/index.js";

/**
 * One set of names for what an account did, shared by the overview and the request logs: a row of
 * the overview's "today's use" is named by the capability label the log writes in its `type`
 * column, so its link (and the logs page's filter, which offers these same labels) finds its rows.
 */
const label = (name: string) => CAPABILITIES.find((c) => c.name === name)?.label ?? name;

/** GET /v1/rate-limits keys as people read them, with the log type their requests carry. */
export const RATE_GROUP_NAMES: Record<string, { label: string; logType: string }> = Object.fromEntries(
  (
    [
      ["domain-search", label("domain-search")],
      ["email-finder", label("email-finder")],
      ["similar", label("similar")],
      ["technology", label("technology")],
      ["email-verifier", label("email-verifier")],
      ["author-finder", label("author-finder")],
      ["enrich", label("enrich")],
      ["enrich-email", label("people/find")],
      ["enrich-company", label("companies/find")],
      ["enrich-combined", label("combined/find")],
      ["profile-finder", label("professional-network")],
      ["phone", label("phone-finder")],
      ["phone-validator", label("phone-validator")],
      ["email-count", label("email-count")],
      ["email-format", label("email-format")],
      ["email-sources", label("email-sources")],
      ["domain-suggestions", label("domain-suggestions")],
      ["me", ROUTE_TYPES.me ?? "Account"],
    ] as const
  )
    .map(([key, name]): [string, { label: string; logType: string }] => [key, { label: name, logType: name }])
    .concat([["searches", { label: "Dashboard searches (Try it)", logType: "" }]]),
);

/** Every `type` a request log entry can carry, once each: the logs page's filter offers these. */
export const LOG_TYPES: string[] = [
  ...new Set([...CAPABILITIES.map((c) => c.label), ...Object.values(ROUTE_TYPES)]),
].sort((a, b) => a.localeCompare(b));

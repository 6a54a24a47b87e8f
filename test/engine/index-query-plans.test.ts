import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import type { Env } from "../../src/env.js";
import { createAccount } from "../support/accounts.js";

/**
 * Every statement the hot path sends to D1 (the capabilities customers pay for, the 30-day repeat
 * lookup, and the crawl a first request runs inline) uses an index: the index grows to millions of
 * rows, and one full scan per request would make every call slower as it grows. The statements are
 * recorded from real requests (a recording D1 binding under the app), then each is asked for its
 * plan with EXPLAIN QUERY PLAN against the migrated schema.
 */

interface Recorded {
  sql: string;
  params: unknown[];
}

/** The D1 binding, recording the SQL and parameters of every statement it prepares. */
function recordingD1(real: D1Database, log: Recorded[]): D1Database {
  const statement = (sql: string): D1PreparedStatement => {
    const unbound = real.prepare(sql);
    return new Proxy(unbound, {
      get(target, prop) {
        if (prop === "bind") {
          return (...params: unknown[]) => {
            log.push({ sql, params });
            return target.bind(...params);
          };
        }
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (prop === "all" || prop === "first" || prop === "run" || prop === "raw") log.push({ sql, params: [] });
          return value.apply(target, args);
        };
      },
    });
  };
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "prepare") return statement;
      // Index reads go through a D1 session (src/db/index-sessions.ts): it records the same way.
      if (prop === "withSession")
        return (from: string) => recordingD1(target.withSession(from) as unknown as D1Database, log);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Tables of the contact index and the billing memory: the ones that grow with use. */
const GROWING = [
  "domains",
  "companies",
  "emails",
  "email_sources",
  "people",
  "phones",
  "claims",
  "billed_requests",
  "usage_days",
  "api_keys",
  "accounts",
];

/** Lines of a plan that read a whole growing table (or a whole index of one). */
function fullScans(plan: { detail: string }[]): string[] {
  return plan
    .map((r) => r.detail)
    .filter((d) => {
      const m = /^SCAN (\w+)/.exec(d);
      return !!m && GROWING.includes(m[1]!);
    });
}

const recorded: Recorded[] = [];
let headers: Record<string, string>;

async function get(path: string) {
  const app = createApp();
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`https://api.test${path}`, { headers }),
    {
      ...env,
      // The main database and every index database (src/db/shards.ts) record what they are sent.
      DB: recordingD1(env.DB, recorded),
      INDEX_0: recordingD1(env.INDEX_0, recorded),
      INDEX_1: recordingD1(env.INDEX_1, recorded),
      INDEX_2: recordingD1(env.INDEX_2, recorded),
      INDEX_3: recordingD1(env.INDEX_3, recorded),
    } as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  await res.text();
  expect(res.status, path).toBe(200);
}

describe("query plans of the hot path", () => {
  beforeAll(async () => {
    ({ headers } = await createAccount({ plan: "scale" }));
    // The first search crawls the site inline (storeCrawl); the rest read the index.
    await get("/v1/domain-search?domain=acme-widgets.test");
    await get("/v1/domain-search?domain=acme-widgets.test&limit=5&page=2");
    await get("/v1/domain-search?domain=acme-widgets.test&type=personal&department=engineering&country=US");
    await get("/v1/domain-search?company=Acme%20Widgets%20Inc.");
    await get("/v1/email-finder?domain=acme-widgets.test&first_name=Jane&last_name=Cooper");
    await get("/v1/email-finder?domain=acme-widgets.test&first_name=Someone&last_name=Else");
    await get("/v1/email-count?domain=acme-widgets.test");
    // A repeat of a billed call: decided by the account's limiter, no D1 statement.
    await get("/v1/email-count?domain=acme-widgets.test");
  });

  it("records the statements of every call", () => {
    const tables = new Set(recorded.flatMap((r) => GROWING.filter((t) => new RegExp(`\\b${t}\\b`).test(r.sql))));
    for (const t of ["domains", "companies", "emails", "email_sources", "people", "claims", "api_keys"])
      expect(tables, t).toContain(t);
    // The 30-day windows live in the AccountLimiter: the request path sends no statement to
    // billed_requests (its D1 copy is written by the limiter's alarm).
    expect(tables).not.toContain("billed_requests");
  });

  it("reads no growing table in full", async () => {
    const offenders: string[] = [];
    const seen = new Set<string>();
    for (const { sql, params } of recorded) {
      if (seen.has(sql)) continue;
      seen.add(sql);
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      for (const scan of fullScans(results)) offenders.push(`${scan}\n    in: ${sql}`);
    }
    expect(seen.size).toBeGreaterThan(10);
    expect(offenders, offenders.join("\n")).toEqual([]);
  });
});

// The finder through /v1 on a mail world (test/fixtures/mail-world), for tests of single people:
// the world's state reset under the test file's own namespace (files sharing a seed run side by
// side), its prober configured, and the background retries run as the queue would deliver them.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { runDueRetries } from "../../src/engine/verify/smtp-retries.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { REACHER_SECRET } from "../fixtures/handlers/reacher.js";
import { createAccount } from "./accounts.js";

const CONTROL = "https://fixture-control.test/mail-world";

export interface FinderData {
  email: string | null;
  score: number | null;
  verification: { status: string | null; retry_at?: string };
}

export async function mailWorldFinder(seed: number, ns: string) {
  await fetch(`${CONTROL}/reset?seed=${seed}&ns=${ns}`);
  const queue = { send: async () => {}, sendBatch: async () => {} };
  const via = {
    ...(env as Env),
    REACHER_URL: `https://reacher.test/${ns}`,
    REACHER_SECRET,
    SMTP_HOST_MAX_PER_MINUTE: "100000",
    SMTP_RETRY_QUEUE: queue,
    CRAWL_QUEUE: queue,
  } as unknown as Env;
  const { headers } = await createAccount({ plan: "scale" });
  /** The finder's answer for `query` (domain=…&first_name=… or full_name=…). */
  const ask = async (query: string): Promise<FinderData> => {
    const res = await worker.fetch(
      new Request(`https://api.test/v1/email-finder?${query}`, { headers }),
      via,
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: FinderData }).data;
  };
  /** The account's searches billed so far (the finder's counter). */
  const billed = async (): Promise<number> => {
    const res = await worker.fetch(new Request("https://api.test/v1/me", { headers }), via, createExecutionContext());
    return ((await res.json()) as { data: { requests: { domains: { used: number } } } }).data.requests.domains.used;
  };
  let now = Date.now();
  /** Moves the world's and the Worker's clocks `minutes` on and runs the retries due by then. */
  const retry = async (minutes: number) => {
    await fetch(`${CONTROL}/advance?seed=${seed}&ns=${ns}&seconds=${minutes * 60}`);
    now += minutes * 60_000;
    await runDueRetries(via, now);
  };
  return { via, ask, retry, billed };
}

// A bulk finder job whose rows wait on greylisting: the rows are recorded as waiting (not billed,
// not "nothing found"), the job completes and says so in its progress; once the background retries
// ran, the same rows are found. The mail world's greylisting server and its fake Reacher
// (test/fixtures/mail-world) answer; the job's chunks are delivered here, through the Worker's
// queue handler, with the prober configured.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runDueRetries } from "../../src/engine/verify/smtp-retries.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { REACHER_SECRET } from "../fixtures/handlers/reacher.js";
import { MAIL_WORLD_GUARD_DOMAINS, MAIL_WORLD_UNIT_SEED, mailWorld } from "../fixtures/mail-world/world.js";
import { createAccount } from "../support/accounts.js";
import { createdId, createJob, getJob, launchLosingMessages } from "./support.js";

// This file's own copy of the mail world's state (files sharing a seed run side by side).
const WORLD_NS = "smtp-waiting";
const REACHER_URL = `https://reacher.test/${WORLD_NS}`;

const control = "https://fixture-control.test/mail-world";
const noQueue = { send: async () => {}, sendBatch: async () => {} };
const withProber = {
  ...(env as Env),
  REACHER_URL,
  REACHER_SECRET,
  SMTP_RETRY_QUEUE: noQueue,
  CRAWL_QUEUE: noQueue,
} as unknown as Env;

async function deliver(jobId: number, chunk: number) {
  const batch = createMessageBatch("bulk-rows", [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { jobId, chunk, run: 1 } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, withProber, ctx);
  return getQueueResult(batch, ctx);
}

describe("a bulk finder job on a greylisting mail server", () => {
  const d = mailWorld(MAIL_WORLD_UNIT_SEED, MAIL_WORLD_GUARD_DOMAINS).find(
    (x) => x.behaviour === "greylisting" && x.greylistStyle === "whole_client",
  )!;
  const people = d.people.filter((p) => !p.middle);
  const data = [["domain", "first_name", "last_name"], ...people.map((p) => [d.domain, p.first, p.last])];

  it("shows its rows waiting (unbilled) and completes; after the retries the same rows are found", async () => {
    await fetch(`${control}/reset?seed=${MAIL_WORLD_UNIT_SEED}&ns=${WORLD_NS}`);
    const account = await createAccount({ plan: "scale" });

    const first = await createdId(await createJob(account, "finder", { name: "Greylisted", data }));
    await launchLosingMessages(account, first);
    expect((await deliver(first, 0)).explicitAcks).toHaveLength(1);
    const waiting = (await getJob(account, "finder", first)).job;
    expect(waiting.status).toBe("completed");
    expect(waiting.metrics.distribution.rows).toContainEqual(
      expect.objectContaining({ key: "waiting", count: people.length }),
    );
    expect(waiting.summary).toMatch(/waiting on a deferred mailbox check/);
    expect(waiting.metrics.credits.search).toBe(0);

    // The greylisting delay passes; the queue delivers the retries.
    await fetch(`${control}/advance?seed=${MAIL_WORLD_UNIT_SEED}&ns=${WORLD_NS}&seconds=${d.greylistSeconds + 3600}`);
    await runDueRetries(withProber, Date.now() + (d.greylistSeconds + 3600) * 1000);
    await runDueRetries(withProber, Date.now() + (d.greylistSeconds + 7200) * 1000);

    const again = await createdId(await createJob(account, "finder", { name: "Greylisted, again", data }));
    await launchLosingMessages(account, again);
    expect((await deliver(again, 0)).explicitAcks).toHaveLength(1);
    const found = (await getJob(account, "finder", again)).job;
    expect(found.status).toBe("completed");
    expect(found.metrics.results.found).toBe(people.length);
    expect(found.metrics.distribution.rows.map((r: { key: string }) => r.key)).not.toContain("waiting");
  });
});

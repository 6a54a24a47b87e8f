import type { WorkflowEvent, WorkflowStep } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";
import { copyDomain, deleteDomain, domainsToMove } from "../db/shard-moves.js";
import { buildRing, indexBindings, indexD1, layoutTtl, ownerOf, setLayout, shardKeyOf } from "../db/shards.js";
import { type Env, isProduction } from "../env.js";

/**
 * Resharding the contact index without downtime: a Cloudflare Workflow (durable steps, each
 * retried on failure; a crash or redeploy resumes after the last finished step), which moves every
 * domain whose database changes from the current ring to the ring of `shards` databases.
 *
 * 1. plan: the layout goes to `dual` (reads from the old ring, writes to both).
 * 2. wait: longer than any isolate keeps a layout (`layoutTtl`) plus a write in flight.
 * 3. copy, page by page of each old database: every moving domain's rows are copied to its new
 *    database in one transaction, keeping what the new one already holds (the dual writes).
 * 4. switch: reads go to the new ring (writes still to both); wait.
 * 5. steady on the new ring; wait; clean up: the moved domains' rows are deleted from the old.
 *
 * A page is copied again in full after a crash in the middle of it: copies keep what is there,
 * so nothing is duplicated, and nothing written meanwhile is lost (it went to both rings).
 */
export interface ReshardParams {
  shards: number;
  /** Domains per copy or cleanup step. */
  pageSize?: number;
  /** Outside production only (tests, the bench): the wait after each phase change, instead of the layout's lifetime plus 30 s. */
  settleMs?: number;
  /** Outside production only (tests, the bench): the first attempt of copy page `page` of the first old database fails after `afterDomains` domains. */
  crash?: { page: number; afterDomains: number };
}

export interface ReshardProgress {
  status: "dual" | "copying" | "switched" | "cleaning" | "done";
  domains_copied: number;
  rows_copied: number;
  domains_cleaned: number;
}

const PAGE_SIZE = 200;
/** Besides the layout's lifetime in an isolate: the longest a crawl's write may be in flight. */
const IN_FLIGHT_MS = 30_000;
const RETRIES = { retries: { limit: 10, delay: "1 second" as const, backoff: "exponential" as const } };

export async function runReshard(env: Env, event: WorkflowEvent<ReshardParams>, step: WorkflowStep) {
  const moveId = event.instanceId;
  const pageSize = event.payload.pageSize ?? PAGE_SIZE;
  const testing = !isProduction(env);
  const settle = (testing ? event.payload.settleMs : undefined) ?? layoutTtl(env) + IN_FLIGHT_MS;
  const crash = testing ? event.payload.crash : undefined;

  const plan = await step.do("plan", RETRIES, async () => {
    const row = await env.DB.prepare("SELECT current, target, move_id FROM index_layout WHERE id = 1").first<{
      current: string;
      target: string | null;
      move_id: string | null;
    }>();
    const from = row ? row.current.split(",") : indexBindings(Number(env.INDEX_SHARDS || "1"));
    if (row?.target && row.move_id !== moveId)
      throw new NonRetryableError(`reshard ${row.move_id} is still running; wait for it to finish`);
    const to = indexBindings(event.payload.shards);
    for (const name of to) indexD1(env, name); // every binding exists, or the plan fails here
    const now = Date.now();
    await env.DB.prepare(
      `INSERT INTO index_moves (id, from_layout, to_layout, status, started_at, updated_at) VALUES (?1, ?2, ?3, 'dual', ?4, ?4)
       ON CONFLICT(id) DO UPDATE SET from_layout = excluded.from_layout, to_layout = excluded.to_layout,
         status = 'dual', updated_at = excluded.updated_at`,
    )
      .bind(moveId, from.join(","), to.join(","), now)
      .run();
    await setLayout(env, { current: from, target: to, phase: "dual", moveId });
    return { from, to };
  });
  await step.sleep("let every isolate write to both rings", settle);

  const progress = { domains_copied: 0, rows_copied: 0, domains_cleaned: 0 };
  const record = (status: ReshardProgress["status"]) =>
    env.DB.prepare(
      `UPDATE index_moves SET status = ?2, domains_copied = ?3, rows_copied = ?4, domains_cleaned = ?5, updated_at = ?6 WHERE id = ?1`,
    )
      .bind(moveId, status, progress.domains_copied, progress.rows_copied, progress.domains_cleaned, Date.now())
      .run();

  // Copy: each old database's domains in order, a page per step.
  const ring = buildRing(plan.to);
  for (const [s, source] of plan.from.entries()) {
    let after = "";
    for (let page = 0; ; page++) {
      const done = await step.do(`copy ${source} page ${page}`, RETRIES, async (ctx) => {
        if (ctx.attempt > 1) await countRetry(env, moveId);
        const { moving, last } = await domainsToMove(indexD1(env, source), source, plan.to, after, pageSize);
        let rows = 0;
        for (const [i, domain] of moving.entries()) {
          if (crash && s === 0 && page === crash.page && i === crash.afterDomains && ctx.attempt === 1)
            throw new Error(`injected crash in copy page ${page} after ${i} domains`);
          const owner = ownerOf(ring, shardKeyOf(domain));
          rows += await copyDomain(indexD1(env, source), indexD1(env, owner), domain);
        }
        return { last, domains: moving.length, rows };
      });
      progress.domains_copied += done.domains;
      progress.rows_copied += done.rows;
      await step.do(`progress ${source} page ${page}`, RETRIES, async () => {
        await record("copying");
        return null;
      });
      if (done.last === null) break;
      after = done.last;
    }
  }

  await step.do("switch reads to the new ring", RETRIES, async () => {
    await setLayout(env, { current: plan.from, target: plan.to, phase: "switched", moveId });
    await record("switched");
    return null;
  });
  await step.sleep("let every isolate read from the new ring", settle);
  await step.do("write to the new ring only", RETRIES, async () => {
    await setLayout(env, { current: plan.to, target: null, phase: "steady", moveId: null });
    return null;
  });
  await step.sleep("let every isolate stop writing to the old ring", settle);

  // Clean up: what moved leaves the old databases (a listing again: it also finds rows a late
  // dual write left there after the copy).
  for (const source of plan.from) {
    let after = "";
    for (let page = 0; ; page++) {
      const done = await step.do(`clean ${source} page ${page}`, RETRIES, async (ctx) => {
        if (ctx.attempt > 1) await countRetry(env, moveId);
        const { moving, last } = await domainsToMove(indexD1(env, source), source, plan.to, after, pageSize);
        for (const domain of moving) await deleteDomain(indexD1(env, source), domain);
        return { last, domains: moving.length };
      });
      progress.domains_cleaned += done.domains;
      await step.do(`progress clean ${source} page ${page}`, RETRIES, async () => {
        await record("cleaning");
        return null;
      });
      if (done.last === null) break;
      after = done.last;
    }
  }
  await step.do("done", RETRIES, async () => {
    await record("done");
    return null;
  });
  return { ...progress, from: plan.from, to: plan.to };
}

/** Counted outside the step's result: a retry is visible in the progress even if the step fails again. */
async function countRetry(env: Env, moveId: string): Promise<void> {
  await env.DB.prepare("UPDATE index_moves SET steps_retried = steps_retried + 1 WHERE id = ?").bind(moveId).run();
}

import { eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { bulkJobs } from "../db/schema-bulk.js";
import type { Env } from "../env.js";
import type { JobView } from "./job-view.js";

/** Rewrites a job's index row from its object's view (list pages and stats read only D1). */
export async function syncIndex(env: Env, view: JobView) {
  await db(env.DB)
    .update(bulkJobs)
    .set({
      name: view.name,
      status: view.status,
      archived: view.archived,
      rowsInput: view.metrics.rows.input,
      rowsProcessed: view.processed,
      found: view.metrics.results.found,
      emailsFound: view.metrics.emails?.total ?? 0,
      creditsSearch: view.metrics.credits.search,
      creditsVerify: view.metrics.credits.verify,
      creditsPhone: view.metrics.credits.phone,
      snapshot: view,
      updatedAt: Date.now(),
    })
    .where(eq(bulkJobs.id, view.id));
}

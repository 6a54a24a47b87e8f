import { env } from "cloudflare:workers";
import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { jobStub } from "../../src/bulk/jobs.js";
import { db } from "../../src/db/client.js";
import { bulkJobs } from "../../src/db/schema-bulk.js";
import { createAccount } from "../support/accounts.js";
import { createdId, createJob } from "./support.js";

// Bulk job objects run side by side in one isolate, and each loads the index-row module on first
// use (a dynamic import, which the test runtime serves with a round trip and shares between
// concurrent importers). A promise one object started and another awaits could resolve in the wrong
// object's I/O context ("Cannot perform I/O on behalf of a different Durable Object"). It was the
// suspected cause of money schedules that never came to rest; this test (many objects writing their
// index rows at the same moment) holds, and the cause was elsewhere (the harness's quiet-point flush).
describe("bulk job objects side by side", () => {
  it("each finish their own index-row writes when many run at the same moment", async () => {
    const account = await createAccount();
    const ids: number[] = [];
    // An account may create 15 jobs of a type a day.
    for (let i = 0; i < 12; i++) {
      ids.push(
        await createdId(
          await createJob(account, "verifier", { name: `Side ${i}`, list: "jane.cooper@acme-widgets.test" }),
        ),
      );
    }
    // Every rename rewrites its job's index row from inside its object, all at once, a few rounds.
    for (let round = 0; round < 6; round++) {
      const renames = ids.map((id) => jobStub(env, id).rename(`Side ${id} round ${round}`, Date.now(), 0));
      const settled = await Promise.allSettled(renames);
      const failed = settled.flatMap((s) => (s.status === "rejected" ? [String(s.reason)] : []));
      expect(failed, `round ${round}`).toEqual([]);
    }
    const rows = await db(env.DB)
      .select({ id: bulkJobs.id, name: bulkJobs.name })
      .from(bulkJobs)
      .where(inArray(bulkJobs.id, ids));
    expect(new Map(rows.map((r) => [r.id, r.name]))).toEqual(new Map(ids.map((id) => [id, `Side ${id} round 5`])));
  });
});

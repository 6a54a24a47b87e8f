import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EventSchema, HistoryMetaSchema } from "../../src/bulk/routes/history.js";
import { JobListMetaSchema } from "../../src/bulk/routes/list-jobs.js";
import { ProgressSchema } from "../../src/bulk/routes/progress.js";
import { StatsSchema } from "../../src/bulk/routes/stats.js";
import { call, createAccount, json } from "../support/accounts.js";
import { act, createdId, createJob, waitForEnd } from "./support.js";

// Parsing strips keys a schema does not name and refuses values it does not allow: an answer that
// parses back to itself is described, key by key, by the published schema.
const describedBy = (schema: { parse(v: unknown): unknown }, answer: unknown) =>
  expect(schema.parse(answer)).toEqual(answer);

describe("the bulk answers beside the job (stats, progress, list and history pages) have published schemas", () => {
  it("describes the stats, the progress of an ended job, a list's page and a history's page, key by key", async () => {
    const account = await createAccount();
    const get = async (path: string) => json(await call(path, { headers: account.headers }));
    const id = await createdId(
      await createJob(account, "finder", {
        name: "Schemas",
        data: [
          ["domain", "full name"],
          ["acme-widgets.test", "Jane Cooper"],
          ["", ""],
        ],
      }),
    );
    await act(account, "POST", `/v1/bulk/finder/${id}/launch`);
    await waitForEnd(account, "finder", id);

    const stats = (await get("/v1/bulk/stats")).data;
    expect(stats.jobs.total).toBe(1);
    expect(stats.by_type).toHaveLength(1);
    expect(stats.daily).toHaveLength(1);
    describedBy(StatsSchema, stats);

    const progress = await get(`/v1/bulk/finder/${id}/progress`);
    // Two input rows: the blank one is skipped.
    expect(progress).toMatchObject({ state: "completed", metrics: { rows: { input: 2, processed: 1 } } });
    describedBy(ProgressSchema, progress);

    const list = await get("/v1/bulk/finder");
    expect(list.meta).toMatchObject({ total: 1, page: 1 });
    describedBy(JobListMetaSchema, list.meta);

    const history = await get(`/v1/bulk/finder/${id}/history`);
    expect(history.meta.total).toBeGreaterThan(0);
    describedBy(HistoryMetaSchema, history.meta);
    for (const event of history.data) describedBy(EventSchema, event);
  });

  it("publishes them in /v1/openapi.json with their properties, not as free-form objects", async () => {
    const doc = await json(await exports.default.fetch(new Request("https://api.test/v1/openapi.json")));
    const { schemas } = doc.components;
    expect(Object.keys(schemas.BulkStats.properties)).toEqual(expect.arrayContaining(["jobs", "credits", "by_type"]));
    expect(schemas.BulkProgress.properties.metrics.$ref).toBe("#/components/schemas/BulkJobMetrics");
    expect(schemas.BulkJobListMeta.required).toEqual(expect.arrayContaining(["total", "page", "total_pages"]));
    expect(schemas.BulkHistoryMeta.required).toEqual(expect.arrayContaining(["total", "page", "total_pages"]));
  });
});

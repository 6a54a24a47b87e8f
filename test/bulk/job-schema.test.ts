import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { JobSchema } from "../../src/bulk/routes/job-schema.js";
import { call, createAccount, json } from "../support/accounts.js";
import { act, createdId, createJob, waitForEnd } from "./support.js";

// Parsing strips keys the schema does not name and refuses values it does not allow: a job that
// parses back to itself is described, key by key, by the published schema.
const described = (job: unknown) => expect(JobSchema.parse(job)).toEqual(job);

describe("the BulkJob schema (what the OpenAPI document and the dashboard read)", () => {
  it("describes a pending job, a listed job and an ended finder job with its emails and preview, key by key", async () => {
    const account = await createAccount();
    const id = await createdId(
      await createJob(account, "finder", {
        name: "Schema",
        data: [
          ["domain", "full name"],
          ["acme-widgets.test", "Jane Cooper"],
          ["", ""],
        ],
      }),
    );
    const pending = (await json(await call(`/v1/bulk/finder/${id}`, { headers: account.headers }))).data;
    expect(pending.status).toBe("pending");
    described(pending);
    await act(account, "POST", `/v1/bulk/finder/${id}/launch`);
    const ended = await waitForEnd(account, "finder", id);
    expect(ended).toMatchObject({ status: "completed", billed: true, metrics: { emails: {} } });
    expect(ended.preview).toBeDefined();
    described(ended);
    const listed = (await json(await call("/v1/bulk/finder", { headers: account.headers }))).data;
    expect(listed).toHaveLength(1);
    described(listed[0]);
  });

  it("is published with its properties in /v1/openapi.json, not as a free-form object", async () => {
    const doc = await json(await exports.default.fetch(new Request("https://api.test/v1/openapi.json")));
    const job = doc.components.schemas.BulkJob;
    expect(job.type).toBe("object");
    expect(Object.keys(job.properties)).toEqual(expect.arrayContaining(["bulk_id", "status", "config", "metrics"]));
    expect(job.required).toEqual(expect.arrayContaining(["id", "status", "metrics"]));
    expect(doc.components.schemas.BulkJobMetrics.properties.rows.type).toBe("object");
  });
});

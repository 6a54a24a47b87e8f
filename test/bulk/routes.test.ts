import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CAPABILITIES } from "../../src/capabilities/index.js";
import { call, createAccount, json } from "../support/accounts.js";
import { act, createdId, createJob, waitForEnd } from "./support.js";

describe("bulk route shapes", () => {
  it("lists every bulk type from the capability declarations with fields, synonyms and limits", async () => {
    const account = await createAccount();
    const { data } = await json(await call("/v1/bulk/types", { headers: account.headers }));
    expect(data.map((t: { type: string }) => t.type).sort()).toEqual([
      "author",
      "company",
      "enrich",
      "finder",
      "linkedin",
      "phone-finder",
      "phone-validator",
      "search",
      "similar",
      "verifier",
    ]);
    const finder = data.find((t: { type: string }) => t.type === "finder");
    const declared = CAPABILITIES.find((c) => c.bulk?.type === "finder")!;
    expect(finder).toMatchObject({
      path: "/v1/bulk/finder",
      app_path: declared.paths[0],
      max_rows: 100_000,
      creates_per_day: 15,
      downloads: ["full", "valid", "not_found"],
      credit_cost: { balance: "search", amount: 1 },
    });
    expect(finder.fields.find((f: { field: string }) => f.field === "domain_field_index").header_synonyms).toContain(
      "website",
    );
    expect(
      finder.options.map((o: { name: string; former_name: string | null }) => [o.name, o.former_name]),
    ).toContainEqual(["skip_rows_with_email", "skip"]);
  });

  it("lists jobs newest first with page, limit, direction, status and meta, and refuses a limit over 50", async () => {
    const account = await createAccount();
    const a = await createdId(await createJob(account, "verifier", { name: "First job", list: "a@acme-widgets.test" }));
    const b = await createdId(
      await createJob(account, "verifier", { name: "Second job", list: "b@acme-widgets.test" }),
    );
    const page = await json(await call("/v1/bulk/verifier?limit=1", { headers: account.headers }));
    expect(page.data.map((j: { id: number }) => j.id)).toEqual([b]);
    expect(page.meta).toMatchObject({ total: 2, page: 1, limit: 1, total_pages: 2 });
    expect(page.data[0]).toMatchObject({ status: "pending", config: { v: 1 }, metrics: { v: 1 } });
    const asc = await json(await call("/v1/bulk/verifier?direction=asc", { headers: account.headers }));
    expect(asc.data.map((j: { id: number }) => j.id)).toEqual([a, b]);
    expect((await json(await call("/v1/bulk/verifier?status=running", { headers: account.headers }))).data).toEqual([]);
    const tooMany = await call("/v1/bulk/verifier?limit=51", { headers: account.headers });
    expect(tooMany.status).toBe(400);
    expect((await json(tooMany)).errors.message).toMatch(/'limit'/);
    expect((await call("/v1/bulk/nope", { headers: account.headers })).status).toBe(400);
  });

  it("serves progress with the gen 1 fields, live metrics and an ETA field; estimate before and after the run; stats", async () => {
    const account = await createAccount();
    const id = await createdId(
      await createJob(account, "finder", {
        name: "Progress",
        data: [
          ["domain", "full name"],
          ["acme-widgets.test", "Jane Cooper"],
          ["acme-widgets.test", "John Smith"],
        ],
      }),
    );
    const before = await json(await call(`/v1/bulk/finder/${id}/progress`, { headers: account.headers }));
    expect(before).toMatchObject({
      status: false,
      progress: 0,
      processed: 0,
      processed_email: 0,
      state: "pending",
      total: 2,
      eta_seconds: null,
    });
    const estimate = (await json(await call(`/v1/bulk/finder/${id}/estimate`, { headers: account.headers }))).data;
    expect(estimate).toMatchObject({
      bulk_id: id,
      status: "pending",
      basis: "upper_bound",
      billed: false,
      rows: 2,
      credits: { search: 2, verify: 0, phone: 0, total: 2 },
      sufficient: true,
    });

    await act(account, "POST", `/v1/bulk/finder/${id}/launch`);
    await waitForEnd(account, "finder", id);
    const after = await json(await call(`/v1/bulk/finder/${id}/progress`, { headers: account.headers }));
    expect(after).toMatchObject({ status: true, progress: 100, processed: 2, processed_email: 2, state: "completed" });
    expect(after.metrics.results).toMatchObject({ found: 2, not_found: 0, hit_rate: 100 });
    const exact = (await json(await call(`/v1/bulk/finder/${id}/estimate`, { headers: account.headers }))).data;
    expect(exact).toMatchObject({ basis: "exact", billed: true, rows: 2, credits: { search: 2, total: 2 } });

    const stats = (await json(await call("/v1/bulk/stats", { headers: account.headers }))).data;
    expect(stats.jobs).toMatchObject({ total: 1, completed: 1 });
    expect(stats).toMatchObject({
      rows_processed: 2,
      found: 2,
      emails_found: 2,
      hit_rate: 100,
      credits: { search: 2, total: 2 },
    });
    expect(stats.by_type).toEqual([
      expect.objectContaining({ type: "finder", label: "Email Finder", jobs: 1, rows_processed: 2 }),
    ]);
    expect(stats.daily).toEqual([
      { date: new Date().toISOString().slice(0, 10), jobs: 1, rows_processed: 2, credits: 2 },
    ]);
    expect(Date.parse(stats.to) - Date.parse(stats.from)).toBe(29 * 86_400_000);
    const none = (
      await json(await call("/v1/bulk/stats?type=verifier&from=2020-01-01&to=2020-01-31", { headers: account.headers }))
    ).data;
    expect(none).toMatchObject({ from: "2020-01-01", to: "2020-01-31", jobs: { total: 0 }, by_type: [], daily: [] });
    expect((await call("/v1/bulk/stats?from=2020-02-31x", { headers: account.headers })).status).toBe(400);
  });

  it("documents every bulk route in /v1/openapi.json", async () => {
    const doc = await json(await exports.default.fetch(new Request("https://api.test/v1/openapi.json")));
    for (const path of [
      "/bulk/types",
      "/bulk/stats",
      "/bulk/webhook-secret",
      "/bulk/webhook-secret/rotate",
      "/bulk/{type}",
      "/bulk/{type}/{id}",
      "/bulk/{type}/{id}/progress",
      "/bulk/{type}/{id}/launch",
      "/bulk/{type}/{id}/cancel",
      "/bulk/{type}/{id}/retry",
      "/bulk/{type}/{id}/restore",
      "/bulk/{type}/{id}/archive",
      "/bulk/{type}/{id}/rename",
      "/bulk/{type}/{id}/estimate",
      "/bulk/{type}/{id}/history",
      "/bulk/{type}/{id}/download",
      "/bulk/{type}/{id}/delete",
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(Object.keys(doc.paths["/bulk/{type}/{id}"])).toEqual(expect.arrayContaining(["get", "put"]));
  });
});

import { describe, expect, it } from "vitest";
import { call, createAccount, json } from "../support/accounts.js";
import { act, createdId, createJob, csvForm, FINDER_CSV, getJob, parseCsv, waitForEnd } from "./support.js";

describe("bulk finder job from a CSV upload", () => {
  it("creates a pending job, runs every row through the queue once launched, and downloads results in row order", async () => {
    const account = await createAccount();
    const id = await createdId(await createJob(account, "finder", csvForm(FINDER_CSV, { name: "People to find" })));

    const { job: pending } = await getJob(account, "finder", id);
    expect(pending).toMatchObject({
      bulk_id: id,
      status: "pending",
      bulk_type: "finder",
      name: "People to find",
      processed: 0,
      billed: false,
      archived: false,
    });
    expect(pending.config.input).toMatchObject({
      source: "file",
      rows: 5,
      has_header: true,
      original_file_name: "people.csv",
    });
    expect(pending.config.input.fields).toEqual({
      first_name_field_index: 0,
      last_name_field_index: 1,
      domain_field_index: 2,
    });
    expect(pending.metrics.rows).toMatchObject({ input: 5, valid_input: 4, invalid_input: 1, processed: 0 });
    expect(Date.parse(pending.expired_at) - Date.parse(pending.created_at)).toBe(180 * 86_400_000);

    const launch = await act(account, "PUT", `/v1/bulk/finder/${id}`);
    expect(launch.status).toBe(200);
    expect((await json(launch)).data).toMatchObject({ status: "running", code: 200 });

    const done = await waitForEnd(account, "finder", id);
    expect(done.status).toBe("completed");
    expect(done.billed).toBe(true);
    // 5 rows = 2 found + 1 not found (processed) + 1 refused (errors) + 1 invalid (no name).
    expect(done.metrics.rows).toEqual({
      input: 5,
      valid_input: 4,
      invalid_input: 1,
      duplicates: 0,
      skipped: 0,
      processed: 3,
      errors: 1,
    });
    expect(done.processed).toBe(5);
    expect(done.metrics.results.found).toBe(2);
    expect(done.metrics.credits).toMatchObject({ search: 2, total: 2 });
    expect(done.preview[0]).toMatchObject({ row: "1", email: "jane.cooper@acme-widgets.test", bulk_status: "found" });

    const full = await call(`/v1/bulk/finder/${id}/download?file=full`, { headers: account.headers });
    expect(full.status).toBe(200);
    expect(full.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(full.headers.get("content-disposition")).toMatch(/^attachment; filename="People_to_find-\d+-full\.csv"$/);
    const rows = parseCsv(await full.text());
    expect(rows[0]!.slice(0, 5)).toEqual(["First Name", "Last Name", "Company Domain", "email", "score"]);
    expect(rows.slice(1).map((r) => [r[0], r[3], r.at(-2)])).toEqual([
      ["Jane", "jane.cooper@acme-widgets.test", "found"],
      ["Ada", "", "not_found"],
      ["Nobody", "", "client_error"],
      ["", "", "invalid"],
      ["Jörg", "joerg.mueller@blau-gmbh.test", "found"],
    ]);

    const valid = parseCsv(
      await (await call(`/v1/bulk/finder/${id}/download?type=valid`, { headers: account.headers })).text(),
    );
    expect(valid.slice(1).map((r) => r[0])).toEqual(["Jane", "Jörg"]);
    const notFound = parseCsv(
      await (await call(`/v1/bulk/finder/${id}/download?file=not_found`, { headers: account.headers })).text(),
    );
    expect(notFound.slice(1).map((r) => r[0])).toEqual(["Ada", "Nobody", ""]);
    expect(rows[3]!.at(-1)).toMatch(/webmail|personal|company/i);

    const history = (await json(await call(`/v1/bulk/finder/${id}/history`, { headers: account.headers }))).data.map(
      (e: { event: string }) => e.event,
    );
    expect(history).toEqual(["created", "launched", "completed", "downloaded", "downloaded", "downloaded"]);
  });

  it("creates from JSON data rows and from a list, and launches on create", async () => {
    const account = await createAccount();
    const fromData = await createJob(account, "verifier", {
      name: "Verify data",
      data: [["email"], ["jane.cooper@acme-widgets.test"]],
      launch: true,
    });
    const body = await json(fromData);
    expect(fromData.status).toBe(201);
    expect(body.data.message).toBe("Bulk created and launched.");
    const done = await waitForEnd(account, "verifier", body.data.id);
    expect(done.status).toBe("completed");
    expect(done.metrics.rows.processed).toBe(1);

    const fromList = await createdId(
      await createJob(account, "verifier", { name: "Verify list", list: "a@acme-widgets.test\nb@acme-widgets.test\n" }),
    );
    const { job } = await getJob(account, "verifier", fromList);
    expect(job.config.input).toMatchObject({
      source: "list",
      rows: 2,
      has_header: false,
      fields: { email_field_index: 0 },
    });
  });
});

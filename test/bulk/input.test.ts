import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { bulkJobs } from "../../src/db/schema-bulk.js";
import { createAccount, json, type TestAccount } from "../support/accounts.js";
import { createdId, createJob, csvForm, getJob } from "./support.js";

async function refused(res: Response) {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.errors.type).toBe("params_invalid");
  return body.errors.message as string;
}

async function nothingLeft(account: TestAccount, r2Before: number) {
  expect((await env.BULK_FILES.list({ prefix: "bulk/" })).objects.length).toBe(r2Before);
  expect(await db(env.DB).select().from(bulkJobs).where(eq(bulkJobs.accountId, account.accountId))).toEqual([]);
}

const upload = (account: TestAccount, csv: string | Uint8Array, fields: Record<string, string> = {}) =>
  createJob(account, "finder", csvForm(csv, { name: "Bad file", ...fields }));

describe("bad CSV uploads answer 400 params_invalid naming the problem and leave nothing behind", () => {
  const cases: [string, string | Uint8Array, Record<string, string>, RegExp][] = [
    ["an empty file", "", {}, /file is empty/],
    ["a header-only file", "first name,last name,domain\r\n", {}, /header row but no rows/],
    [
      "an unbalanced quote",
      'first name,last name,domain\n"Jane,Cooper,acme-widgets.test\nJohn,Smith,acme-widgets.test\n',
      {},
      /unbalanced quote on CSV line \d/,
    ],
    [
      "a wrong delimiter",
      "first name;last name;domain\nJane;Cooper;acme-widgets.test\n",
      { delimiter: "," },
      /'delimiter' does not match the file: line 1 has no comma but is semicolon-separated/,
    ],
    [
      "non-UTF-8 bytes",
      new Uint8Array([
        ...new TextEncoder().encode("first name,last name,domain\nJ"),
        0xf6,
        ...new TextEncoder().encode("rg,M,blau-gmbh.test\n"),
      ]),
      {},
      /not UTF-8 text \(invalid bytes on CSV line 2\)/,
    ],
    [
      "a column index past the last column",
      "a,b\n1,2\n",
      { domain_field_index: "5", full_name_field_index: "0" },
      /'domain_field_index' is invalid: the file has 2 columns/,
    ],
    [
      "more rows than total",
      "full name,domain\nJane Cooper,acme-widgets.test\nJohn Smith,acme-widgets.test\n",
      { total: "1" },
      /too many rows: 'total' is 1/,
    ],
  ];
  for (const [what, csv, fields, message] of cases) {
    it(`refuses ${what}`, async () => {
      const account = await createAccount();
      const before = (await env.BULK_FILES.list({ prefix: "bulk/" })).objects.length;
      expect(await refused(await upload(account, csv, fields))).toMatch(message);
      await nothingLeft(account, before);
    });
  }

  it("refuses a file that is not CSV and a second input", async () => {
    const account = await createAccount();
    const form = csvForm("x", { name: "Image" }, "x.png", "image/png");
    expect(await refused(await createJob(account, "finder", form))).toMatch(/expected a CSV file/);
    expect(
      await refused(await upload(account, "full name,domain\nJane Cooper,acme-widgets.test", { list: "Jane Cooper" })),
    ).toMatch(/exactly one of 'file', 'data' or 'list'/);
    expect(await refused(await createJob(account, "finder", { name: "No input" }))).toMatch(/'file' is required/);
    expect(await refused(await createJob(account, "finder", { name: "x", list: "a" }))).toMatch(
      /'name' is invalid: must be 3 to 200/,
    );
  });

  it("accepts a BOM, CRLF line ends, a detected semicolon delimiter and quoted cells", async () => {
    const account = await createAccount();
    const csv = '\uFEFF"Full Name";"Website"\r\n"Cooper, Jane";acme-widgets.test\r\nJohn Smith;acme-widgets.test\r\n';
    const id = await createdId(await upload(account, csv));
    const { job } = await getJob(account, "finder", id);
    expect(job.config.input).toMatchObject({ rows: 2, fields: { full_name_field_index: 0, domain_field_index: 1 } });
    expect(job.metrics.rows).toMatchObject({ input: 2, valid_input: 2, invalid_input: 0 });
  });

  it("streams an upload larger than the 4 MB API body limit into R2", async () => {
    const account = await createAccount();
    const line = `Jane Cooper,acme-widgets.test,${"x".repeat(200)}\n`;
    const csv = `full name,domain,notes\n${line.repeat(Math.ceil((4.5 * 1024 * 1024) / line.length))}`;
    const id = await createdId(await upload(account, csv));
    const { job } = await getJob(account, "finder", id);
    expect(job.metrics.rows.input).toBeGreaterThan(20_000);
    expect(job.metrics.rows.duplicates).toBe(job.metrics.rows.input - 1);
    const objects = (await env.BULK_FILES.list({ prefix: "bulk/" })).objects.filter((o) =>
      o.key.endsWith("/upload.csv"),
    );
    expect(objects.some((o) => o.size === new TextEncoder().encode(csv).byteLength)).toBe(true);
  }, 90_000);
});

describe("create options: current names, former names and refusals", () => {
  it("translates former names (notifie, sources, skip, phone, one-based column_*) in a multipart body", async () => {
    const account = await createAccount();
    const csv = "who,site,email\nJane Cooper,acme-widgets.test,\nJohn Smith,acme-widgets.test,john@acme-widgets.test\n";
    const form = csvForm(csv, {
      name: "Gen 1 options",
      column_name: "1",
      column_domain: "2",
      column_email: "3",
      sources: "1",
      skip: "true",
      phone: "false",
    });
    const id = await createdId(await createJob(account, "finder", form));
    const { job } = await getJob(account, "finder", id);
    expect(job.config.input.fields).toEqual({ full_name_field_index: 0, domain_field_index: 1, email_field_index: 2 });
    expect(job.config.options).toMatchObject({ include_sources: true, skip_rows_with_email: true, find_phones: false });
    expect(job.metrics.rows).toMatchObject({ input: 2, valid_input: 1, skipped: 1 });
  });

  it("translates verify, maximum and the email_type and department objects for a search job", async () => {
    const account = await createAccount();
    const res = await createJob(account, "search", {
      name: "Gen 1 search",
      list: "acme-widgets.test",
      verify: true,
      maximum: "5",
      email_type: { type: "personal", priority_type: "only" },
      department: { name: ["executive"], priority_type: "only" },
    });
    const { job } = await getJob(account, "search", await createdId(res));
    expect(job.config.options).toMatchObject({
      verify_emails: true,
      max_emails_per_domain: 5,
      email_type: "personal",
      email_type_mode: "only",
      departments: ["executive"],
      departments_mode: "only",
    });
  });

  it("refuses an option that does not apply to the type, one it cannot honour, and a former and current name that disagree", async () => {
    const account = await createAccount();
    expect(
      await refused(
        await createJob(account, "verifier", { name: "Wrong option", list: "a@b.test", find_phones: true }),
      ),
    ).toMatch(/'find_phones' does not apply to verifier jobs/);
    expect(
      await refused(await createJob(account, "verifier", { name: "Unknown", list: "a@b.test", colour: "red" })),
    ).toMatch(/'colour' is not a bulk option/);
    expect(
      await refused(
        await createJob(account, "search", {
          name: "Cannot",
          list: "acme-widgets.test",
          boost_score_from_sources: false,
        }),
      ),
    ).toMatch(/'boost_score_from_sources' cannot be false for search jobs/);
    expect(
      await refused(
        await createJob(account, "search", {
          name: "Both",
          list: "acme-widgets.test",
          maximum: 5,
          max_emails_per_domain: 10,
        }),
      ),
    ).toMatch(/'maximum' is the former name of 'max_emails_per_domain'/);
    expect(
      await refused(
        await createJob(account, "search", { name: "Max", list: "acme-widgets.test", max_emails_per_domain: 7 }),
      ),
    ).toMatch(/must be 1, 5, 10, 20, 50 or 100/);
    expect(
      await refused(await createJob(account, "verifier", { name: "Notify", list: "a@b.test", notify: true })),
    ).toMatch(
      /'notify' needs somewhere to send the end event: a 'webhook_url', or an enabled account webhook for the 'bulk_job_ended' event/,
    );
    expect(
      await refused(await createJob(account, "finder", { name: "Column 0", data: [["a"], ["b"]], column_name: 0 })),
    ).toMatch(/'column_name' is invalid: columns are numbered from 1/);
  });
});

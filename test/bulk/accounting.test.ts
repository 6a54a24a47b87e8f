import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env.js";
import { limiterFor } from "../../src/limits/admission.js";
import { call, createAccount, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";
import { act, createdId, createJob, csvForm, getJob, parseCsv, thirtyFoundFinderRows, waitForEnd } from "./support.js";

/** Every way a row can end, in one file. */
const MIXED = [
  "first name,last name,domain,email",
  "Jane,Cooper,acme-widgets.test,", // 1 found
  "", // 2 blank line
  "Jane,Cooper,acme-widgets.test,", // 3 duplicate of row 1
  ",,acme-widgets.test,", // 4 no name: invalid
  "John,Smith,acme-widgets.test,john@acme-widgets.test", // 5 has an email: skipped
  "Ada,Lovelace,generic-only.test,", // 6 not found
  "Nobody,Atall,gmail.com,", // 7 webmail domain: failed
  ",,,", // 8 blank (delimiters only)
  "Bob,Stone,not_a_domain,", // 9 refused by the finder as invalid input
].join("\r\n");

const sum = (rows: Record<string, number>) =>
  rows.valid_input! + rows.invalid_input! + rows.duplicates! + rows.skipped!;

describe("every input row is accounted for", () => {
  it("counts blank, invalid, duplicate and skipped rows, and the counts add up to the rows in the file before and after the run", async () => {
    const account = await createAccount();
    const id = await createdId(
      await createJob(account, "finder", csvForm(MIXED, { name: "Mixed rows", skip_rows_with_email: "true" })),
    );
    const { job: pending } = await getJob(account, "finder", id);
    expect(pending.metrics.rows).toEqual({
      input: 9,
      valid_input: 4,
      invalid_input: 3,
      duplicates: 1,
      skipped: 1,
      processed: 0,
      errors: 0,
    });
    expect(sum(pending.metrics.rows)).toBe(9);
    expect(pending.config.input.rows).toBe(9);

    await act(account, "POST", `/v1/bulk/finder/${id}/launch`);
    const done = await waitForEnd(account, "finder", id);
    // Bob's domain was refused when his row ran: he moves from valid to invalid input.
    expect(done.metrics.rows).toEqual({
      input: 9,
      valid_input: 3,
      invalid_input: 4,
      duplicates: 1,
      skipped: 1,
      processed: 2,
      errors: 1,
    });
    expect(sum(done.metrics.rows)).toBe(9);
    expect(done.metrics.rows.valid_input).toBe(done.metrics.rows.processed + done.metrics.rows.errors);
    expect(done.processed).toBe(9);
    expect(done.progress).toBe(100);

    const csv = parseCsv(await (await call(`/v1/bulk/finder/${id}/download`, { headers: account.headers })).text());
    expect(csv.slice(1).map((r) => [r.at(-2), r.at(-1)])).toEqual([
      ["found", ""],
      ["invalid", "blank row"],
      ["duplicate", "same lookup as row 1; not run again"],
      ["invalid", expect.stringMatching(/^missing Domain \+ First name \+ Last name, or Domain \+ Full name/)],
      ["skipped", "the row already has an email address (skip_rows_with_email)"],
      ["not_found", ""],
      ["client_error", expect.stringMatching(/webmail/)],
      ["invalid", "blank row"],
      ["invalid", expect.stringMatching(/domain/i)],
    ]);
    // The duplicate carries its original's answer (found once, billed once).
    expect(csv[3]![4]).toBe("jane.cooper@acme-widgets.test");
    expect(done.metrics.credits.search).toBe(1);

    const byKey = Object.fromEntries(
      done.metrics.distribution.rows.map((b: { key: string; count: number }) => [b.key, b.count]),
    );
    expect(byKey).toEqual({
      found: 1,
      not_found: 1,
      blank: 2,
      missing: 1,
      refused: 1,
      duplicate: 1,
      has_email: 1,
      webmail_domain: 1,
    });
    expect(done.summary).toBe(
      "1 found, 1 not found: 2 rows were blank; 1 row had no Domain + First name + Last name, or Domain + Full name, or Company name + First name + Last name, or Company name + Full name; " +
        `1 row was invalid input ("The parameter 'domain' is invalid: "not_a_domain" is not a domain name."); 1 row repeated an earlier row's lookup (not run again); ` +
        '1 row already had an email address (skip_rows_with_email); 1 row failed ("gmail.com is a webmail or disposable email provider; the finder needs the person\'s company domain.").',
    );
  });

  it("counts a list's blank lines, but not the line break that ends the last line", async () => {
    const account = await createAccount();
    const { job } = await getJob(
      account,
      "verifier",
      await createdId(
        await createJob(account, "verifier", {
          name: "List with gaps",
          list: "a@acme-widgets.test\n\nb@acme-widgets.test\n",
        }),
      ),
    );
    expect(job.metrics.rows).toMatchObject({ input: 3, valid_input: 2, invalid_input: 1 });
  });

  it("refuses a file whose rows are all blank", async () => {
    const account = await createAccount();
    const res = await createJob(account, "verifier", csvForm("email\r\n\r\n,\r\n", { name: "Only blanks" }));
    expect(res.status).toBe(400);
    expect((await json(res)).errors.message).toMatch(/header row but no rows to process/);
  });
});

describe("preview once billed", () => {
  it("a job stopped by its credits is billed for the rows it ran and shows its preview", async () => {
    // Free plan: 25 search credits; 30 rows that are all found.
    const account = await createAccount({ plan: "free" });
    const rows = thirtyFoundFinderRows();
    const id = await createdId(await createJob(account, "finder", { name: "Runs out", data: rows, launch: true }));
    const failed = await waitForEnd(account, "finder", id);
    expect(failed).toMatchObject({ status: "failed", billed: true });
    expect(failed.metrics.credits.search).toBe(25);
    expect(failed.preview).toHaveLength(10);
    expect(failed.preview[0]).toMatchObject({ row: "1", email: "anna.baker@acme-widgets.test", bulk_status: "found" });
    // Not billed, no preview, while the job has not ended.
    const pending = await createdId(await createJob(account, "finder", { name: "Not yet", data: rows.slice(0, 2) }));
    const { job } = await getJob(account, "finder", pending);
    expect(job.billed).toBe(false);
    expect(job.preview).toBeUndefined();
  }, 30_000);
});

describe("one billing rule for invalid input, single calls and bulk alike", () => {
  it("bills neither the single call nor the bulk row of a phone number that is not one", async () => {
    const account = await createAccount();
    const phoneUsed = async () =>
      (await limiterFor(env as unknown as Env, account.accountId).balances("pro")).phone.used;
    const single = await call("/v1/phone-validator?phone=abc", { headers: account.headers });
    expect(single.status).toBe(200);
    expect((await json(single)).data.valid).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(await phoneUsed()).toBe(0);

    const id = await createdId(
      await createJob(account, "phone-validator", {
        name: "Phones",
        data: [["phone"], ["abc"], ["+33612345678"]],
        launch: true,
      }),
    );
    const done = await waitForEnd(account, "phone-validator", id);
    expect(done.metrics.rows).toMatchObject({ input: 2, valid_input: 1, invalid_input: 1, processed: 1, errors: 0 });
    expect(done.metrics.credits.phone).toBe(1);
    await settle(async () => (await phoneUsed()) === 1);
    const csv = parseCsv(
      await (await call(`/v1/bulk/phone-validator/${id}/download`, { headers: account.headers })).text(),
    );
    expect(csv[1]!.slice(0, 2)).toEqual(["abc", "false"]);
    expect(csv[1]!.slice(-2)).toEqual(["invalid", "not a valid phone number"]);
    expect(csv[2]!.at(-2)).toBe("found");
  });

  it("bills neither the single call nor the bulk row of an address whose syntax is invalid", async () => {
    const account = await createAccount();
    const verifications = async () =>
      (await limiterFor(env as unknown as Env, account.accountId).balances("pro")).verification.used;
    expect(
      (await json(await call("/v1/email-verifier?email=not-an-email", { headers: account.headers }))).data.email.status,
    ).toBe("invalid");
    const id = await createdId(
      await createJob(account, "verifier", {
        name: "Addresses",
        list: "not-an-email\nnobody@gone-verify.test",
        launch: true,
      }),
    );
    const done = await waitForEnd(account, "verifier", id);
    expect(done.metrics.rows).toMatchObject({ input: 2, valid_input: 1, invalid_input: 1, processed: 1 });
    expect(done.metrics.credits.verify).toBe(1);
    await settle(async () => (await verifications()) === 1);
  });
});

describe("a job whose rows all fail says why", () => {
  it("0 found: every row had no domain", async () => {
    const account = await createAccount();
    const rows = [
      ["first name", "last name", "domain"],
      ...Array.from({ length: 120 }, (_, i) => [`Person${i}`, "Nobody", ""]),
    ];
    const id = await createdId(await createJob(account, "finder", { name: "No domains", data: rows, launch: true }));
    const done = await waitForEnd(account, "finder", id);
    expect(done.status).toBe("completed");
    expect(done.summary).toBe(
      "0 found: 120 rows had no Domain + First name + Last name, or Domain + Full name, or Company name + First name + Last name, or Company name + Full name.",
    );
    expect(done.metrics.rows).toMatchObject({ input: 120, invalid_input: 120, valid_input: 0 });
  });

  it("0 found: every row was refused, with the reason", async () => {
    const account = await createAccount();
    const rows = [
      ["first name", "last name", "domain"],
      ...Array.from({ length: 5 }, (_, i) => [`Person${i}`, "Nobody", "gmail.com"]),
    ];
    const id = await createdId(await createJob(account, "finder", { name: "Webmail only", data: rows, launch: true }));
    const done = await waitForEnd(account, "finder", id);
    expect(done.summary).toMatch(
      /^0 found: 5 rows failed \("gmail\.com is a webmail or disposable email provider; the finder needs the person's company domain\."\)\.$/,
    );
    expect(done.metrics.errors.client).toBe(5);
  });
});

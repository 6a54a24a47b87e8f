import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { phones } from "../../src/db/schema-index.js";
import type { Env } from "../../src/env.js";
import { limiterFor } from "../../src/limits/admission.js";
import { uniqueKey, waitForRequests } from "../delivery/support.js";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";
import { indexOf } from "../support/index-db.js";
import { settle } from "../support/settle.js";
import { act, createdId, createJob, csvForm, getJob, parseCsv, waitForEnd } from "./support.js";

/**
 * Every option the spec lists for POST /bulk/finder works as its name says, under
 * its current name and its former one. People of the fixture site: Jane Cooper (CTO: engineering,
 * seen on the team page), John Smith (Head of Sales: sales), Mary Major (VP Finance: finance),
 * Peter Parker (not on the site: proposed from the {first}.{last} format, department unknown).
 */
const PEOPLE = [
  ["first_name", "last_name", "domain"],
  ["Jane", "Cooper", "acme-widgets.test"],
  ["John", "Smith", "acme-widgets.test"],
  ["Mary", "Major", "acme-widgets.test"],
  ["Peter", "Parker", "acme-widgets.test"],
];

beforeAll(async () => {
  const now = Date.now();
  await (await indexOf("acme-widgets.test"))
    .insert(phones)
    .values([
      {
        domain: "acme-widgets.test",
        email: "jane.cooper@acme-widgets.test",
        e164: "+14155552671",
        source: "import",
        firstSeenAt: now,
        lastSeenAt: now,
      },
      {
        domain: "acme-widgets.test",
        email: "jane.cooper@acme-widgets.test",
        e164: "+14155550000",
        source: "import",
        firstSeenAt: now - 1000,
        lastSeenAt: now - 1000,
      },
    ])
    .onConflictDoNothing();
});

/** Runs a finder job with these options; answers the job and its rows as objects keyed by column (JSON download: exact values). */
async function run(options: Record<string, unknown>, rows = PEOPLE, who?: TestAccount) {
  // A fresh account per job: an account creates at most 15 finder jobs a day.
  who ??= await createAccount({ plan: "scale" });
  const id = await createdId(
    await createJob(who, "finder", { name: "Finder options", data: rows, launch: true, ...options }),
  );
  const job = await waitForEnd(who, "finder", id);
  expect(job.status).toBe("completed");
  const { header, rows: out } = (await (
    await call(`/v1/bulk/finder/${id}/download?format=json`, { headers: who.headers })
  ).json()) as { header: string[]; rows: string[][] };
  // Result columns come after the input's own.
  const width = rows[0]!.length;
  const byColumn = out.map((r) => Object.fromEntries(header.map((h, i) => [i < width ? `in:${h}` : h, r[i]!])));
  return { id, job, rows: byColumn, header };
}

const statusOf = (rows: Record<string, string>[]) => rows.map((r) => `${r["in:first_name"]}:${r.bulk_status}`);

describe("bulk finder options", () => {
  it("max_emails_per_domain (former name: maximum) looks up at most that many rows per domain, in file order", async () => {
    const rows = [...PEOPLE, ["Jörg", "Müller", "blau-gmbh.test"]];
    for (const option of [{ max_emails_per_domain: 1 }, { maximum: "1" }]) {
      const { job, rows: out } = await run(option, rows);
      expect(job.config.options.max_emails_per_domain).toBe(1);
      expect(statusOf(out)).toEqual(["Jane:found", "John:skipped", "Mary:skipped", "Peter:skipped", "Jörg:found"]);
      expect(out[1]!.bulk_error).toBe("max_emails_per_domain (1) reached for acme-widgets.test");
      expect(job.metrics.rows).toMatchObject({ input: 5, valid_input: 2, skipped: 3 });
      expect(job.metrics.results.found).toBe(2);
    }
  });

  it("email_type with email_type_mode=only withholds addresses of the other type, unbilled; priority keeps them and says their type", async () => {
    const generic = await run({ email_type: "generic", email_type_mode: "only" }, PEOPLE.slice(0, 2));
    expect(statusOf(generic.rows)).toEqual(["Jane:not_found"]);
    expect(generic.rows[0]).toMatchObject({
      email: "",
      bulk_error: "the address found is personal; email_type=generic keeps only generic addresses",
    });
    expect(generic.job.metrics.credits.search).toBe(0);

    const personal = await run({ email_type: "personal" }, PEOPLE.slice(0, 2));
    expect(personal.rows[0]).toMatchObject({
      bulk_status: "found",
      email: "jane.cooper@acme-widgets.test",
      type: "personal",
    });

    const priority = await run({ email_type: "generic", email_type_mode: "priority" }, PEOPLE.slice(0, 2));
    expect(priority.rows[0]).toMatchObject({
      bulk_status: "found",
      email: "jane.cooper@acme-widgets.test",
      type: "personal",
    });
  });

  it("departments with departments_mode only (several departments), exclude and priority", async () => {
    const only = await run({ departments: ["sales", "finance"], departments_mode: "only" });
    expect(statusOf(only.rows)).toEqual(["Jane:not_found", "John:found", "Mary:found", "Peter:not_found"]);
    expect(only.rows[0]!.bulk_error).toBe(
      "the person's department is engineering; departments=sales,finance keeps only those",
    );
    expect(only.rows[3]!.bulk_error).toBe(
      "the person's department is unknown; departments=sales,finance keeps only those",
    );
    expect(only.job.metrics.credits.search).toBe(2);

    const exclude = await run({ departments: "engineering", departments_mode: "exclude" });
    expect(statusOf(exclude.rows)).toEqual(["Jane:not_found", "John:found", "Mary:found", "Peter:found"]);
    expect(exclude.rows[0]!.bulk_error).toBe(
      "the person's department (engineering) is excluded (departments_mode=exclude)",
    );

    const priority = await run({ departments: ["sales"], departments_mode: "priority" });
    expect(statusOf(priority.rows)).toEqual(["Jane:found", "John:found", "Mary:found", "Peter:found"]);

    // The former object form, and an unknown department.
    const legacy = await run({ department: { name: ["sales", "finance"], priority_type: "exclude" } });
    expect(statusOf(legacy.rows)).toEqual(["Jane:found", "John:not_found", "Mary:not_found", "Peter:found"]);
    const bad = await createJob(await createAccount(), "finder", {
      name: "Bad department",
      data: PEOPLE,
      departments: ["janitorial"],
    });
    expect(bad.status).toBe(400);
    expect((await json(bad)).errors.message).toMatch(
      /^The parameter 'departments.0' is invalid: expected departments among engineering, finance, /,
    );
  });

  it("find_phones (former name: phone) adds the person's best number and bills a phone credit per number", async () => {
    const fresh = await createAccount({ plan: "pro" });
    for (const option of [{ find_phones: true }, { phone: "true" }]) {
      const { rows } = await run(option, PEOPLE.slice(0, 2), fresh);
      expect(rows[0]).toMatchObject({
        email: "jane.cooper@acme-widgets.test",
        phone: "+14155552671",
        phone_type: expect.any(String),
      });
    }
    const balances = async () => (await limiterFor(env as unknown as Env, fresh.accountId).balances("pro")).phone.used;
    // Two jobs, one number each; the second is the same request within 30 days, so it is free.
    await settle(async () => (await balances()) === 1);
  });

  it("find_all_phones (former name: full) lists every stored number, one phone credit each", async () => {
    const fresh = await createAccount({ plan: "pro" });
    const { rows, job } = await run({ find_all_phones: true }, PEOPLE.slice(0, 3), fresh);
    expect(rows[0]).toMatchObject({ phone: "+14155552671; +14155550000", phone_type: expect.stringContaining("; ") });
    expect(rows[1]!.phone).toBe("");
    expect(job.metrics.credits.phone).toBe(2);
    await settle(
      async () => (await limiterFor(env as unknown as Env, fresh.accountId).balances("pro")).phone.used === 2,
    );
    const legacy = await run({ full: "1" }, PEOPLE.slice(0, 2), fresh);
    expect(legacy.rows[0]!.phone).toBe("+14155552671; +14155550000");
  });

  it("verify_emails=false (former name: verify) skips the verifier: no verification status", async () => {
    const verified = await run({}, PEOPLE.slice(0, 2));
    expect(verified.rows[0]!["verification.status"]).toBe("unknown");
    for (const option of [{ verify_emails: false }, { verify: "false" }]) {
      const { rows, job } = await run(option, PEOPLE.slice(0, 2));
      expect(job.config.options.verify_emails).toBe(false);
      expect(rows[0]).toMatchObject({ email: "jane.cooper@acme-widgets.test", "verification.status": "" });
    }
  });

  it("boost_score_from_sources=false (former name: valid) scores an address seen on the pages from its format alone", async () => {
    const boosted = await run({}, [PEOPLE[0]!, PEOPLE[1]!, PEOPLE[4]!]);
    expect(boosted.rows.map((r) => r.score)).toEqual(["95", expect.any(String)]);
    const formatScore = boosted.rows[1]!.score;
    expect(Number(formatScore)).toBeLessThan(95);
    for (const option of [{ boost_score_from_sources: false }, { valid: "0" }]) {
      const { rows } = await run(option, [PEOPLE[0]!, PEOPLE[1]!, PEOPLE[4]!]);
      // Jane (seen on the team page) now scores as Peter (built from the same format) does.
      expect(rows.map((r) => r.score)).toEqual([formatScore, formatScore]);
    }
  });

  it("include_sources (former name: sources) adds the pages each address was seen on", async () => {
    for (const option of [{ include_sources: true }, { sources: "1" }]) {
      const { rows } = await run(option, PEOPLE.slice(0, 2));
      expect(rows[0]!.sources).toBe("https://acme-widgets.test/team");
    }
  });

  it("skip_rows_with_email (former name: skip) leaves rows that have an address alone", async () => {
    const rows = [
      ["first_name", "last_name", "domain", "email"],
      ["Jane", "Cooper", "acme-widgets.test", ""],
      ["John", "Smith", "acme-widgets.test", "john@acme-widgets.test"],
    ];
    for (const option of [{ skip_rows_with_email: true }, { skip: "true" }]) {
      const { rows: out } = await run(option, rows);
      expect(statusOf(out)).toEqual(["Jane:found", "John:skipped"]);
    }
  });

  it("one-based column_* (former names of the zero-based *_field_index) pick the columns", async () => {
    const account = await createAccount();
    const csv = "a,b,c,d\nx,acme-widgets.test,Jane,Cooper\ny,acme-widgets.test,John,Smith\n";
    const form = csvForm(csv, {
      name: "Legacy columns",
      column_domain: "2",
      column_first: "3",
      column_last: "4",
      launch: "true",
    });
    const id = await createdId(await createJob(account, "finder", form));
    const job = await waitForEnd(account, "finder", id);
    expect(job.config.input.fields).toEqual({
      domain_field_index: 1,
      first_name_field_index: 2,
      last_name_field_index: 3,
    });
    const csvOut = parseCsv(await (await call(`/v1/bulk/finder/${id}/download`, { headers: account.headers })).text());
    expect(csvOut.slice(1).map((r) => r[4])).toEqual(["jane.cooper@acme-widgets.test", "john.smith@acme-widgets.test"]);
  });

  it("notify (former name: notifie) without webhook_url sends the signed end event to the account's bulk_job_ended webhooks", async () => {
    const owner = await createAccount();
    const refused = await createJob(owner, "finder", {
      name: "Nobody to tell",
      data: PEOPLE.slice(0, 2),
      notify: true,
    });
    expect(refused.status).toBe(400);

    const key = uniqueKey();
    const hook = await act(owner, "POST", "/v1/webhooks", {
      name: "Bulk ends",
      url: `https://receiver.test/ok/${key}`,
      event: "bulk_job_ended",
      headers: { "X-Receiver-Token": "t0k" },
    });
    expect(hook.status).toBeLessThan(300);
    const { id } = await run({ notifie: "1" }, PEOPLE.slice(0, 2), owner);
    const [event] = await waitForRequests(key, 1);
    expect(event!.headers["x-receiver-token"]).toBe("t0k");
    const secret = (await json(await call("/v1/bulk/webhook-secret", { headers: owner.headers }))).data.secret;
    const payload = new Webhook(secret).verify(event!.body, event!.headers) as {
      type: string;
      data: { id: number; status: string; summary: string };
    };
    expect(payload).toMatchObject({ type: "bulk.job.ended", data: { id, status: "completed", summary: "1 found." } });
    const { job } = await getJob(owner, "finder", id);
    expect(job.config.notify).toBe(true);
  });
});

describe("bulk search options", () => {
  it("applies several departments, exclude and priority modes, max_emails_per_domain and verify_emails to each domain's list", async () => {
    const account = await createAccount({ plan: "scale" });
    const listed = (
      await json(await call("/v1/domain-search?domain=acme-widgets.test&limit=100", { headers: account.headers }))
    ).data.emails as { email: string; type: string; department: string | null }[];
    expect(listed.length).toBeGreaterThan(4);
    const search = async (options: Record<string, unknown>) => {
      const id = await createdId(
        await createJob(account, "search", {
          name: "Search options",
          list: "acme-widgets.test",
          launch: true,
          ...options,
        }),
      );
      await waitForEnd(account, "search", id);
      const { header, rows } = (await (
        await call(`/v1/bulk/search/${id}/download?format=json`, { headers: account.headers })
      ).json()) as { header: string[]; rows: string[][] };
      return Object.fromEntries(header.map((h, i) => [h, rows[0]![i]!]));
    };
    const emails = (list: { email: string }[]) => list.map((e) => e.email).join("; ");

    const several = await search({ departments: ["sales", "engineering"] });
    expect(several.emails).toBe(
      emails(listed.filter((e) => e.department === "sales" || e.department === "engineering")),
    );
    const exclude = await search({ departments: "engineering", departments_mode: "exclude" });
    expect(exclude.emails).toBe(emails(listed.filter((e) => e.department !== "engineering")));
    const priority = await search({ email_type: "generic", email_type_mode: "priority", max_emails_per_domain: 5 });
    expect(priority.emails).toBe(
      emails(
        [...listed.filter((e) => e.type === "generic"), ...listed.filter((e) => e.type !== "generic")].slice(0, 5),
      ),
    );
    const verified = await search({ verify_emails: true, max_emails_per_domain: 1 });
    expect(verified.verification).toMatch(/^(valid|invalid|accept_all|webmail|disposable|unknown)$/);
    const none = await search({ departments: ["legal"] });
    expect(none).toMatchObject({
      emails: "",
      bulk_status: "not_found",
      bulk_error: expect.stringMatching(/none kept by the job's email_type and departments filters|^$/),
    });
  });
});

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addKey, call, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";
import { Browser, confirmedUser, ORIGIN } from "./support.js";

const csrfOf = (html: string) => /<meta name="csrf-token" content="([^"]+)"/.exec(html)![1]!;

/** Polls a /v1 read until `done` holds (request-log rows and usage arrive through a queue). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value!: T;
  await settle(async () => {
    value = await read();
    return done(value);
  });
  return value;
}

describe("every page, for a signed-in account", () => {
  it("renders, labelled, with the page's own data read from /v1", async () => {
    const { browser, email, accountId } = await confirmedUser();
    const key = await addKey(accountId);
    await call("/v1/leads", {
      method: "POST",
      headers: { ...key.headers, "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", first_name: "Ada", company: '=HYPERLINK("x")' }),
    });
    const pages: [string, string][] = [
      ["/app", "Search credits"],
      ["/app/keys", key.key],
      ["/app/try", "GET /v1/phone-validator"],
      ["/app/try?capability=email-finder", "GET /v1/email-finder"],
      ["/app/try?capability=email-verifier", "Verify an email address"],
      ["/app/bulk", "Upload a CSV"],
      ["/app/logs", "Request logs"],
      ["/app/leads", "ada@example.com"],
      ["/app/lists", "Create list"],
      ["/app/webhooks", "Add a webhook"],
    ];
    for (const [path, expected] of pages) {
      const res = await browser.get(path);
      const html = await res.text();
      expect(res.status, path).toBe(200);
      expect(html, path).toContain(expected);
      expect(html, path).toContain(email);
      expect(res.headers.get("content-security-policy"), path).toContain("script-src 'self'");
      expect(res.headers.get("cache-control"), path).toBe("no-store");
      // Every visible control has a label (for= an id that exists), an aria-label, or is a button.
      const ids = new Set([...html.matchAll(/<label[^>]* for="([^"]+)"/g)].map((m) => m[1]));
      for (const control of html.match(/<(input|select|textarea)\b[^>]*>/g) ?? []) {
        if (/type="hidden"/.test(control)) continue;
        const id = /\bid="([^"]+)"/.exec(control)?.[1];
        expect((id && ids.has(id)) || /aria-label=/.test(control), `${path}: unlabelled ${control}`).toBeTruthy();
      }
    }
    // The lead's page and its CSV export (spreadsheet formulas neutralised, as every CSV the service writes).
    const leadId = /href="\/app\/leads\/(\d+)"/.exec(await (await browser.get("/app/leads")).text())![1];
    expect(await (await browser.get(`/app/leads/${leadId}`)).text()).toContain('value="Ada"');
    const csv = await (await browser.get("/app/leads/export.csv")).text();
    expect(csv.split("\r\n")[0]).toBe(
      "id,email,first_name,last_name,company,position,website_url,phone_number,country,score,notes,list,created_at,updated_at",
    );
    expect(csv).toContain(`${leadId},ada@example.com,Ada,,"'=HYPERLINK(""x"")"`);
  });

  it("a Try it call is a real /v1 call: billed, counted under the dashboard searches, logged from the website", async () => {
    const { browser, accountId } = await confirmedUser();
    const key = await addKey(accountId);
    const csrf = csrfOf(await (await browser.get("/app/try?capability=phone-validator")).text());
    const res = await browser.post("/app/try", { csrf, capability: "phone-validator", phone: "+33612345678" });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain("Billed: 1 phone credit.");
    expect(html).toContain("&quot;e164_format&quot;: &quot;+33612345678&quot;");

    const limits = await json(await call("/v1/rate-limits", { headers: key.headers }));
    expect(limits.data.searches.daily.used).toBe(1);
    expect(limits.data["phone-validator"].daily.used).toBe(0);
    expect(limits.credits.phone.used).toBe(1);
    const usage = await json(await call("/v1/usage", { headers: key.headers }));
    expect(usage.total).toMatchObject({ phones: 1, source_website: 1, website: 1, source_api: 0 });
    const logs = await eventually(
      async () =>
        (await json(await call("/v1/logs", { headers: key.headers }))).data as {
          endpoint: string;
          source: string;
          cost: boolean;
        }[],
      (rows) => rows.some((r) => r.endpoint === "/v1/phone-validator"),
    );
    expect(logs.filter((r) => r.endpoint === "/v1/phone-validator")).toEqual([
      expect.objectContaining({ source: "Website", cost: true }),
    ]);
    // Drawing the pages is not the account's traffic: no /v1/rate-limits or /v1/me rows from the dashboard.
    expect(logs.filter((r) => r.source === "Website")).toHaveLength(1);

    // The same request again within 30 days is free, as on /v1.
    const again = await (
      await browser.post("/app/try", { csrf, capability: "phone-validator", phone: "+33612345678" })
    ).text();
    expect(again).toContain("the same request was billed in the last 30 days");
  });

  it("dashboard searches have the plan's limits: a free account's second call in a second is refused 429", async () => {
    const { browser, accountId } = await confirmedUser("free");
    const csrf = csrfOf(await (await browser.get("/app/try?capability=phone-validator")).text());
    // Sent together: sent one after the other, a busy machine could take a second over the first.
    const answers = await Promise.all(
      ["+33612345601", "+33612345602"].map((phone) =>
        browser.post("/app/try", { csrf, capability: "phone-validator", phone }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 429]);
    expect(await answers.find((a) => a.status === 429)!.text()).toContain("rate_limit");
    expect(accountId).toBeGreaterThan(0);
  });

  it("keys: created with the secret shown once, renamed, rolled and revoked through /v1 (its cap and its answers)", async () => {
    const { browser, accountId } = await confirmedUser("free");
    const csrf = csrfOf(await (await browser.get("/app/keys")).text());
    const created = await (await browser.post("/app/keys", { csrf, name: "CRM sync", expires_in_days: "30" })).text();
    const key = /<code id="new-key">([^<]+)</.exec(created)![1]!;
    const secret = /<code id="new-secret">([^<]+)</.exec(created)![1]!;
    expect((await call("/v1/me", { headers: { "X-Service-Key": key, "X-Service-Secret": secret } })).status).toBe(200);
    const listed = await (await browser.get("/app/keys")).text();
    expect(listed).not.toContain(secret);
    const id = (await env.DB.prepare("SELECT id, expires_at, created_at FROM api_keys WHERE public_key = ?")
      .bind(key)
      .first<{ id: number; expires_at: number; created_at: number }>())!;
    expect(id.expires_at - id.created_at).toBe(30 * 86_400_000);

    expect((await browser.post(`/app/keys/${id.id}/rename`, { csrf, name: "Renamed" })).headers.get("location")).toBe(
      "/app/keys?ok=renamed",
    );
    const rolled = await (await browser.post(`/app/keys/${id.id}/roll`, { csrf })).text();
    const newSecret = /<code id="new-secret">([^<]+)</.exec(rolled)![1]!;
    expect(newSecret).not.toBe(secret);
    expect((await call("/v1/me", { headers: { "X-Service-Key": key, "X-Service-Secret": secret } })).status).toBe(401);
    // A free plan allows 2 active keys: /v1's cap answers the third.
    await browser.post("/app/keys", { csrf, name: "second" });
    const third = await browser.post("/app/keys", { csrf, name: "third" });
    expect(third.status).toBe(422);
    expect(await third.text()).toContain("keys_limit_reached");
    expect((await browser.post(`/app/keys/${id.id}/revoke`, { csrf })).headers.get("location")).toBe(
      "/app/keys?ok=revoked",
    );
    expect((await call("/v1/me", { headers: { "X-Service-Key": key, "X-Service-Secret": newSecret } })).status).toBe(
      401,
    );
    // Someone else's key is a 404 from /v1, not a change.
    const stranger = await confirmedUser();
    const foreign = await stranger.browser.post(`/app/keys/${id.id}/rename`, {
      csrf: csrfOf(await (await stranger.browser.get("/app/keys")).text()),
      name: "mine now",
    });
    expect(foreign.status).toBe(404);
    expect(accountId).toBeGreaterThan(0);
  });

  it("bulk: preview, upload, estimate, launch, follow, download, through the /v1 bulk routes", async () => {
    const { browser } = await confirmedUser();
    const page = await (await browser.get("/app/bulk?type=phone-validator")).text();
    const csrf = csrfOf(page);
    const rows = Array.from({ length: 20 }, (_, i) => `row ${i + 1};+3361${String(i).padStart(7, "0")}`);
    const text = ["Label;Mobile", ...rows].join("\n");
    const preview = await browser.fetch("/app/bulk/columns/phone-validator", {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": csrf, origin: ORIGIN },
      body: JSON.stringify({ text }),
    });
    expect(preview.status).toBe(200);
    const columns = await preview.json<{
      header: string[];
      rows: string[][];
      fields: Record<string, number>;
      choices: { field: string }[];
    }>();
    expect(columns.header).toEqual(["Label", "Mobile"]);
    expect(columns.rows[0]).toEqual(["row 1", "+33610000000"]);
    expect(columns.fields).toEqual({ phone_field_index: 1 });
    expect(columns.choices.map((c) => c.field)).toEqual(["phone_field_index", "country_field_index"]);

    const action = /id="bulk-upload"[^>]* action="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&");
    const form = new FormData();
    form.append("name", "Phones from the dashboard");
    form.append("phone_field_index", "1");
    form.append("file", new File([text], "phones.csv", { type: "text/csv" }));
    const upload = await browser.fetch(action, { method: "POST", headers: { origin: ORIGIN }, body: form });
    expect(upload.status, await upload.clone().text()).toBe(303);
    const jobPath = upload.headers.get("location")!;
    expect(jobPath).toMatch(/^\/app\/bulk\/phone-validator\/\d+$/);
    const pending = await (await browser.get(jobPath)).text();
    expect(pending).toContain("20 rows to run, at most 20 phone credits.");
    expect((await browser.post(`${jobPath}/launch`, { csrf })).headers.get("location")).toBe(`${jobPath}?ok=launch`);
    const progress = await eventually(
      async () =>
        (await browser.get(`${jobPath}/progress`)).json<{
          status: boolean;
          progress: number;
          processed: number;
          rows_per_second: number;
          total: number;
        }>(),
      (p) => p.status,
    );
    expect(progress).toMatchObject({ status: true, progress: 100, processed: 20, total: 20 });
    const done = await (await browser.get(`${jobPath}?ok=launch`)).text();
    expect(done).toContain("<strong>Summary:</strong> 20 found.");
    expect(done).toContain("20 of 20 rows (100%)");
    expect(done).not.toContain("The job was launched.");
    const download = await browser.get(`${jobPath}/download?file=full`);
    expect(download.headers.get("content-type")).toMatch(/text\/csv/);
    const lines = (await download.text()).trim().split(/\r?\n/);
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe(
      "Label,Mobile,valid,e164_format,intl_format,line_type,country_code,carrier,bulk_status,bulk_error",
    );
    // A finished job cannot be cancelled: /v1's 409 is shown on the page.
    const cancel = await browser.post(`${jobPath}/cancel`, { csrf });
    expect(cancel.status).toBe(409);
    expect(await cancel.text()).toContain("invalid_state");
  });

  it("webhooks: created, sent a test delivery that is signed and logged, disabled", async () => {
    const { browser } = await confirmedUser();
    const csrf = csrfOf(await (await browser.get("/app/webhooks")).text());
    const box = `dash-${crypto.randomUUID()}`;
    const created = await browser.post("/app/webhooks", {
      csrf,
      name: "CRM",
      url: `https://receiver.test/ok/${box}`,
      event: "save_lead",
      method: "POST",
      headers: "Authorization: Bearer receiver-token",
    });
    expect(created.headers.get("location")).toBe("/app/webhooks?ok=created");
    const id = /href="\/app\/webhooks\/(\d+)"/.exec(await (await browser.get("/app/webhooks")).text())![1];
    expect((await browser.post(`/app/webhooks/${id}/test`, { csrf })).headers.get("location")).toBe(
      "/app/webhooks?ok=test",
    );
    const received = await eventually(
      async () =>
        (
          await (
            await fetch(`https://receiver.test/__log/${box}`)
          ).json<{ requests: { headers: Record<string, string>; body: string }[] }>()
        ).requests,
      (r) => r.length > 0,
    );
    expect(received[0]!.headers.authorization).toBe("Bearer receiver-token");
    expect(received[0]!.headers["webhook-signature"]).toMatch(/^v1,/);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ test: true, data: { email: "jane.doe@example.com" } });
    const log = await eventually(
      async () => (await browser.get(`/app/webhooks/${id}`)).text(),
      (html) => html.includes(">delivered<"),
    );
    expect(log).toContain(">delivered<");
    await browser.post(`/app/webhooks/${id}/disable`, { csrf });
    const refused = await browser.post(`/app/webhooks/${id}/test`, { csrf });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("is disabled; enable it to send a test delivery");
    // Headers that are not "Name: value" are refused before /v1 is asked.
    expect(
      (
        await browser.post("/app/webhooks", {
          csrf,
          name: "Bad",
          url: "https://receiver.test/ok/x",
          headers: "no colon here",
        })
      ).status,
    ).toBe(400);
  });

  it("a stranger's session reads nothing of another account", async () => {
    const owner = await confirmedUser();
    const key = await addKey(owner.accountId);
    await call("/v1/leads", {
      method: "POST",
      headers: { ...key.headers, "content-type": "application/json" },
      body: JSON.stringify({ email: "secret-lead@example.com" }),
    });
    const stranger = await confirmedUser();
    expect(await (await stranger.browser.get("/app/leads")).text()).not.toContain("secret-lead@example.com");
    expect(await (await stranger.browser.get("/app/leads/export.csv")).text()).not.toContain("secret-lead@example.com");
    expect(new Browser().cookies.size).toBe(0);
  });
});

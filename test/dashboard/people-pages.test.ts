import { describe, expect, it } from "vitest";
import { addKey, call } from "../support/accounts.js";
import { settle } from "../support/settle.js";
import { confirmedUser, ORIGIN, signUp } from "./support.js";

const csrfOf = (html: string) => /<meta name="csrf-token" content="([^"]+)"/.exec(html)![1]!;
const optionsOf = (html: string, select: string) => {
  const block = new RegExp(`<select id="${select}"[^>]*>([\\s\\S]*?)</select>`).exec(html)![1]!;
  return [...block.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]!);
};

describe("pages written for people", () => {
  it("Try it lists each capability once, by what it does, with no legacy path, and opens on one that works offline", async () => {
    const { browser } = await confirmedUser();
    const html = await (await browser.get("/app/try")).text();
    const names = optionsOf(html, "capability");
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain("phone-legacy");
    expect(names).toContain("email-verifier");
    expect(html).toContain(
      '<option value="phone-validator" selected="">Check a phone number (try this first)</option>',
    );
    expect(html).toContain("Verify an email address");
  });

  it("Try it shows a yes/no option as one checkbox, labelled in words", async () => {
    const { browser } = await confirmedUser();
    const html = await (await browser.get("/app/try?capability=email-finder")).text();
    expect(html).toMatch(/<input id="p-enrich_mobile" name="enrich_mobile" type="checkbox" value="true"/);
    expect(html).toContain("Also look for a mobile number");
    expect(html).not.toContain(">enrich_mobile<");
  });

  it("Try it says the price and what is left before the try", async () => {
    const { browser } = await confirmedUser("free");
    const html = await (await browser.get("/app/try")).text();
    expect(html).toContain("1 phone credit when something is found. You have 5 phone credits left.");
    expect(html).toMatch(/\d+ dashboard searches left today\./);
  });

  it("a phone's answer is a card with its line type, and the JSON is one click away", async () => {
    const { browser } = await confirmedUser();
    const csrf = csrfOf(await (await browser.get("/app/try")).text());
    const html = await (
      await browser.post("/app/try", { csrf, capability: "phone-validator", phone: "+33612345678" })
    ).text();
    expect(html).toContain('<article class="result phone">');
    expect(html).toMatch(/Mobile · country FR/);
    expect(html).toContain("<summary>Show the JSON</summary>");
    expect(html).toContain("&quot;line_type&quot;: &quot;MOBILE&quot;");
  });

  it("a bad phone number is answered in words that say what to fix, and is not billed", async () => {
    const { browser } = await confirmedUser();
    const csrf = csrfOf(await (await browser.get("/app/try")).text());
    const res = await browser.post("/app/try", { csrf, capability: "phone-validator", phone: "12" });
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(html).toContain("Check the form:");
    expect(html).toContain("Not billed.");
  });

  it("too many tries in a minute on the free plan are answered with when to come back, not with backoff advice", async () => {
    const { browser } = await confirmedUser("free");
    const csrf = csrfOf(await (await browser.get("/app/try")).text());
    let last: Response | undefined;
    for (let i = 0; i < 3; i++)
      last = await browser.post("/app/try", { csrf, capability: "phone-validator", phone: `+3361234560${i}` });
    const html = await last!.text();
    expect(last!.status).toBe(429);
    expect(html).toContain("quicker than your plan allows");
    expect(html).toMatch(/Try again in \d+ seconds?\./);
  });

  it("a new account's overview says one thing (confirm), with no error code, and lists the first steps", async () => {
    const { browser } = await signUp();
    const html = await (await browser.get("/app?ok=welcome")).text();
    expect(html.match(/class="(warning|error|success)"/g)).toEqual(['class="warning"']);
    expect(html).toContain("Your account is ready.");
    expect(html).not.toMatch(/account_unconfirmed|\b401\b/);
    for (const step of [
      "Confirm your email address",
      "Create your first API key",
      "Run your first search",
      "Upload your first list",
    ])
      expect(html).toContain(step);
  });

  it("a confirmed account's overview opens on a company search, shows no empty limits table, and ticks the steps done", async () => {
    const { browser, accountId } = await confirmedUser();
    await addKey(accountId);
    const html = await (await browser.get("/app")).text();
    expect(html).toContain('<input type="hidden" name="capability" value="domain-search"/>');
    expect(html).toContain("No searches yet today.");
    expect(html).not.toContain("Free</p>");
    expect(html).toMatch(/<span class="done">Create your first API key/);
  });

  it("the overview names today's use as the request logs filter does, and links each to its requests", async () => {
    const { browser, accountId } = await confirmedUser();
    const key = await addKey(accountId);
    expect((await call("/v1/phone-validator?phone=%2B33612345678", { headers: key.headers })).status).toBe(200);
    const html = await (await browser.get("/app")).text();
    expect(html).toContain('<a href="/app/logs?type=Phone+Validator">Phone Validator</a>');
    const logs = await (await browser.get("/app/logs?type=Phone+Validator")).text();
    expect(optionsOf(logs, "f-type")).toContain("Phone Validator");
    expect(logs).toContain('<option value="Phone Validator" selected="">');
  });

  it("the home page uses the dashboard's stylesheet", async () => {
    const res = await call("/", { headers: { accept: "text/html" } });
    const html = await res.text();
    expect(html).toContain('<link rel="stylesheet" href="/app/assets/app.css"/>');
    expect(html).toContain('href="/app/sign-up"');
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
  });

  it("a finished bulk job's figures agree: found on the table's base, invalid rows apart, credits explained", async () => {
    const { browser } = await confirmedUser();
    const page = await (await browser.get("/app/bulk?type=phone-validator")).text();
    const csrf = csrfOf(page);
    const action = /id="bulk-upload"[^>]* action="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&");
    const form = new FormData();
    form.append("name", "Three good, one bad");
    form.append("phone_field_index", "0");
    const text = ["Mobile", "+33612345671", "+33612345672", "+33612345673", "12"].join("\n");
    form.append("file", new File([text], "phones.csv", { type: "text/csv" }));
    const upload = await browser.fetch(action, { method: "POST", headers: { origin: ORIGIN }, body: form });
    const jobPath = upload.headers.get("location")!;
    await browser.post(`${jobPath}/launch`, { csrf });
    let html = "";
    await settle(async () => {
      html = await (await browser.get(`${jobPath}?ok=launch`)).text();
      return html.includes("Credits used");
    });
    expect(html).toContain("3 of 4 rows (75%)");
    expect(html).toContain('<td class="num">75%</td>');
    expect(html).toMatch(/Not looked up<\/dt><dd>1: 1 invalid/);
    expect(html).toContain("a lookup already billed in the last 30 days");
    expect(html).not.toContain("The job was launched.");
  });
});

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createAccount, json } from "../support/accounts.js";

const account = await createAccount();
const columns = (type: string, body: unknown) =>
  call(`/v1/bulk/${type}/columns`, {
    method: "POST",
    headers: { ...account.headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("POST /v1/bulk/{type}/columns", () => {
  it("reads the first lines as a create would (delimiter, header) and names the columns it would use", async () => {
    const res = await columns("finder", {
      text: "First Name;Last Name;Company Domain\nJane;Cooper;acme.com\nAda;Lovelace;example.org\n",
    });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.header).toEqual(["First Name", "Last Name", "Company Domain"]);
    expect(data.rows).toEqual([
      ["Jane", "Cooper", "acme.com"],
      ["Ada", "Lovelace", "example.org"],
    ]);
    expect(data.fields).toEqual({ first_name_field_index: 0, last_name_field_index: 1, domain_field_index: 2 });
    expect(data.problem).toBeNull();
  });

  it("recognises a column by its values, takes explicit indexes as given, and says why when nothing is usable", async () => {
    const byValues = (await json(await columns("verifier", { text: "a,b\n1,jane@acme.com\n2,ada@example.org\n" })))
      .data;
    expect(byValues.fields).toEqual({ email_field_index: 1 });
    const explicit = (await json(await columns("verifier", { text: "a,b\n1,jane@acme.com\n", email_field_index: 0 })))
      .data;
    expect(explicit.fields).toEqual({ email_field_index: 0 });
    const none = (await json(await columns("finder", { text: "colour,size\nred,3\nblue,4\n" }))).data;
    expect(none.fields).toEqual({});
    expect(none.problem).toMatch(/has no usable column: finder jobs need/);
    expect(none.rows).toHaveLength(2);
  });

  it("stores nothing, and refuses what a create would refuse", async () => {
    const before = await env.DB.prepare("SELECT count(*) AS n FROM bulk_jobs WHERE account_id = ?")
      .bind(account.accountId)
      .first<{ n: number }>();
    await columns("finder", { text: "domain\nacme.com\n" });
    const after = await env.DB.prepare("SELECT count(*) AS n FROM bulk_jobs WHERE account_id = ?")
      .bind(account.accountId)
      .first<{ n: number }>();
    expect(after!.n).toBe(before!.n);
    expect((await columns("finder", { text: "domain,company\nacme.com,Acme\n", delimiter: ";" })).status).toBe(400);
    expect((await columns("finder", { text: "domain\nacme.com\n", not_an_option: true })).status).toBe(400);
    expect((await columns("finder", { text: "" })).status).toBe(400);
    expect((await columns("nope", { text: "domain\n" })).status).toBe(400);
    expect((await call("/v1/bulk/finder/columns", { method: "POST", body: "{}" })).status).toBe(400);
  });
});

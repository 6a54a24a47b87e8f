import { describe, expect, it } from "vitest";
import { call, json } from "../support/accounts.js";
import { indexD1Of } from "../support/index-db.js";

const operator = { "X-Operator-Secret": "test-operator-secret" };
const post = (body: string, type: string, headers: Record<string, string> = operator) =>
  call("/operator/import", { method: "POST", headers: { "content-type": type, ...headers }, body });

describe("POST /operator/import", () => {
  it("is closed without the operator secret, and with a wrong one", async () => {
    const missing = await post("[]", "application/json", {});
    expect(missing.status).toBe(401);
    expect((await json(missing)).errors.type).toBe("authentication_failed");
    expect((await post("[]", "application/json", { "X-Operator-Secret": "test-operator-secreT" })).status).toBe(401);
  });

  it("loads a CSV of companies, people and phones, and reports rejected lines with reasons", async () => {
    const csv = [
      "kind,domain,email,first_name,last_name,position,seniority,country,linkedin,phone,name,industry",
      'company,umbrella-imports.test,,,,,,US,,+1 212 555 0100,"Umbrella, Inc.",Pharmaceuticals',
      "person,umbrella-imports.test,Alice.Wong@Umbrella-Imports.test,Alice,Wong,Chief Scientist,executive,us,linkedin.com/in/alice-wong-umb/,,,",
      "person,umbrella-imports.test,bob@elsewhere.test,Bob,Stone,,,,,,,",
      "person,umbrella-imports.test,carol@umbrella-imports.test,Carol,,,,ZZ,,,,",
      "phone,umbrella-imports.test,alice.wong@umbrella-imports.test,,,,,FR,,06 12 34 56 78,,",
      "company,,,,,,,,,,Nameless,",
    ].join("\r\n");
    const res = await post(csv, "text/csv");
    expect(res.status).toBe(200);
    const report = await json(res);
    expect(report).toMatchObject({
      accepted: 3,
      rejected: 3,
      by_kind: { company: 1, person: 1, phone: 1 },
      source: "import",
    });
    expect(report.errors).toEqual([
      { line: 4, reason: expect.stringMatching(/does not belong to domain/) },
      { line: 5, reason: expect.stringMatching(/country must be an ISO/) },
      { line: 7, reason: expect.stringMatching(/needs a domain/) },
    ]);

    const company = await (await indexD1Of("umbrella-imports.test"))
      .prepare("SELECT name, industry, phone, source FROM companies WHERE domain = ?")
      .bind("umbrella-imports.test")
      .first();
    expect(company).toEqual({
      name: "Umbrella, Inc.",
      industry: "Pharmaceuticals",
      phone: "+12125550100",
      source: "import",
    });
    const person = await (await indexD1Of("umbrella-imports.test"))
      .prepare("SELECT email, full_name, country, professional_network_url, source FROM people WHERE domain = ?")
      .bind("umbrella-imports.test")
      .first();
    expect(person).toEqual({
      email: "alice.wong@umbrella-imports.test",
      full_name: "Alice Wong",
      country: "US",
      professional_network_url: "https://www.linkedin.com/in/alice-wong-umb",
      source: "import",
    });
    const phones = await (await indexD1Of("umbrella-imports.test"))
      .prepare("SELECT email, e164 FROM phones WHERE domain = ? ORDER BY e164")
      .bind("umbrella-imports.test")
      .all();
    expect(phones.results).toEqual([
      { email: null, e164: "+12125550100" },
      { email: "alice.wong@umbrella-imports.test", e164: "+33612345678" },
    ]);
    const email = await (await indexD1Of("alice.wong@umbrella-imports.test"))
      .prepare("SELECT type, source FROM emails WHERE email = ?")
      .bind("alice.wong@umbrella-imports.test")
      .first();
    expect(email).toEqual({ type: "personal", source: "import" });
  });

  it("is idempotent and keeps stored fields a later row leaves empty", async () => {
    const row = (extra: object) => JSON.stringify({ kind: "company", domain: "hooli-imports.test", ...extra });
    await post(
      [row({ name: "Hooli", city: "Palo Alto" }), row({ name: "Hooli XYZ" })].join("\n"),
      "application/x-ndjson",
    );
    const again = await post(row({ name: "Hooli XYZ" }), "application/x-ndjson");
    expect((await json(again)).accepted).toBe(1);
    const rows = await (await indexD1Of("hooli-imports.test"))
      .prepare("SELECT name, city FROM companies WHERE domain = ?")
      .bind("hooli-imports.test")
      .all();
    expect(rows.results).toEqual([{ name: "Hooli XYZ", city: "Palo Alto" }]);
  });

  it("keys a person without an address on the profile URL, once", async () => {
    const row = {
      kind: "person",
      domain: "profiles-imports.test",
      first_name: "Ada",
      last_name: "Byron",
      linkedin: "https://www.linkedin.com/in/ada-imports-test/",
    };
    await post(JSON.stringify([row]), "application/json");
    await post(JSON.stringify([{ ...row, position: "Analyst" }]), "application/json");
    const rows = await (await indexD1Of("profiles-imports.test"))
      .prepare("SELECT email, full_name, position, source FROM people WHERE professional_network_url = ?")
      .bind("https://www.linkedin.com/in/ada-imports-test")
      .all();
    expect(rows.results).toEqual([{ email: null, full_name: "Ada Byron", position: "Analyst", source: "import" }]);
  });

  it("takes a JSON array and numbers bad rows; NDJSON lines that are not objects are reported", async () => {
    const res = await post(JSON.stringify([{ kind: "robot", domain: "x.test" }, "text"]), "application/json");
    const report = await json(res);
    expect(report).toMatchObject({ accepted: 0, rejected: 2 });
    expect(report.errors[0]).toEqual({ line: 1, reason: expect.stringMatching(/kind must be/) });
    expect(report.errors[1].line).toBe(2);
    const nd = await json(
      await post('{"kind":"company","domain":"ok-imports.test"}\n[1,2]\n{oops', "application/x-ndjson"),
    );
    expect(nd).toMatchObject({ accepted: 1, rejected: 2 });
  });

  it("answers 4xx to an unknown content type, an empty file and broken JSON", async () => {
    expect((await post("a,b", "text/plain")).status).toBe(415);
    expect((await post("kind,domain\n", "text/csv")).status).toBe(400);
    const broken = await post("{", "application/json");
    expect(broken.status).toBe(400);
    expect((await json(broken)).errors.type).toBe("params_invalid");
  });
});

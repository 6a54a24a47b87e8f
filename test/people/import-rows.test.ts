import { describe, expect, it } from "vitest";
import { checkFile, checkRow, parseCsv } from "../../src/import/rows.js";
import { inlineStatement, statementsFor } from "../../src/import/statements.js";

describe("import rows", () => {
  it("parses RFC 4180 CSV: quoted commas, doubled quotes, line breaks inside quotes, CRLF and a BOM", () => {
    const rows = parseCsv(
      '\uFEFFname,description,domain\r\n"Acme, Inc.","He said ""hi""\nthen left",acme.test\r\n\r\nBeta,,beta.test\n',
    );
    expect(rows).toEqual([
      { line: 2, row: { name: "Acme, Inc.", description: 'He said "hi"\nthen left', domain: "acme.test" } },
      { line: 5, row: { name: "Beta", description: "", domain: "beta.test" } },
    ]);
  });

  it("infers the kind, derives the domain from the email and normalises what it keeps", () => {
    const r = checkRow({
      Email: " Jane.Doe@Sub.Example.TEST ",
      First_Name: "Jane",
      Last_Name: "Doe",
      LinkedIn: "linkedin.com/in/Jane-Doe/",
      country: "fr",
    });
    expect(r).toMatchObject({
      ok: true,
      row: {
        kind: "person",
        email: "jane.doe@sub.example.test",
        domain: "sub.example.test",
        fullName: "Jane Doe",
        country: "FR",
        professionalNetworkUrl: "https://www.linkedin.com/in/jane-doe",
        emailType: "personal",
      },
    });
    expect(checkRow({ email: "info@example.test" })).toMatchObject({ ok: true, row: { emailType: "generic" } });
    expect(checkRow({ domain: "example.test", name: "Example" })).toMatchObject({ ok: true, row: { kind: "company" } });
  });

  it("rejects instead of guessing", () => {
    const reasons = [
      checkRow({ kind: "company", domain: "example.test", employee_count: "about 50" }),
      checkRow({ kind: "company", domain: "example.test", company_size: "huge" }),
      checkRow({ kind: "person", email: "a@example.test", gender: "robot" }),
      checkRow({ kind: "person", domain: "example.test", first_name: "Nobody" }),
      checkRow({ kind: "phone", domain: "example.test", phone: "0612345678" }),
      checkRow({ kind: "company", domain: "192.0.2.1" }),
    ].map((r) => (r.ok ? "accepted" : r.reason));
    expect(reasons.every((r) => r !== "accepted")).toBe(true);
    expect(reasons[4]).toMatch(/country/);
  });

  it("writes SQL literals safely for the local script", () => {
    const { rows } = checkFile(
      '{"kind":"company","domain":"quote.test","name":"O\'Brien; DROP TABLE companies"}',
      "ndjson",
    );
    const sql = statementsFor(rows, 1).map(inlineStatement).join("\n");
    expect(sql).toContain("'O''Brien; DROP TABLE companies'");
  });
});

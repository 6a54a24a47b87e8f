import { describe, expect, it } from "vitest";
import { csvLine, neutralise } from "../../src/bulk/csv-out.js";
import { call, createAccount } from "../support/accounts.js";
import { createdId, createJob, parseCsv, waitForEnd } from "./support.js";

/** Cells a spreadsheet would run as formulas (OWASP CSV injection), as they could come in an uploaded file. */
const PAYLOADS = ["=1+1", "+SUM(1,2)", "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1", '=HYPERLINK("https://evil.test","Click")', "=cmd|' /C notepad'!'A1'"];
/** Values that start like a formula but are plain numbers: left as they are. */
const NUMBERS = ["+14155552671", "+1 (415) 555-2671", "-12.5", "+33 6 12 34 56 78"];

describe("CSV downloads neutralise formula cells", () => {
  it("prefixes a single quote to every cell a spreadsheet would run, leaves numbers and phone numbers usable, and keeps JSON exact", async () => {
    const account = await createAccount();
    const rows = [["email", "=notes"], ...[...PAYLOADS, ...NUMBERS].map((p, i) => [`p${i}@acme-verify.test`, p])];
    const id = await createdId(await createJob(account, "verifier", { name: "Hostile cells", data: rows, launch: true }));
    await waitForEnd(account, "verifier", id);

    const csv = parseCsv(await (await call(`/v1/bulk/verifier/${id}/download`, { headers: account.headers })).text());
    expect(csv[0]!.slice(0, 2)).toEqual(["email", "'=notes"]);
    const cells = csv.slice(1).map((r) => r[1]);
    expect(cells.slice(0, PAYLOADS.length)).toEqual(PAYLOADS.map((p) => `'${p}`));
    expect(cells.slice(PAYLOADS.length)).toEqual(NUMBERS);

    const exact = (await (await call(`/v1/bulk/verifier/${id}/download?format=json`, { headers: account.headers })).json()) as { header: string[]; rows: string[][] };
    expect(exact.header.slice(0, 2)).toEqual(["email", "=notes"]);
    expect(exact.rows.map((r) => r[1])).toEqual([...PAYLOADS, ...NUMBERS]);
  });

  it("neutralises each trigger character, and quotes what needs quoting after that", () => {
    for (const c of ["=", "+", "-", "@", "\t", "\r"]) expect(neutralise(`${c}A1`)).toBe(`'${c}A1`);
    expect(neutralise("plain text")).toBe("plain text");
    expect(neutralise("")).toBe("");
    expect(csvLine(["=1,2", 'a"b', "+14155552671"])).toBe(`"'=1,2","a""b",+14155552671`);
  });
});

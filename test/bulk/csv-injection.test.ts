import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { csvLine, neutralise } from "../../src/http/csv.js";
import { call, createAccount } from "../support/accounts.js";
import { createdId, createJob, parseCsv, waitForEnd } from "./support.js";

/** Cells a spreadsheet would run as formulas (OWASP CSV injection), as they could come in an uploaded file. */
const PAYLOADS = [
  "=1+1",
  "+SUM(1,2)",
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '=HYPERLINK("https://evil.test","Click")',
  "=cmd|' /C notepad'!'A1'",
];
/** Values that start like a formula but are plain numbers: left as they are. */
const NUMBERS = ["+14155552671", "+1 (415) 555-2671", "-12.5", "+33 6 12 34 56 78", "+14155552671; +442071234567"];
/**
 * Formulas a cell-start check alone lets through: after a separator (a semicolon locale reads
 * `a;=cmd|x` as two cells, a tab-separated reader splits on tabs, a line reader on line breaks),
 * after leading spaces, and the full-width signs spreadsheets in CJK locales take for their ASCII forms.
 */
const HIDDEN = [
  "a;=cmd|' /C calc'!A0",
  "a,=1+1",
  "a\t=1+1",
  "a\n@SUM(1)",
  "a; =1+1",
  " =1+1",
  "\u3000=1+1",
  "＝1+1",
  "＋1+cmd|x",
  "－1+cmd|x",
  "＠SUM(1)",
  "\t=1+1",
  "\r=1+1",
];

/** How a reader that splits on `separator` (and ignores quotes) sees a CSV line: none of its pieces may start a formula. */
const naivePieces = (line: string, separator: RegExp) =>
  line.split(separator).map((p) => p.replace(/^"/, "").trimStart());
const startsFormula = (piece: string) => /^[=+\-@\t\r＝＋－＠]/.test(piece) && !/^[+-]?[0-9][0-9 ().-]*"?$/.test(piece);

describe("CSV downloads neutralise formula cells", () => {
  it("prefixes a single quote to every cell a spreadsheet would run, leaves numbers and phone numbers usable, and keeps JSON exact", async () => {
    const account = await createAccount();
    const rows = [["email", "=notes"], ...[...PAYLOADS, ...NUMBERS].map((p, i) => [`p${i}@acme-verify.test`, p])];
    const id = await createdId(
      await createJob(account, "verifier", { name: "Hostile cells", data: rows, launch: true }),
    );
    await waitForEnd(account, "verifier", id);

    const csv = parseCsv(await (await call(`/v1/bulk/verifier/${id}/download`, { headers: account.headers })).text());
    expect(csv[0]!.slice(0, 2)).toEqual(["email", "'=notes"]);
    const cells = csv.slice(1).map((r) => r[1]);
    expect(cells.slice(0, PAYLOADS.length)).toEqual(PAYLOADS.map((p) => `'${p}`));
    expect(cells.slice(PAYLOADS.length)).toEqual(NUMBERS);

    const exact = (await (
      await call(`/v1/bulk/verifier/${id}/download?format=json`, { headers: account.headers })
    ).json()) as { header: string[]; rows: string[][] };
    expect(exact.header.slice(0, 2)).toEqual(["email", "=notes"]);
    expect(exact.rows.map((r) => r[1])).toEqual([...PAYLOADS, ...NUMBERS]);
  });

  it("neutralises a formula after a separator, after leading spaces and behind a full-width sign, in every reader's split", () => {
    for (const value of HIDDEN) {
      const line = csvLine(["x", value]);
      // A reader that honours quotes, with a comma or a semicolon as the separator: the cell is one cell, and text.
      for (const delimiter of [",", ";"]) {
        const [cells] = parse(line, { delimiter, relax_quotes: true, relax_column_count: true }) as string[][];
        for (const cell of cells!)
          expect(
            startsFormula(cell.trimStart()),
            `${JSON.stringify(value)} read with '${delimiter}': ${JSON.stringify(cell)}`,
          ).toBe(false);
      }
      // Readers that split without regard to quotes, on commas, semicolons, tabs or line breaks.
      for (const piece of naivePieces(line, /[,;\t\r\n]/))
        expect(startsFormula(piece), `${JSON.stringify(value)} split naively: ${JSON.stringify(piece)}`).toBe(false);
    }
    expect(neutralise("a;=cmd|x")).toBe("a;'=cmd|x");
    expect(csvLine(["a;=cmd|x"])).toBe(`"a;'=cmd|x"`);
    expect(neutralise("＝1+1")).toBe("'＝1+1");
    expect(neutralise(" =1+1")).toBe("' =1+1");
    expect(neutralise("\t=1+1")).toBe("'\t'=1+1");
  });

  it("neutralises each trigger character, leaves plain text and numbers alone, and quotes what needs quoting after that", () => {
    for (const c of ["=", "+", "-", "@", "\t", "\r", "\0", "＝", "＋", "－", "＠"])
      expect(neutralise(`${c}A1`)).toMatch(/^'/);
    for (const plain of [
      "plain text",
      "",
      "Smith, John",
      "a-b",
      "x@y.test",
      "café; bar",
      "12",
      "+14155552671, +442071234567",
    ])
      expect(neutralise(plain)).toBe(plain);
    expect(csvLine(["=1,2", 'a"b', "+14155552671", "a;b", "a\tb"])).toBe(`"'=1,2","a""b",+14155552671,"a;b","a\tb"`);
  });
});

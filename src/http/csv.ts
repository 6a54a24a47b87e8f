/**
 * Every CSV the service writes goes through `csvLine`: RFC 4180 quoting, and no cell a spreadsheet
 * would run as a formula (CSV injection, OWASP). A cell gets a leading single quote, so spreadsheets
 * show it as text, when it starts (after any spaces) with `=`, `+`, `-`, `@`, a tab, a carriage
 * return, a NUL, or one of the full-width and small forms of those signs (`＝ ＋ － ＠`, which
 * spreadsheets in East Asian locales take for the ASCII ones). The same holds for every piece of a
 * cell after a separator (`,` `;` tab, line break): a semicolon locale reads `a;=cmd|x` as two
 * cells, a tab-separated reader splits on tabs, so such a piece gets its quote where it starts
 * (`a;'=cmd|x`), and the cell is quoted so readers that honour quotes keep it whole.
 * Exception: a piece made only of digits and phone punctuation after a leading `+` or `-`
 * (`+14155552671`, `+1 (415) 555-2671`, `-12.5`) is left as it is: a spreadsheet can only read it as
 * a number (no function, no reference, no DDE), and phone numbers stay usable. JSON downloads are
 * never altered.
 */
const SIGNS = "=+\\-@\\t\\r\\0\\uFF1D\\uFF0B\\uFF0D\\uFF20\\uFE66\\uFE62\\uFE63\\uFE6B";
const ANY_SIGN = new RegExp(`[${SIGNS}]`);
const FORMULA_START = new RegExp(`^[ \\u00A0\\u3000]*[${SIGNS}]`);
const NUMBER_LIKE = /^[ \u00A0\u3000]*[+-]?[0-9][0-9 ().-]*$/;
/** Characters a spreadsheet or a naive reader may split a line on. */
const SEPARATORS = new Set([",", ";", "\t", "\r", "\n"]);
const NEEDS_QUOTES = /[",;\t\r\n]/;

const runsAsFormula = (piece: string) => FORMULA_START.test(piece) && !NUMBER_LIKE.test(piece);

export function neutralise(cell: string): string {
  if (!ANY_SIGN.test(cell)) return cell;
  let out = "";
  let start = 0;
  for (let i = 0; i <= cell.length; i++) {
    const at = cell[i];
    if (at !== undefined && !SEPARATORS.has(at)) continue;
    const piece = cell.slice(start, i);
    out += `${runsAsFormula(piece) ? "'" : ""}${piece}${at ?? ""}`;
    start = i + 1;
  }
  // A tab or carriage return is a separator and a trigger: a cell that starts with one is marked too.
  return /^[\t\r]/.test(cell) ? `'${out}` : out;
}

/** One CSV line (without its line break): each cell neutralised, then quoted when it holds a separator, quote or line break. */
export function csvLine(cells: readonly unknown[]): string {
  return cells
    .map((v) => {
      const s = neutralise(v === null || v === undefined ? "" : String(v));
      return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    })
    .join(",");
}

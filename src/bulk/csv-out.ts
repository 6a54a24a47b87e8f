/**
 * Every CSV the service writes goes through `csvLine`: RFC 4180 quoting, and no cell a spreadsheet
 * would run as a formula (CSV injection, OWASP). A cell starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return gets a leading single quote, so spreadsheets show it as text. Exception: a cell
 * made only of digits and phone punctuation after a leading `+` or `-` (`+14155552671`,
 * `+1 (415) 555-2671`, `-12.5`) is left as it is: a spreadsheet can only read it as a number (no
 * function, no reference, no DDE), and phone numbers stay usable. JSON downloads are never altered.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER_LIKE = /^[+-]?[0-9][0-9 ().-]*$/;

export function neutralise(cell: string): string {
  return FORMULA_START.test(cell) && !NUMBER_LIKE.test(cell) ? `'${cell}` : cell;
}

/** One CSV line (without its line break): each cell neutralised, then quoted when it holds a delimiter, quote or line break. */
export function csvLine(cells: readonly unknown[]): string {
  return cells
    .map((v) => {
      const s = neutralise(v === null || v === undefined ? "" : String(v));
      return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    })
    .join(",");
}

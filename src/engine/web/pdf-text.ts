import { loadPdfVendor } from "../../pdf-vendor.js";

/**
 * The text of a PDF document (a staff directory, a report), laid out as the page shows it, for the
 * page extraction to read: each visual line a row, each column of it a cell. PDF.js (through unpdf)
 * does the reading; it is loaded only here, and only the deep crawl calls this.
 */

export interface PdfLimits {
  /** Pages read from the start of the document; the rest are skipped. */
  maxPages: number;
}

interface TextItem {
  str: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Items on one baseline (within a third of the text height) form a line; a gap wider than ~1.5 characters starts a new cell. */
function rowsOf(items: TextItem[]): string[][] {
  const sorted = items.filter((i) => i.str.trim()).sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: TextItem[][] = [];
  for (const item of sorted) {
    const line = lines[lines.length - 1];
    const tolerance = Math.max(2, (item.height || 10) / 3);
    if (line && Math.abs(line[0].y - item.y) <= tolerance) line.push(item);
    else lines.push([item]);
  }
  return lines.map((line) => {
    line.sort((a, b) => a.x - b.x);
    const cells: string[] = [];
    let end = -Infinity;
    for (const item of line) {
      const size = item.height || 10;
      if (cells.length && item.x - end <= size * 1.5)
        cells[cells.length - 1] += (item.x - end > size * 0.15 ? " " : "") + item.str;
      else cells.push(item.str);
      end = item.x + item.width;
    }
    return cells.map((c) => c.replace(/\s+/g, " ").trim()).filter(Boolean);
  });
}

/** The document's text rows (cells per row), page after page, up to `limits.maxPages` pages. */
export async function pdfRows(
  bytes: Uint8Array,
  limits: PdfLimits,
): Promise<{ rows: string[][]; pages: number; pagesRead: number }> {
  const { getDocumentProxy } = await loadPdfVendor();
  // PDF.js may detach the buffer it is given: it gets a copy.
  const doc = await getDocumentProxy(bytes.slice(), { disableFontFace: true, verbosity: 0 });
  try {
    const pagesRead = Math.min(doc.numPages, limits.maxPages);
    const rows: string[][] = [];
    for (let n = 1; n <= pagesRead; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const items = (
        content.items as { str?: string; transform?: number[]; width?: number; height?: number }[]
      ).flatMap((i) =>
        typeof i.str === "string" && i.transform
          ? [{ str: i.str, x: i.transform[4], y: i.transform[5], width: i.width ?? 0, height: i.height ?? 0 }]
          : [],
      );
      rows.push(...rowsOf(items));
      page.cleanup();
    }
    return { rows, pages: doc.numPages, pagesRead };
  } finally {
    await doc.loadingTask.destroy();
  }
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The rows as a plain HTML document, so a PDF is read like a page: a one-cell row is a paragraph,
 * a row of several cells a table row (a staff table's name, title and address side by side).
 */
export function rowsAsHtml(rows: readonly string[][], title: string | null): string {
  const body: string[] = [];
  let table: string[] = [];
  const endTable = () => {
    if (table.length) body.push(`<table>${table.join("\n")}</table>`);
    table = [];
  };
  for (const cells of rows) {
    if (cells.length > 1) table.push(`<tr>${cells.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`);
    else {
      endTable();
      body.push(`<p>${esc(cells[0] ?? "")}</p>`);
    }
  }
  endTable();
  return `<!doctype html><html><head>${title ? `<title>${esc(title)}</title>` : ""}</head><body>${body.join("\n")}</body></html>`;
}

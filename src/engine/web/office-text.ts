/**
 * The rows of an Office document a site links (a staff list as .docx or .xlsx), read like a PDF's
 * (pdf-text.ts): each table row or paragraph a row, its cells side by side. An Office file is a zip
 * of XML parts: a small reader finds the parts in the zip's central directory and inflates them
 * with the runtime's DecompressionStream ("deflate-raw"); no document suite is bundled. Only the
 * deep pass reads documents (never the request path), and it imports this module lazily.
 */

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** What one part may inflate to: a staff list is small, a zip bomb is not read. */
const MAX_PART_BYTES = 4 * 1024 * 1024;

export class OfficeReadError extends Error {}

interface Entry {
  name: string;
  method: number;
  size: number;
  offset: number;
}

function entries(bytes: Uint8Array): Entry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--)
    if (view.getUint32(i, true) === EOCD) {
      end = i;
      break;
    }
  if (end < 0) throw new OfficeReadError("not a zip archive");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const out: Entry[] = [];
  for (let k = 0; k < count && at + 46 <= bytes.length; k++) {
    if (view.getUint32(at, true) !== CENTRAL) throw new OfficeReadError("damaged central directory");
    const nameLength = view.getUint16(at + 28, true);
    const extra = view.getUint16(at + 30, true);
    const comment = view.getUint16(at + 32, true);
    out.push({
      name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      size: view.getUint32(at + 20, true),
      offset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + extra + comment;
  }
  return out;
}

async function partText(bytes: Uint8Array, e: Entry): Promise<string> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(e.offset, true) !== LOCAL) throw new OfficeReadError(`damaged entry ${e.name}`);
  const start = e.offset + 30 + view.getUint16(e.offset + 26, true) + view.getUint16(e.offset + 28, true);
  const data = bytes.subarray(start, start + e.size);
  if (e.method === 0) return new TextDecoder().decode(data);
  if (e.method !== 8) throw new OfficeReadError(`compression method ${e.method}`);
  const reader = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_PART_BYTES) {
      await reader.cancel();
      throw new OfficeReadError(`${e.name} inflates beyond ${MAX_PART_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
}

const xmlText = (s: string) =>
  s
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, "&");

/** A Word body: table rows cell by cell, other paragraphs one cell each. */
function wordRows(xml: string): string[][] {
  const rows: string[][] = [];
  const body = xml.replace(/<w:tbl>[\s\S]*?<\/w:tbl>/g, (table) => {
    for (const [row] of table.matchAll(/<w:tr\b[\s\S]*?<\/w:tr>/g))
      rows.push([...row.matchAll(/<w:tc\b[\s\S]*?<\/w:tc>/g)].map(([cell]) => paragraphs(cell).join(" ").trim()));
    return "\u0000";
  });
  // Paragraphs before and after the tables, in order (a table's rows stand where the table stood).
  const [before = "", after = ""] = body.split("\u0000", 2);
  return [...paragraphs(before).map((p) => [p]), ...rows, ...paragraphs(after).map((p) => [p])].filter((r) =>
    r.some((c) => c.trim()),
  );
}

function paragraphs(xml: string): string[] {
  return [...xml.matchAll(/<w:p\b[\s\S]*?<\/w:p>/g)].map(([p]) =>
    [...p.matchAll(/<w:t\b[^>]*>([\s\S]*?)<\/w:t>/g)].map((m) => xmlText(m[1] ?? "")).join(""),
  );
}

/** A spreadsheet: each row's cells (shared strings resolved, inline strings and values as written). */
function sheetRows(xml: string, shared: string[]): string[][] {
  const rows: string[][] = [];
  for (const [row] of xml.matchAll(/<row\b[\s\S]*?<\/row>/g)) {
    const cells: string[] = [];
    for (const m of row.matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const attrs = m[1] ?? "";
      const inner = m[2] ?? "";
      const type = /\bt="([^"]*)"/.exec(attrs)?.[1];
      const value = /<v>([\s\S]*?)<\/v>/.exec(inner)?.[1];
      if (type === "s" && value !== undefined) cells.push(shared[Number(value)] ?? "");
      else if (type === "inlineStr") cells.push(xmlText(/<is>([\s\S]*?)<\/is>/.exec(inner)?.[1] ?? ""));
      else cells.push(value !== undefined ? xmlText(value) : "");
    }
    if (cells.some((c) => c.trim())) rows.push(cells);
  }
  return rows;
}

/** The rows of a .docx or .xlsx (OfficeReadError when it is not one this reader understands). */
export async function officeRows(bytes: Uint8Array): Promise<string[][]> {
  const parts = entries(bytes);
  const part = (name: string) => parts.find((e) => e.name === name);
  const word = part("word/document.xml");
  if (word) return wordRows(await partText(bytes, word));
  const sheets = parts.filter((e) => /^xl\/worksheets\/sheet\d+\.xml$/.test(e.name)).slice(0, 10);
  if (!sheets.length) throw new OfficeReadError("neither a Word document nor a workbook");
  const sst = part("xl/sharedStrings.xml");
  const shared = sst
    ? [...(await partText(bytes, sst)).matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) =>
        [...(m[1] ?? "").matchAll(/<t\b[^>]*>([\s\S]*?)<\/t>/g)].map((t) => xmlText(t[1] ?? "")).join(""),
      )
    : [];
  const rows: string[][] = [];
  for (const sheet of sheets) rows.push(...sheetRows(await partText(bytes, sheet), shared));
  return rows;
}

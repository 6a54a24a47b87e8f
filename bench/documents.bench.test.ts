// npm run bench -- documents — runs inside workerd: what the deep pass pays to read a linked document
// (the PDF reader's first load in an isolate, then each PDF, .docx and .xlsx). Documents are read only
// off the request path, in the crawl-deep queue consumer, up to crawler.ts DEEP_PASS.documents (6 of
// them, 30 PDF pages each): this is the CPU that cap bounds.
// 1. Every document of the wider-web sites of a seed (staff lists, directories, small reports).
// 2. Made-up staff directories of 1-30 pages (40 rows a page), to see the cost grow with the size up
//    to the deep pass's page cap.
// workerd's clock only moves at I/O, so every timed span ends with a one-row D1 read (its own cost,
// measured alone, is subtracted).
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { DEEP_PASS } from "../src/engine/web/crawl/crawler.js";
import { officeRows } from "../src/engine/web/office-text.js";
import { pdfRows } from "../src/engine/web/pdf-text.js";
import { deflate, fileBytes } from "../test/fixtures/generator/bytes.js";
import { writePdf } from "../test/fixtures/generator/realweb/pdf.js";
import { generateWiderWebSite } from "../test/fixtures/generator/widerweb/site.js";

const SMOKE = env.BENCH_SMOKE === "1";
const SEED = Number(env.QUALITY_SEED || 4242);
const SITES = SMOKE ? 12 : Number(env.QUALITY_SITES || 96);
const tick = () => env.DB.prepare("select 1").first();
const MAX_PAGES = DEEP_PASS.documents?.maxPages ?? 30;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function timed(run: () => Promise<unknown>): Promise<number> {
  await tick();
  const t0 = Date.now();
  await run();
  await tick();
  return Date.now() - t0;
}

const read = (kind: string, bytes: Uint8Array) =>
  kind === "pdf" ? pdfRows(bytes, { maxPages: MAX_PAGES }) : officeRows(bytes);

it("what reading a document costs, by kind and size", { timeout: 600_000 }, async () => {
  const ticks: number[] = [];
  for (let i = 0; i < 20; i++) ticks.push(await timed(async () => {}));
  const tickMs = median(ticks);
  const small = new Uint8Array(
    writePdf({ title: "t", compressed: false, textOp: "Tj", pages: [[{ text: "x" }]] }, deflate),
  );
  const firstLoad = (await timed(() => pdfRows(small, { maxPages: 1 }))) - tickMs;
  console.log(`one-row D1 read (subtracted) ${tickMs} ms; PDF reader's first load and a one-line PDF ${firstLoad} ms`);

  const docs: { kind: string; bytes: Uint8Array }[] = [];
  for (let i = 0; i < SITES; i++) {
    const site = generateWiderWebSite(SEED, i);
    for (const [path, file] of Object.entries(site.files)) {
      const kind = path.match(/\.(pdf|docx|xlsx)$/)?.[1];
      if (kind) docs.push({ kind, bytes: fileBytes(file) });
    }
  }
  for (const kind of ["pdf", "docx", "xlsx"]) {
    const of = docs.filter((d) => d.kind === kind);
    if (!of.length) continue;
    const ms: number[] = [];
    for (const d of of) ms.push(Math.max(0, (await timed(() => read(kind, d.bytes))) - tickMs));
    const kb = of.map((d) => d.bytes.length / 1024);
    console.log(
      `${kind.padEnd(5)} ${String(of.length).padStart(3)} documents of seed ${SEED}, ${Math.min(...kb).toFixed(1)}-${Math.max(...kb).toFixed(1)} KB: median ${median(ms)} ms, max ${Math.max(...ms)} ms`,
    );
  }

  const row = (n: number) => ({
    text: `Firstname${n} Lastname${n}   Position ${n}   person${n}@example.com   +49 30 1234 ${n}`,
  });
  for (const pages of SMOKE ? [1, 5] : [1, 5, 10, 20, MAX_PAGES]) {
    for (const compressed of [false, true]) {
      const pdf = writePdf(
        {
          title: "Staff directory",
          compressed,
          textOp: "TJ",
          pages: Array.from({ length: pages }, (_, p) => Array.from({ length: 40 }, (_, r) => row(p * 40 + r))),
        },
        deflate,
      );
      const ms: number[] = [];
      let rows = 0;
      for (let i = 0; i < (SMOKE ? 1 : 5); i++)
        ms.push(
          Math.max(
            0,
            (await timed(async () => {
              rows = (await pdfRows(pdf, { maxPages: MAX_PAGES })).rows.length;
            })) - tickMs,
          ),
        );
      expect(rows).toBeGreaterThanOrEqual(pages * 40);
      console.log(
        `staff directory PDF ${String(pages).padStart(2)} pages (${compressed ? "deflated" : "plain"}, ${(pdf.length / 1024).toFixed(0)} KB): median ${median(ms)} ms`,
      );
    }
  }
  expect(docs.length).toBeGreaterThan(0);
});

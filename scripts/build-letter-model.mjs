// Builds src/engine/data/letter-bigrams.json, the character-bigram model behind gibberish detection.
// Corpus: first and last names of every Latin-script locale in @faker-js/faker (names are what email
// local parts are made of) plus its English word lists and the role-account prefixes.
// The model is committed; rerun only to retrain:
//   npm install --prefix /tmp/corpus --ignore-scripts @faker-js/faker@10.6.0
//   node scripts/build-letter-model.mjs /tmp/corpus/node_modules/@faker-js/faker
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const fakerDir = process.argv[2];
if (!fakerDir) throw new Error("usage: node scripts/build-letter-model.mjs <path to @faker-js/faker>");
const { allLocales } = await import(path.resolve(fakerDir, "dist/index.js"));
const roles = JSON.parse(readFileSync(new URL("../src/engine/data/role-addresses.json", import.meta.url), "utf8"));

const strings = (value) =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : value && typeof value === "object"
        ? Object.values(value).flatMap(strings)
        : [];

const fold = (s) =>
  s
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/[łŀ]/g, "l")
    .replace(/ø/g, "o")
    .replace(/æ/g, "ae")
    .replace(/œ/g, "oe")
    .replace(/đ/g, "d")
    .replace(/ı/g, "i")
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "");

const tokens = new Set();
const add = (s) => {
  for (const t of fold(s).split(/[^a-z]+/)) if (t.length >= 2) tokens.add(t);
};
for (const locale of Object.values(allLocales)) {
  for (const field of ["first_name", "last_name", "middle_name"])
    for (const s of strings(locale.person?.[field])) add(s);
}
for (const s of strings(allLocales.en.word)) add(s);
for (const r of roles) add(r);

// Index 0 is the word boundary, 1..26 are a..z.
const counts = Array.from({ length: 27 }, () => new Array(27).fill(0));
const idx = (ch) => ch.charCodeAt(0) - 96;
for (const t of tokens) {
  let prev = 0;
  for (const ch of t) {
    counts[prev][idx(ch)]++;
    prev = idx(ch);
  }
  counts[prev][0]++;
}
// Add-half smoothing; costs are -log2 P(next | prev) in tenths of a bit, as integers.
const costs = counts.map((row) => {
  const total = row.reduce((a, b) => a + b, 0) + 0.5 * 27;
  return row.map((c) => Math.round(-Math.log2((c + 0.5) / total) * 10));
});
const out = path.join(import.meta.dirname, "../src/engine/data/letter-bigrams.json");
writeFileSync(out, `${JSON.stringify({ corpusTokens: tokens.size, unit: "decibits", costs })}\n`);
console.log(`wrote ${out} from ${tokens.size} tokens`);

// Code and tests cite the wire contract by section ("docs/wire-contract.md §9.1"). Every such
// citation must name a section the document has; a citation of an RFC ("RFC 8628 §3.5") is not one.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const contract = readFileSync(path.join(root, "docs/wire-contract.md"), "utf8");
const sections = new Set([...contract.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1]));

function* sourceFiles(dir) {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (rel !== path.join("test", "fixtures", "sites")) yield* sourceFiles(rel);
    } else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) yield rel;
  }
}

function citations() {
  const found = [];
  for (const dir of ["src", "test", "scripts", "bench"]) {
    for (const file of sourceFiles(dir)) {
      const text = readFileSync(path.join(root, file), "utf8");
      text.split("\n").forEach((line, i) => {
        if (/RFC \d+/.test(line) || !/§\d/.test(line)) return;
        for (const m of line.matchAll(/§(\d+(?:\.\d+)?)/g))
          found.push({ where: `${file}:${i + 1}`, section: m[1], file, text });
      });
    }
  }
  return found;
}

describe("citations of docs/wire-contract.md", () => {
  it("the document numbers its sections", () => {
    assert.ok(sections.size > 20, [...sections].join(" "));
    for (const s of ["1.1", "3.1", "3.2", "4.3", "6.1", "9.1", "10.1"]) assert.ok(sections.has(s), s);
  });

  it("name sections the document has, in files that say which document they cite", () => {
    const cited = citations();
    assert.ok(cited.length > 20, "the code cites the contract");
    const unknown = cited.filter((c) => !sections.has(c.section)).map((c) => `${c.where} §${c.section}`);
    assert.deepEqual(unknown, [], "sections that docs/wire-contract.md does not have");
    const unnamed = [
      ...new Set(cited.filter((c) => !/wire-contract\.md|wire contract/.test(c.text)).map((c) => c.file)),
    ];
    assert.deepEqual(unnamed, [], "files citing a § without naming docs/wire-contract.md");
  });
});

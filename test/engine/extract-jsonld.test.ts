// A page's JSON-LD block used to hide everything after it: the <script> had two end-tag callbacks
// (skipped text, JSON-LD block) and HTMLRewriter keeps only the last, so the skip never ended.
import { describe, expect, it } from "vitest";
import { extractAuthor } from "../../src/engine/web/extract/author.js";
import { extractPage } from "../../src/engine/web/extract/page.js";

describe("pages with JSON-LD", () => {
  it("reads the addresses after a JSON-LD block in the head", async () => {
    const html = `<html><head><script type="application/ld+json">{"@type":"Organization","name":"X"}</script></head><body><p>Clara Berg</p><p>clara.berg@x-co.de</p></body></html>`;
    const page = await extractPage(html, "https://x-co.de/", "x-co.de");
    expect(page.addresses.map((a) => [a.email, a.name])).toEqual([
      ["clara.berg@x-co.de", { first: "Clara", last: "Berg" }],
    ]);
    expect(page.jsonLd.map((n) => n.name)).toEqual(["X"]);
  });

  it("reads every row of a team table whose cells embed a JSON-LD Person", async () => {
    const row = (name: string, email: string) =>
      `<tr><td>${name}<script type="application/ld+json">{"@type":"Person","name":"${name}"}</script></td><td>${email}</td></tr>`;
    const html = `<html><body><table>${row("Clara Berg", "clara.berg [at] x-co.de")}${row("Tom Wolf", "tom.wolf＠x-co.de")}</table></body></html>`;
    const page = await extractPage(html, "https://x-co.de/team", "x-co.de");
    expect(page.addresses.map((a) => a.email)).toEqual(["clara.berg@x-co.de", "tom.wolf@x-co.de"]);
    expect(page.jsonLd).toHaveLength(2);
  });

  it("still ends a heading's line at </h1>", async () => {
    const page = await extractPage(
      `<html><body><h1>Clara Berg</h1>Partner<p>x</p></body></html>`,
      "https://x-co.de/p",
      "x-co.de",
    );
    expect(page.lines.slice(0, 2)).toEqual(["Clara Berg", "Partner"]);
  });

  it("reads an article's byline after a JSON-LD block", async () => {
    const html = `<html><head><script type="application/ld+json">{"@type":"WebSite","name":"News"}</script></head><body><article><p class="byline">By Clara Berg</p><p>Text</p></article></body></html>`;
    expect((await extractAuthor(html)).name).toBe("Clara Berg");
  });
});

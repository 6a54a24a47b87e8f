import { describe, expect, it } from "vitest";

// The README is the entrance and docs/ the reference: every page is reachable from both indexes,
// and every link between them lands on a file and a heading that exist.
const pages = import.meta.glob<string>(["../../README.md", "../../CHANGELOG.md", "../../docs/*.md"], {
  query: "?raw",
  import: "default",
  eager: true,
});
const byPath = new Map(Object.entries(pages).map(([key, text]) => [key.replace(/^\.\.\/\.\.\//, ""), text]));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function anchors(text: string): Set<string> {
  const withoutCode = text.replace(/^```[\s\S]*?^```/gm, "");
  return new Set([...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** Relative markdown links of a page, resolved against its folder: [target path, anchor]. */
function links(page: string, text: string): { target: string; anchor: string | undefined; raw: string }[] {
  const dir = page.includes("/") ? page.slice(0, page.lastIndexOf("/") + 1) : "";
  const withoutCode = text.replace(/^```[\s\S]*?^```/gm, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/.test(href))
    .map((href) => {
      const [file, anchor] = href.split("#");
      const parts = `${file ? dir + file : page}`.split("/");
      const resolved: string[] = [];
      for (const part of parts) {
        if (part === "..") resolved.pop();
        else if (part !== ".") resolved.push(part);
      }
      return { target: resolved.join("/"), anchor, raw: href };
    });
}

describe("the documentation's links", () => {
  it("land on pages and headings that exist", () => {
    const broken: string[] = [];
    for (const [page, text] of byPath) {
      for (const link of links(page, text)) {
        const target = byPath.get(link.target);
        if (target === undefined) {
          if (link.target.endsWith(".md")) broken.push(`${page}: ${link.raw} (no such page)`);
          continue;
        }
        if (link.anchor && !anchors(target).has(link.anchor)) broken.push(`${page}: ${link.raw} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("reach every page of docs/ from the README and from docs/README.md", () => {
    const docs = [...byPath.keys()].filter((p) => p.startsWith("docs/") && p !== "docs/README.md");
    expect(docs.length).toBeGreaterThan(10);
    for (const index of ["README.md", "docs/README.md"]) {
      const linked = new Set(links(index, byPath.get(index)!).map((l) => l.target));
      expect(
        docs.filter((d) => !linked.has(d)),
        `pages ${index} does not link`,
      ).toEqual([]);
    }
  });

  it("keeps the README an entrance: at most 250 lines", () => {
    expect(byPath.get("README.md")!.split("\n").length).toBeLessThanOrEqual(250);
  });
});

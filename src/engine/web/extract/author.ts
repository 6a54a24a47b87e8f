import { decodeEntities } from "./email-addresses.js";
import { type JsonNode, jsonLdNodes, skippedElements, strings, text, typesOf } from "./jsonld.js";

/**
 * The author of an article page, by the rule order metascraper-author uses, ported to HTMLRewriter:
 * JSON-LD author, meta author, article:author, itemprop author name, rel=author, /author/ links,
 * author classes, byline classes, twitter:creator. The first rule giving a clean value wins.
 */

export interface ArticleAuthor {
  name: string | null;
  /** Which rule gave the name, as a confidence (100 = JSON-LD ... 40 = twitter handle). */
  confidence: number | null;
  twitter: string | null;
  linkedin: string | null;
  image: string | null;
  title: string | null;
  description: string | null;
  ogImage: string | null;
}

type Rule = "itemprop" | "rel" | "href" | "class-author" | "byline";
/** Where an author name was read. */
type Source = "jsonld" | "meta" | "article:author" | Rule | "twitter";
const RULE_CONFIDENCE: Record<Source, number> = {
  jsonld: 100,
  meta: 90,
  "article:author": 85,
  itemprop: 85,
  rel: 80,
  href: 70,
  "class-author": 60,
  byline: 50,
  twitter: 40,
};
const RULE_ORDER: Rule[] = ["itemprop", "rel", "href", "class-author", "byline"];

const MAX_LENGTH = 128;
const DATE_LIKE =
  /\b(\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}|\d{1,2}\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|updated|published|posted|min read|\d{1,2}:\d{2})\b/i;
const URL_LIKE = /^(https?:|www\.)|\/|\.(com|org|net|io|de|co|test)\b/i;

/** A clean author name from a raw value, or null: "By Jane Doe | May 1" → "Jane Doe". */
export function cleanAuthor(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const text = decodeEntities(raw).replace(/\s+/g, " ").trim();
  for (const part of text.split(/\s*(?:\||·|•|—|–|\s-\s|,\s*(?=\d))\s*/)) {
    const value = part.replace(/^(by|von|par|por|door|written by|text:?|autor:?|author:?)\s+/i, "").trim();
    if (!value || URL_LIKE.test(value) || DATE_LIKE.test(value) || !/\p{L}/u.test(value)) continue;
    return value.slice(0, MAX_LENGTH);
  }
  return null;
}

const ARTICLE_TYPES = /Article|BlogPosting|Report|Review|CreativeWork|WebPage|Posting/;

function fromJsonLd(nodes: JsonNode[]): { name: string | null; node: JsonNode | null } {
  for (const n of nodes) {
    if (!typesOf(n).some((t) => ARTICLE_TYPES.test(t)) || n.author === undefined) continue;
    const author = Array.isArray(n.author) ? n.author[0] : n.author;
    const name = cleanAuthor(text(author));
    if (name) return { name, node: author && typeof author === "object" ? (author as JsonNode) : null };
  }
  return { name: null, node: null };
}

export async function extractAuthor(html: string): Promise<ArticleAuthor> {
  let doc = "";
  const meta = new Map<string, string>();
  const spans: Record<Rule, { start: number; end: number | null }[]> = {
    itemprop: [],
    rel: [],
    href: [],
    "class-author": [],
    byline: [],
  };
  const skipped = skippedElements();
  let title = "";
  const capture = (rule: Rule) => ({
    element(el: Element) {
      const span = { start: doc.length, end: null as number | null };
      spans[rule].push(span);
      try {
        el.onEndTag(() => {
          span.end = doc.length;
        });
      } catch {
        span.end = span.start;
      }
    },
  });
  await new HTMLRewriter()
    .on("script, style, noscript, template", skipped.handler)
    .on("meta[content]", {
      element(el) {
        const key = (el.getAttribute("name") ?? el.getAttribute("property") ?? "").toLowerCase();
        if (key && !meta.has(key)) meta.set(key, decodeEntities(el.getAttribute("content") ?? "").trim());
      },
    })
    .on("title", {
      text(t) {
        title += t.text;
      },
    })
    .on("[itemprop*=author] [itemprop=name]", capture("itemprop"))
    .on("[rel=author]", capture("rel"))
    .on('a[href*="/author/"]', capture("href"))
    .on("[class*=author]", capture("class-author"))
    .on("[class*=byline]", capture("byline"))
    .onDocument({
      text(t) {
        if (!skipped.skipping()) doc += t.text;
        // Keep block boundaries: adjacent elements' text must not run together.
        if (t.lastInTextNode) doc += " ";
      },
    })
    .transform(new Response(html, { headers: { "content-type": "text/html" } }))
    .arrayBuffer();

  const nodes = jsonLdNodes(skipped.blocks);
  const ldAuthor = fromJsonLd(nodes);
  const sameAs = ldAuthor.node ? strings(ldAuthor.node.sameAs) : [];
  const handle = meta.get("twitter:creator")?.replace(/^@/, "") || null;
  const candidates: [Source, string | null][] = [
    ["jsonld", ldAuthor.name],
    ["meta", cleanAuthor(meta.get("author"))],
    ["article:author", cleanAuthor(meta.get("article:author"))],
    ...RULE_ORDER.map((rule): [Source, string | null] => [
      rule,
      spans[rule].map((s) => cleanAuthor(doc.slice(s.start, s.end ?? doc.length))).find((v) => v) ?? null,
    ]),
    ["twitter", handle && /^\w{1,15}$/.test(handle) ? handle : null],
  ];
  const winner = candidates.find(([, v]) => v);
  return {
    name: winner?.[1] ?? null,
    confidence: winner ? RULE_CONFIDENCE[winner[0]] : null,
    twitter: handle ? `https://twitter.com/${handle}` : (sameAs.find((u) => /(twitter|x)\.com\//.test(u)) ?? null),
    linkedin: sameAs.find((u) => /linkedin\.com\/in\//.test(u)) ?? null,
    image: ldAuthor.node ? (strings(ldAuthor.node.image)[0] ?? null) : null,
    title: meta.get("og:title") ?? (decodeEntities(title).trim() || null),
    description: meta.get("description") ?? meta.get("og:description") ?? null,
    ogImage: meta.get("og:image") ?? null,
  };
}

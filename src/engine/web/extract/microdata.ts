import { decodeEntities } from "./email-addresses.js";

/**
 * schema.org microdata (`itemscope itemtype=…/Person` with `itemprop` name, givenName, familyName,
 * jobTitle, email) read into the shape JSON-LD has, so that one reader of structured data serves
 * both. A property's value is, as the HTML standard defines it, the `content` of a `<meta>`, the
 * `href` of an `<a>`/`<link>`/`<area>`, the `src` of media, the `value` of `<data>`/`<meter>`, the
 * `datetime` of `<time>`, else the element's text. Runs as its own rewriter pass, only over pages
 * that use `itemprop`: its end-tag callbacks must not replace those of the page pass.
 */

export type MicrodataItem = Record<string, unknown>;

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
  "param",
  "keygen",
]);
const URL_VALUE: Record<string, string> = {
  a: "href",
  area: "href",
  link: "href",
  audio: "src",
  embed: "src",
  iframe: "src",
  img: "src",
  source: "src",
  track: "src",
  video: "src",
  object: "data",
};

/** Whether the page has microdata at all (a cheap test before the pass). */
export function hasMicrodata(body: string): boolean {
  return /\bitemprop\s*=/i.test(body);
}

function addProperty(item: MicrodataItem, names: string, value: unknown) {
  for (const name of names.split(/\s+/).filter(Boolean)) {
    // Properties may be absolute URLs (https://schema.org/email): the last segment is the name.
    const key = name.replace(/^.*[/#]/, "");
    const existing = item[key];
    item[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
}

/** The top-level microdata items of a page (nested items stay under the property that holds them). */
export async function microdataItems(body: string): Promise<MicrodataItem[]> {
  const top: MicrodataItem[] = [];
  const items: MicrodataItem[] = [];
  const texts: { text: string }[] = [];
  let dropText = false;
  const rewriter = new HTMLRewriter()
    .on("[itemscope], [itemprop]", {
      element(el) {
        const prop = el.getAttribute("itemprop");
        const parent = items[items.length - 1];
        const tag = el.tagName.toLowerCase();
        if (el.hasAttribute("itemscope")) {
          const types = (el.getAttribute("itemtype") ?? "")
            .split(/\s+/)
            .filter(Boolean)
            .map((t) => t.replace(/^.*[/#]/, ""));
          const item: MicrodataItem = { "@type": types };
          if (prop && parent) addProperty(parent, prop, item);
          else top.push(item);
          if (VOID.has(tag)) return;
          items.push(item);
          el.onEndTag(() => {
            const i = items.lastIndexOf(item);
            if (i >= 0) items.splice(i, 1);
          });
          return;
        }
        if (!prop || !parent) return;
        const attribute =
          tag === "meta"
            ? "content"
            : (URL_VALUE[tag] ?? (tag === "data" || tag === "meter" ? "value" : tag === "time" ? "datetime" : null));
        if (attribute) {
          const value = el.getAttribute(attribute);
          if (value !== null) addProperty(parent, prop, decodeEntities(value).trim());
          if (tag !== "a" && tag !== "time") return;
          // <a itemprop="email" href="mailto:…">: the href is the value; an <a> without href falls back to its text.
          if (value !== null) return;
        }
        if (VOID.has(tag)) return;
        const capture = { text: "" };
        texts.push(capture);
        el.onEndTag(() => {
          const i = texts.lastIndexOf(capture);
          if (i >= 0) texts.splice(i, 1);
          addProperty(parent, prop, decodeEntities(capture.text).replace(/\s+/g, " ").trim());
        });
      },
    })
    .on("br", {
      element() {
        for (const c of texts) c.text += " ";
      },
    })
    // Ruby as the page pass reads it: each reading in brackets after its base, <rp> dropped.
    .on("rt", {
      element(el) {
        for (const c of texts) c.text += "(";
        el.onEndTag(() => {
          for (const c of texts) c.text += ")";
        });
      },
    })
    .on("rp", {
      text() {
        dropText = true;
      },
    })
    .on("script, style, template", {
      element(el) {
        // Text inside these is never a property's text.
        const hold = texts.splice(0);
        el.onEndTag(() => void texts.push(...hold));
      },
    })
    .onDocument({
      text(t) {
        // An element's own text handler runs before this one for the same chunk.
        if (!dropText) for (const c of texts) c.text += t.text;
        dropText = false;
      },
    });
  await rewriter.transform(new Response(body, { headers: { "content-type": "text/html" } })).arrayBuffer();
  return top;
}

import { type CountryCode, isSupportedCountry } from "libphonenumber-js/max";
import { getDomain } from "tldts";
import type { Pattern } from "../../finder/patterns.js";
import { foldForPlaceholders, placeholderFormat } from "../../finder/stated-format.js";
import { middleShown, nameKey, type PersonName, splitFullName } from "../../people/names.js";
import { alignRomanized } from "../../people/native-names.js";
import { isFamilyFirstLanguage } from "../../people/readings.js";
import type { LinkRef } from "../crawl/plan.js";
import {
  type CompanyFacts,
  companyFactsFrom,
  countryOfDomain,
  emptyCompanyFacts,
  phonesInLines,
  toE164,
} from "./company.js";
import {
  acceptAddress,
  decodeCfEmail,
  decodeEntities,
  mailtoAddresses,
  mayHoldAddress,
  scanAddresses,
} from "./email-addresses.js";
import { type JsonNode, jsonLdNodes, jsonLdRoots, skippedElements } from "./jsonld.js";
import { hasMicrodata, microdataItems } from "./microdata.js";
import { type FoundAddress, namesOnLine, type Person, personNear, personOfPage, readingFor, shown } from "./people.js";
import { declaresReversed, reversedAddress, reversedSelector } from "./reversed-text.js";
import { appDataOf, isDataScript, type ScriptBlock } from "./script-data.js";
import { assembledText, fetchedDataUrls, lazyChunks, scriptRedirect } from "./script-text.js";
import { type DataPerson, type DataReading, linesOfText, readStructured } from "./structured.js";
import { isVCard, vCardAddresses } from "./vcard.js";

export type { FoundAddress } from "./people.js";

/** Everything one crawled page tells us, from one HTMLRewriter pass. */
export interface PageExtraction {
  addresses: FoundAddress[];
  /** E.164 numbers from tel: links and announced numbers in the text. */
  phones: string[];
  company: CompanyFacts;
  /** Absolute http(s) links to pages of the same registrable domain, without fragments. */
  links: string[];
  /** Same-domain links with their text and rel, for ranking what to crawl next. */
  linkRefs: LinkRef[];
  /** Every absolute link on the page (profile links, author pages). */
  allLinks: string[];
  meta: Map<string, string>;
  title: string | null;
  jsonLd: JsonNode[];
  /** Page text as lines (block elements break lines). */
  lines: string[];
  /** Lines that name a person, with or without an address (to name addresses found elsewhere on the site). */
  personNames?: string[];
  /** Address conventions the page states with a placeholder ("firstname.lastname@<domain>"). */
  statedFormats?: Pattern[];
  /** The language the page declares (`<html lang>`); absent when it declares none. */
  lang?: string;
}

// Block elements break lines. An end-tag callback per element is the costliest part of a
// rewriter pass, so containers (div, section, ...) break only where they open; the text-holding
// elements also break where they close.
const TEXT_BLOCKS =
  "p, li, td, th, h1, h2, h3, h4, h5, h6, address, dt, dd, blockquote, figcaption, label, option, button";
const CONTAINERS = "div, ul, ol, tr, table, section, article, header, footer, nav, dl, figure, form, main, aside";
// <noscript> is read: sites that write addresses with a script often spell them out there.
const SKIPPED = "script, style, template, svg";

/** Script files of a page looked at (the first ones: a page's own code comes before analytics tags). */
const MAX_SCRIPT_FILES = 6;

interface Mark {
  raw: string;
  line: number;
  anchorText: string;
  via: FoundAddress["via"];
}

/**
 * Runs the extraction over an HTML (or plain text) page fetched from `pageUrl` for `targetDomain`.
 * `siteLang` is the language the site's pages declare: the order names are read in on a page that
 * declares none of its own (the JSON a page's script fetches, a script file, a document).
 */
export async function extractPage(
  body: string,
  pageUrl: string,
  targetDomain: string,
  contentType = "text/html",
  siteLang?: string,
): Promise<PageExtraction> {
  if (isVCard(body, contentType))
    return { ...fromPlainText("", targetDomain), addresses: vCardAddresses(body, targetDomain) };
  // A JSON endpoint a page's script fetches is read as that page's data (an island of its own).
  if (/json/i.test(contentType) && /^\s*[[{]/.test(body))
    return extractPage(
      `<script type="application/json">${body.replace(/<\//g, "<\\/")}</script>`,
      pageUrl,
      targetDomain,
      "text/html",
      siteLang,
    );
  // A script file a page links (`<script src>`) is read as that script inline: the data it fetches,
  // the page it sends the reader to, what it assembles. Nothing is run.
  if (/javascript|ecmascript/i.test(contentType))
    return extractPage(
      `<script>${body.replace(/<\/(script)/gi, "<\\/$1")}</script>`,
      pageUrl,
      targetDomain,
      "text/html",
      siteLang,
    );
  if (!/html|xml/i.test(contentType) && !/^\s*</.test(body)) return fromPlainText(body, targetDomain);

  const lines: string[] = [];
  let current = "";
  const breakLine = () => {
    const line = decodeEntities(current).replace(/\s+/g, " ").trim();
    if (line) lines.push(line);
    current = "";
  };
  const linkRefs: LinkRef[] = [];
  const ownLink = (raw: string, rel: string, text = "") => {
    try {
      const url = new URL(raw, pageUrl);
      url.hash = "";
      if ((url.protocol === "http:" || url.protocol === "https:") && getDomain(url.hostname) === targetDomain)
        linkRefs.push({ url: url.href, text, rel });
    } catch {
      /* not a URL */
    }
  };
  // What an inline script assembles stands where the script stands; the data it fetches and the page
  // it sends the reader to are links of this page (script-text.ts).
  const skipped = skippedElements(true, (block) => {
    if (isDataScript(block.type) !== "js") return;
    const text = assembledText(block.text);
    if (text) current += ` ${text} `;
    for (const url of fetchedDataUrls(block.text)) ownLink(url, "data");
    // A split bundle's chunks, each with the route that loads it (its words rank it).
    for (const chunk of lazyChunks(block.text)) ownLink(chunk.url, "chunk", chunk.route);
    const redirect = scriptRedirect(block.text);
    if (redirect) ownLink(redirect, "refresh");
  });
  let scriptFiles = 0;
  const marks: Mark[] = [];
  let anchor: { marks: Mark[]; text: string } | null = null;
  const links = new Set<string>();
  const allLinks = new Set<string>();
  const phones = new Set<string>();
  const meta = new Map<string, string>();
  let title = "";
  let h1 = "";
  let h1Done = false;
  const telLinks: string[] = [];
  let lang = "";
  let dropText = false;
  let reversed: string | null = null;

  const mark = (raw: string, via: Mark["via"], inAnchor: boolean) => {
    const m: Mark = { raw, line: lines.length, anchorText: "", via };
    marks.push(m);
    if (inAnchor && anchor) anchor.marks.push(m);
  };

  const rewriter = new HTMLRewriter()
    // One handler per element kind (a second onEndTag on an element replaces the first): an <h1>
    // is a text block and the page's heading in one handler, as a JSON-LD <script> is in skippedElements.
    .on(SKIPPED, skipped.handler)
    // The site's own script files: one may fetch the page's data (read as links, ranked in plan.ts).
    .on("script[src]", {
      element(el) {
        if (scriptFiles++ < MAX_SCRIPT_FILES) ownLink(decodeEntities(el.getAttribute("src") ?? "").trim(), "script");
      },
    })
    .on(TEXT_BLOCKS, {
      element(el) {
        breakLine();
        const heading = el.tagName === "h1" && !h1Done;
        el.onEndTag(() => {
          breakLine();
          if (heading) h1Done = true;
        });
      },
    })
    .on(CONTAINERS, { element: () => breakLine() })
    // Ruby reads as it renders without ruby support: each reading in brackets after its base
    // ("田中(たなか)"), the page's own <rp> brackets dropped so they are not doubled.
    .on("rt", {
      element(el) {
        current += "(";
        el.onEndTag(() => {
          current += ")";
        });
      },
    })
    .on("rp", {
      text() {
        dropText = true;
      },
    })
    // Frameworks that hand their data to the page in an attribute: Astro islands, Inertia, React on Rails.
    .on(DATA_ATTRIBUTE_ELEMENTS, {
      element(el) {
        for (const [attribute, type] of DATA_ATTRIBUTES) {
          const value = el.getAttribute(attribute);
          if (value && (attribute !== "props" || el.tagName === "astro-island"))
            skipped.scripts.push({ type, id: attribute, text: decodeEntities(value) });
        }
      },
    })
    .on("br, hr, img", { element: () => breakLine() })
    .on("a[href]", {
      element(el) {
        const href = decodeEntities(el.getAttribute("href") ?? "").trim();
        anchor = { marks: [], text: "" };
        const own = anchor;
        let ref: LinkRef | null = null;
        el.onEndTag(() => {
          const text = own.text.replace(/\s+/g, " ").trim();
          for (const m of own.marks) m.anchorText = text;
          if (ref) ref.text = (text || ref.text || "").slice(0, 200);
          if (anchor === own) anchor = null;
        });
        if (/^mailto:/i.test(href)) {
          for (const raw of mailtoAddresses(href)) mark(raw, "mailto", true);
          return;
        }
        if (/^tel:/i.test(href)) {
          telLinks.push(href);
          return;
        }
        const cf = /\/cdn-cgi\/l\/email-protection#([0-9a-f]+)/i.exec(href);
        if (cf) {
          const [, encoded] = cf;
          const decoded = decodeCfEmail(encoded);
          if (decoded) mark(decoded, "cfemail", true);
          return;
        }
        try {
          const url = new URL(href, pageUrl);
          if (url.protocol !== "http:" && url.protocol !== "https:") return;
          url.hash = "";
          allLinks.add(url.href);
          if (getDomain(url.hostname) === targetDomain) {
            links.add(url.href);
            ref = { url: url.href, text: el.getAttribute("title") ?? "", rel: el.getAttribute("rel") ?? "" };
            linkRefs.push(ref);
          }
        } catch {
          /* not a URL */
        }
      },
      text(t) {
        if (anchor) anchor.text += decodeEntities(t.text);
      },
    })
    .on("link[rel][href]", {
      element(el) {
        const rel = (el.getAttribute("rel") ?? "").toLowerCase();
        if (!/\bnext\b/.test(rel)) return;
        try {
          const url = new URL(decodeEntities(el.getAttribute("href") ?? ""), pageUrl);
          if (getDomain(url.hostname) === targetDomain) linkRefs.push({ url: url.href, text: "", rel });
        } catch {
          /* not a URL */
        }
      },
    })
    .on("img[alt]", {
      element(el) {
        // An image link ("<a><img alt="Jane Doe"></a>") is named by its alt text.
        if (anchor) anchor.text += ` ${decodeEntities(el.getAttribute("alt") ?? "")} `;
      },
    })
    // An address split over data attributes a script joins (`data-user="jane" data-domain="acme.de"`).
    .on(SPLIT_ADDRESS_ELEMENTS, {
      element(el) {
        const joined = splitAddress(el.attributes, targetDomain);
        if (joined) current += ` ${joined} `;
      },
    })
    // Text the page's CSS shows reversed: read as shown when it is an address at the site's domain.
    .on(reversedSelector(body), {
      element(el) {
        const style = el.getAttribute("style") ?? "";
        reversed = !/bidi-override/i.test(style) || declaresReversed(style) ? "" : null;
      },
      text(t) {
        if (reversed === null) return;
        reversed += t.text;
        if (!t.lastInTextNode) return;
        const shown = reversedAddress(decodeEntities(reversed), targetDomain);
        if (shown) current += ` ${shown} `;
        reversed = "";
      },
    })
    .on("[data-cfemail]", {
      element(el) {
        const decoded = decodeCfEmail(el.getAttribute("data-cfemail") ?? "");
        if (decoded) mark(decoded, "cfemail", anchor !== null);
      },
    })
    .on("html[lang]", {
      element(el) {
        lang = el.getAttribute("lang") ?? "";
      },
    })
    .on("meta[content]", {
      element(el) {
        const key = (
          el.getAttribute("property") ??
          el.getAttribute("name") ??
          el.getAttribute("itemprop") ??
          ""
        ).toLowerCase();
        const content = decodeEntities(el.getAttribute("content") ?? "").trim();
        if (key && content && !meta.has(key)) meta.set(key, content);
        // <meta http-equiv="refresh" content="0; url=/moved">: the page it sends the reader to.
        if ((el.getAttribute("http-equiv") ?? "").toLowerCase() === "refresh") {
          const target = /^\s*\d*(?:\.\d+)?\s*[;,]?\s*url\s*=\s*["']?([^"'\s]+)/i.exec(content)?.[1];
          if (target) ownLink(target, "refresh");
        }
      },
    })
    .on("h1", {
      text(t) {
        if (!h1Done) h1 += t.text;
      },
    })
    .on("title", {
      text(t) {
        title += t.text;
      },
    })
    .onDocument({
      text(t) {
        // An element's own text handler runs before this one for the same chunk.
        if (!skipped.skipping() && !dropText) current += t.text;
        dropText = false;
      },
    });

  await rewriter.transform(new Response(body, { headers: { "content-type": "text/html" } })).arrayBuffer();
  breakLine();

  const jsonLd = jsonLdNodes(skipped.blocks);
  const data = await structuredData(body, skipped.blocks, skipped.scripts);
  const pageNames = [
    decodeEntities(h1),
    ...decodeEntities(title)
      .split(/\s+[|–—-]\s+|\s*[|–—]\s*/)
      .slice(0, 1),
  ];
  for (const { person } of data.people) if (person.emails.length === 0 && person.name) pageNames.push(person.name);
  // A page without a language of its own is read as written (mostly CJK text), else in the site's language.
  const familyFirstPage = lang
    ? isFamilyFirstLanguage(lang)
    : writtenFamilyFirst(lines) || (siteLang !== undefined && isFamilyFirstLanguage(siteLang));
  const addresses = collectAddresses({
    lines,
    marks,
    data,
    targetDomain,
    familyFirstPage,
    pageNames: pageNames.map((n) => n.replace(/\s+/g, " ").trim()).filter(Boolean),
  });
  const allLinkList = [...allLinks];
  const company = companyFactsFrom({ nodes: jsonLd, meta, links: allLinkList, targetDomain });
  // Numbers written without +country are read in the country the page is about.
  const country = (company.country as CountryCode | null) ?? countryOfDomain(targetDomain) ?? countryOfLanguage(lang);
  for (const href of telLinks) {
    const e164 = toE164(href, country);
    if (e164) phones.add(e164);
  }
  for (const p of phonesInLines(lines, country)) phones.add(p);
  return {
    addresses,
    phones: [...phones],
    company,
    links: [...links],
    linkRefs,
    allLinks: allLinkList,
    meta,
    title: decodeEntities(title).replace(/\s+/g, " ").trim() || null,
    jsonLd,
    lines,
    personNames: [
      ...new Set([
        ...personNamesIn(lines),
        ...personNamesIn(data.lines),
        ...data.people.flatMap(({ person }) => (person.name ? [person.name] : [])),
      ]),
    ],
    statedFormats: statedFormatsIn(lines, targetDomain),
    ...(lang.trim() ? { lang: lang.trim() } : {}),
  };
}

const SPLIT_ADDRESS_ELEMENTS = "[data-domain], [data-host], [data-site], [data-maildomain], [data-mail-domain]";

/** The address an element's data attributes hold in two parts: a local part and the site's domain. */
function splitAddress(attributes: Iterable<string[]>, targetDomain: string): string | null {
  const data = [...attributes].filter(([name]) => name?.startsWith("data-")).map(([, value]) => (value ?? "").trim());
  const domain = data.find((v) => v.includes(".") && getDomain(v.toLowerCase()) === targetDomain);
  if (!domain) return null;
  const local = data.find((v) => v !== domain && /^[a-z0-9][a-z0-9._%+-]{0,63}$/i.test(v) && !/^\d+$/.test(v));
  return local ? `${local}@${domain}` : null;
}

/** Attributes whose value is the JSON an app renders from, with how to read it. */
const DATA_ATTRIBUTES: [string, string][] = [
  ["props", "astro-island"],
  ["data-page", "application/json"],
  ["data-props", "application/json"],
  ["data-react-props", "application/json"],
];
const DATA_ATTRIBUTE_ELEMENTS = "astro-island[props], [data-page], [data-props], [data-react-props]";

/** A page without a lang attribute whose text is mostly in a script written family name first (CJK, Hangul). */
function writtenFamilyFirst(lines: readonly string[]): boolean {
  let cjk = 0;
  let letters = 0;
  for (const line of lines.slice(0, 200)) {
    cjk += line.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu)?.length ?? 0;
    letters += line.match(/\p{L}/gu)?.length ?? 0;
  }
  return letters > 0 && cjk / letters > 0.3;
}

/** A sentence rather than a label: six words or more. */
/** A sentence: six words, or five ending like one (Turkish says much in few words: "Tüm çalışanlarımıza ad@… adresinden ulaşabilirsiniz."). */
const isProse = (line: string) => {
  const words = line.trim().split(/\s+/).length;
  return words >= 6 || (words >= 5 && /[.!?。]$/.test(line.trim()));
};

/** Placeholders of the target domain written on the page ("vorname.nachname@kanzlei.de"): the convention it states. */
function statedFormatsIn(lines: readonly string[], targetDomain: string): Pattern[] {
  const out = new Set<Pattern>();
  const placeholder = /([a-z][a-z._-]{0,40}[a-z])\s?(?:@|\[at\]|\(at\))\s?([a-z0-9.-]+\.[a-z]{2,24})/gi;
  for (const line of lines) {
    if (!mayHoldAddress(line)) continue;
    const prose = isProse(line);
    for (const [, localPart, domain] of foldForPlaceholders(line).matchAll(placeholder)) {
      if (getDomain(domain.toLowerCase()) !== targetDomain) continue;
      const format = placeholderFormat(localPart, prose);
      if (format) out.add(format);
    }
  }
  return [...out];
}

/** Lines that name a person, with or without an address (to name addresses found elsewhere on the site). */
function personNamesIn(lines: readonly string[]): string[] {
  const out = new Set<string>();
  for (const line of lines) {
    if (line.length > 300) continue;
    for (const name of namesOnLine(line)) out.add(name);
    if (out.size >= 300) break;
  }
  return [...out];
}

/** Languages spoken mainly in one country; `de-AT` style tags name the region outright. */
const LANGUAGE_COUNTRY: Record<string, CountryCode> = {
  de: "DE",
  fr: "FR",
  it: "IT",
  nl: "NL",
  pl: "PL",
  da: "DK",
  sv: "SE",
  fi: "FI",
  nb: "NO",
  cs: "CZ",
  ja: "JP",
};

function countryOfLanguage(lang: string): CountryCode | undefined {
  const [language, region] = lang.toLowerCase().split(/[-_]/);
  if (region && /^[a-z]{2}$/.test(region) && isSupportedCountry(region.toUpperCase()))
    return region.toUpperCase() as CountryCode;
  return language ? LANGUAGE_COUNTRY[language] : undefined;
}

function fromPlainText(body: string, targetDomain: string): PageExtraction {
  const lines = body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 5000);
  return {
    addresses: collectAddresses({ lines, marks: [], data: NO_DATA, targetDomain }),
    phones: phonesInLines(lines, countryOfDomain(targetDomain)),
    company: emptyCompanyFacts(),
    links: [],
    linkRefs: [],
    allLinks: [],
    meta: new Map(),
    title: null,
    jsonLd: [],
    lines,
    personNames: personNamesIn(lines),
    statedFormats: statedFormatsIn(lines, targetDomain),
  };
}

/** People and text a page carries as structured data: JSON-LD, microdata, and the data of app-rendered pages. */
interface StructuredData {
  people: { person: DataPerson; via: FoundAddress["via"] }[];
  /** The data's strings as lines (rich text broken at its tags), for the same scan as the page text. */
  lines: string[];
}
const NO_DATA: StructuredData = { people: [], lines: [] };

async function structuredData(
  body: string,
  jsonLdBlocks: readonly string[],
  scripts: readonly ScriptBlock[],
): Promise<StructuredData> {
  const sources: [FoundAddress["via"], DataReading][] = [["jsonld", readStructured(jsonLdRoots(jsonLdBlocks), true)]];
  if (hasMicrodata(body)) sources.push(["microdata", readStructured(await microdataItems(body), true)]);
  const appData = appDataOf(scripts);
  if (appData.length) sources.push(["data", readStructured(appData, false)]);
  return {
    people: sources.flatMap(([via, r]) => r.people.map((person) => ({ person, via }))),
    lines: sources.flatMap(([, r]) => r.texts.flatMap(linesOfText)).slice(0, MAX_DATA_LINES),
  };
}
const MAX_DATA_LINES = 5000;

/** What structured data says of an address's owner: stated parts, a native name that tells them, or a displayed name. */
function personOfData(p: DataPerson, email: string, familyFirstPage: boolean): Person {
  const local = email.slice(0, email.indexOf("@"));
  if (p.given && p.family) {
    // The parts without a middle name, the displayed name with one ("Hölzl Uwe T."): the middle name is shown.
    const middle = p.middle ?? (p.name ? middleShown({ first: p.given, last: p.family }, p.name) : null);
    const name: PersonName = { first: p.given, last: p.family, ...(middle ? { middle } : {}) };
    return { evidence: { kind: "stated", name }, name, position: p.position, native: p.native };
  }
  const aligned = p.stated ?? (p.native && p.name ? alignRomanized(p.native, p.name, local) : null);
  if (aligned)
    return { evidence: { kind: "stated", name: aligned }, name: aligned, position: p.position, native: p.native };
  if (!p.name) return { evidence: null, name: null, position: p.position, native: p.native };
  // A bare `name` is only a displayed name; beside a native one it is a rendering for Western readers.
  const evidence = shown(p.name, familyFirstPage && !p.native && !p.transcribed);
  return {
    evidence,
    name: readingFor(email, evidence) ?? splitFullName(p.name),
    position: p.position,
    native: p.native,
  };
}

interface Collect {
  lines: string[];
  marks: Mark[];
  data: StructuredData;
  targetDomain: string;
  pageNames?: string[];
  familyFirstPage?: boolean;
}

/** One entry per accepted address, with the best name and position the page gives for it. */
function collectAddresses({
  lines,
  marks,
  data,
  targetDomain,
  pageNames = [],
  familyFirstPage = false,
}: Collect): FoundAddress[] {
  const found = new Map<string, FoundAddress>();
  const add = (candidate: FoundAddress) => {
    const existing = found.get(candidate.email);
    if (!existing) found.set(candidate.email, candidate);
    else if (!existing.name && candidate.name) found.set(candidate.email, { ...candidate, via: existing.via });
  };

  // Structured data states name and title outright.
  for (const { person, via } of data.people) {
    for (const raw of person.emails) {
      const email = acceptAddress(raw, targetDomain);
      if (email) add({ email, ...personOfData(person, email, familyFirstPage), via });
    }
  }
  // A profile page names its person once, in its heading or title, often far from the address.
  const onPage = (email: string, near: Person) =>
    near.name ? near : { ...near, ...personOfPage(email, pageNames, familyFirstPage), native: near.native ?? null };
  for (const m of marks) {
    const email = acceptAddress(m.raw, targetDomain);
    if (email)
      add({
        email,
        ...onPage(email, personNear(email, lines, m.line, m.anchorText, undefined, familyFirstPage)),
        via: m.via,
      });
  }
  const scan = (text: readonly string[], via: FoundAddress["via"]) =>
    text.forEach((line, index) => {
      if (!mayHoldAddress(line)) return;
      const prose = isProse(line);
      for (const hit of scanAddresses(line)) {
        if (hit.example) continue;
        // "Adresy mają postać imie@firma.pl": a placeholder word in a sentence is the convention, not a mailbox.
        if (prose && placeholderFormat(hit.email.slice(0, hit.email.indexOf("@")), true)) continue;
        const email = acceptAddress(hit.email, targetDomain);
        // Link text repeats the address of a mailto link: no need to look for its person twice.
        if (email && !found.get(email)?.name)
          add({
            email,
            ...onPage(email, personNear(email, text, index, "", line.slice(0, hit.index), familyFirstPage)),
            via,
          });
      }
    });
  scan(lines, "text");
  scan(data.lines, "data");
  const stated = statedNamesOf(data.people.map(({ person }) => person));
  return [...found.values()].map((a) => withStatedName(a, stated));
}

const tokenKey = (words: readonly string[]) =>
  words
    .map((w) => nameKey(w))
    .filter(Boolean)
    .sort()
    .join(" ");

/** People in structured data that say which part of their name is which (givenName, familyName), by their name's words. */
function statedNamesOf(people: readonly DataPerson[]): Map<string, PersonName> {
  const out = new Map<string, PersonName>();
  for (const p of people) {
    if (!p.given || !p.family) continue;
    const name: PersonName = { first: p.given, last: p.family, ...(p.middle ? { middle: p.middle } : {}) };
    out.set(tokenKey(`${p.given} ${p.family}`.split(/\s+/)), name);
    if (p.middle) out.set(tokenKey(`${p.given} ${p.middle} ${p.family}`.split(/\s+/)), name);
  }
  return out;
}

/**
 * A name the page shows ("Demir Barış") that a structured-data person on the page states part by
 * part is read as stated; a middle initial shown beside it ("Femke M. Hendriks") does not hide it.
 */
function withStatedName(a: FoundAddress, stated: ReadonlyMap<string, PersonName>): FoundAddress {
  if (a.evidence?.kind !== "shown" || stated.size === 0) return a;
  const words = a.evidence.text.replace(/,/g, " ").split(/\s+/);
  const name = stated.get(tokenKey(words)) ?? stated.get(tokenKey(words.filter((w) => !/^\p{Lu}\.$/u.test(w))));
  return name ? { ...a, evidence: { kind: "stated", name }, name } : a;
}

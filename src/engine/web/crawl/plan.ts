import { asciiFold } from "../../../platform/ascii-fold.js";
import { CATEGORY_KEYWORDS, type Category } from "../../data/crawl-keywords.js";
import { looksLikePersonName } from "../../people/names.js";

/**
 * Which pages of a site are worth reading for contacts, and in which order. A candidate's score
 * (higher is better; 0 = not worth a fetch) comes from what the link says and where it points, in
 * several languages, and from the page it was found on: a team listing's "next" link and its
 * per-person profile pages inherit the listing's standing, and vCards linked from them rank with
 * the profiles. Words are compared without accents or case ("Über uns" = "uber uns").
 */

/** A link as a page shows it: the target, its text and its `rel`. */
export interface LinkRef {
  url: string;
  text?: string;
  rel?: string;
}

/** A URL worth fetching and how much. */
export interface Candidate {
  url: string;
  score: number;
}

export const CATEGORY_SCORE: Record<Category, number> = {
  people: 100,
  contact: 90,
  imprint: 80,
  about: 70,
  press: 50,
  security: 45,
  careers: 35,
  privacy: 30,
};
export const HOME_SCORE = 1000;
const PROFILE_SCORE = 76;
const VCARD_SCORE = 78;
/** A home-page navigation link whose words say nothing known: read last, when budget is left. */
const UNKNOWN_NAV_SCORE = 8;
/**
 * Guessed paths rank below every page the site links to, even navigation in words no list knows
 * (UNKNOWN_NAV_SCORE): they often answer 404, and on a site in another language they are what it
 * does not have while its own menu leads to what it has.
 */
const GUESS_CEILING = 7;
/**
 * News and press articles the home page or a press page links to, and those a sitemap lists: read
 * last, when the budget is left (a press release names its press contact; most articles name none).
 */
const ARTICLE_SCORE = 0.5;
/**
 * A newsroom item (not a blog post) the home page or the newsroom links: the company's own news,
 * often a press release that names its press contact. Read before guessed paths, after unknown navigation.
 */
const HOME_NEWS_SCORE = 7.5;
/** Another page of the newsroom (a year's archive, a next page), linked from the newsroom. */
const NEWSROOM_PAGE_SCORE = 4;
const NEWSROOM =
  /\/(news|newsroom|press|presse|prensa|stampa|pers|aktuelles|neuigkeiten|actualites|actualite|actualidad|noticias|notizie|nieuws|nyheter|uutiset|aktualnosci|haberler|hirek|novosti|tin-tuc)\/[^/]+\/?$/;
const SITEMAP_ARTICLE_SCORE = 0.25;

/** Lowercase, accents dropped, punctuation to spaces: "Über uns" → "uber uns", "/ons-team/" → "ons team". */
export function fold(text: string): string {
  return asciiFold(text, { compatibility: true })
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'.]+/gu, " ")
    .trim();
}

const FOLDED = CATEGORY_KEYWORDS.map(([cat, words]) => [cat, words.map((w) => fold(w))] as const);

function categoryOfText(text: string): Category | null {
  const t = ` ${fold(text)} `;
  if (t.length > 60) return null; // a paragraph, not a navigation label
  // Japanese and Chinese labels are not split into words ("スタッフ紹介"): their keywords match inside them.
  for (const [cat, words] of FOLDED)
    if (words.some((w) => t.includes(` ${w} `) || (!/[a-z]/.test(w) && t.includes(w)))) return cat;
  return null;
}

function categoryOfPath(path: string): Category | null {
  const words = fold(
    decodePath(path)
      .replace(/\.(html?|php|aspx?)$/, "")
      .replace(/\//g, " "),
  );
  if (!words) return null;
  const joined = ` ${words} `;
  for (const [cat, list] of FOLDED) {
    // Whole words first ("/team/"), then word parts ("/ourteam", "/teamseite") for Latin keywords of 5+ letters and "team".
    if (
      list.some(
        (w) =>
          joined.includes(` ${w} `) || ((w.length >= 5 || w === "team") && /^[a-z]+$/.test(w) && joined.includes(w)),
      )
    )
      return cat;
  }
  return null;
}

const BUNDLE_ROUTE_CATEGORIES = new Set<Category>(["people", "contact", "about", "imprint"]);
/** A bundle's endpoint in other words: after the guessed paths, read when the budget allows (the deep pass). */
const BUNDLE_OTHER_ROUTE_SCORE = 1;

function isBundleRouteWorthReading(path: string): boolean {
  const category = categoryOfPath(path.replace(/\.json$/, ""));
  return category !== null && BUNDLE_ROUTE_CATEGORIES.has(category);
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Script files that are a library, a framework's runtime or a tag, not the site's own code. */
const LIBRARY_SCRIPT =
  /(^|[/._-])(vendors?|jquery|bootstrap|polyfills?|runtime|framework|webpack|chunks?|analytics|gtag|gtm|tag-?manager|cookie|consent|borlabs|wp-includes|wp-emoji|recaptcha|matomo|piwik|hotjar|lodash|react|vue|angular|swiper|slick|lightbox|modernizr|common)([/._-]|$)/;
/**
 * The site-wide bundle every page loads (`/assets/app.3f2a1c.js`, `/static/js/main.8e1b2c4d.js`):
 * its router may fetch a page's people, beside the endpoints of every other page.
 */
const SITE_BUNDLE = /(^|[/._-])(main|app|bundle)([/._-]|$)/;

const isSiteBundle = (url: string) => {
  const path = new URL(url).pathname.toLowerCase();
  return /\.m?js$/.test(path) && SITE_BUNDLE.test(path);
};

/** Documents read only off the request path: PDFs and Office files (.docx, .xlsx). */
const DOCUMENT = /\.(pdf|docx|xlsx)$/;
const ASSET =
  /\.(pdf|jpe?g|png|gif|svg|webp|avif|ico|zip|gz|css|js|mjs|mp4|mp3|webm|docx?|xlsx?|pptx?|woff2?|ttf|json|rss|atom)$/;
/**
 * Pages that show a reader a form, never the company's people: a login, a search, a cart, an
 * account. Never fetched: sites put them behind bot challenges, and a challenged login page asked
 * twice stops the pass asking other challenged pages again, the team page among them (wider-web
 * seed 1426015225).
 */
const FORM_PAGE =
  /\/(login|log-in|signin|sign-in|logout|log-out|signup|sign-up|register|search|suche|recherche|buscar|cerca|zoeken|cart|basket|warenkorb|checkout|kasse|account|my-account|mein-konto|wp-login\.php|wp-admin)\/?$/;
/** Article archives mention "team" and "contact" in titles; they rank far below the site's own pages. */
const ARCHIVE =
  /\/(blog|news|aktuelles|neuigkeiten|actualites|actualite|actualidad|noticias|notizie|nieuws|journal|insights|kennisbank|magazin|magazine|articles?|posts?|events?|veranstaltungen|tag|tags|category|categorie|kategorie|author|autor|wp-content|product|products|produkte|shop)\//;
const DATED = /\/(19|20)\d\d\//;
/** News and press articles (not products or tag pages): a press release may name its press contact. */
const ARTICLE =
  /\/(blog|news|aktuelles|neuigkeiten|actualites|actualite|actualidad|noticias|notizie|nieuws|nyheter|uutiset|aktualnosci|haberler|hirek|novosti|tin-tuc|journal|insights|magazin|magazine|articles?|posts?|press|presse|prensa|stampa)\/[^/]+\/?$/;
const PAGE_NUMBER =
  /(?:\/(?:page|pagina|seite|seite-|p)\/?\d{1,3}\/?$|\/\d{1,3}\/?$|[?&](?:page|paged|p|pg|seite|pagina)=\d{1,3}(?:&|$))/i;
const PAGER_TEXT =
  /^(?:[«‹<←]?\s*)?(?:next|next page|more|load more|weiter|nachste|nachste seite|vor|suivant|page suivante|suivante|siguiente|pagina siguiente|successivo|successiva|avanti|volgende|次へ|次のページ|\d{1,3})(?:\s*[»›>→])?$/;

/** A document (PDF, .docx, .xlsx): read only by a pass that reads documents (the deep pass), never on the request path. */
export function isDocumentUrl(url: string): boolean {
  try {
    return DOCUMENT.test(new URL(url).pathname.toLowerCase());
  } catch {
    return false;
  }
}

/** Words of documents that may name people beside the directories: reports, brochures, profiles. */
const REPORT =
  /\b(reports?|annual|jahresbericht|geschaftsbericht|geschaeftsbericht|rapport|informe|relazione|jaarverslag|brochure|broschure|brochura|prospectus|factsheet|fact sheet|newsletter|profile|profil|portrait|overview|ubersicht|uebersicht|presentation|praesentation|prasentation)\b/;

/**
 * A PDF's rank from its link text and file name: a directory of people ranks just below the
 * people pages, one about contact or the company below the pages of its kind, reports and
 * brochures after them, any other document last (read when the pass has budget left).
 */
function documentScore(text: string, path: string): number {
  const name = path.replace(DOCUMENT, "");
  const cats = [categoryOfText(text), categoryOfPath(name)];
  if (cats.includes("people")) return CATEGORY_SCORE.people - 12;
  if (cats.some((c) => c === "contact" || c === "imprint" || c === "about" || c === "press")) return 40;
  if (REPORT.test(fold(`${text} ${decodePath(name).replace(/[/_-]+/g, " ")}`))) return 20;
  return 3;
}

/** Score of a URL by itself (sitemap entries, guessed paths, pending URLs): null when not worth a fetch. */
export function scoreUrl(url: string): number | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const path = u.pathname.toLowerCase();
  if ((path === "/" || path === "") && !u.search) return HOME_SCORE;
  if (path.endsWith(".vcf")) return VCARD_SCORE - 18;
  if (DOCUMENT.test(path)) return documentScore("", path);
  if (ASSET.test(path) || FORM_PAGE.test(path)) return null;
  const cat = categoryOfPath(path);
  if (!cat) return ARTICLE.test(path) ? SITEMAP_ARTICLE_SCORE : null;
  return adjust(CATEGORY_SCORE[cat], path);
}

/** Deeper pages and archive pages rank below a shallow page of the same kind. */
function adjust(score: number, path: string): number {
  const depth = path.split("/").filter(Boolean).length;
  let s = score - Math.min(9, Math.max(0, depth - 1));
  // An article, product or tag whose slug holds a keyword ("/news/2026/team-4", "/tag/partners") is
  // seldom the page the keyword names: it ranks below the home page's unknown navigation.
  if (ARCHIVE.test(path) || DATED.test(path)) s *= 0.07;
  return s;
}

/** The page a link was found on, as far as ranking its links goes. */
export interface LinkSource {
  url: string;
  /** The score the page itself was fetched with. */
  score: number;
  /** True when the page lists people (a team page, or one showing several named addresses). */
  listsPeople: boolean;
  /** People the page already shows with their address (nameTokens of each): their profile pages can wait. */
  knownPeople?: ReadonlySet<string>;
}

/** A name as its folded words in order of the alphabet: "Tanaka Hiroshi" and "Hiroshi Tanaka" are one key. */
export function nameTokens(name: string): string {
  return fold(name).split(" ").filter(Boolean).sort().join(" ");
}

/**
 * The profile page of someone the listing already shows with an address adds little: it ranks
 * below the site's other pages (contact, imprint, about, press, other sections), above articles.
 */
const KNOWN_PROFILE_SCORE = 20;

function isPeopleDir(path: string): boolean {
  const first = path.split("/").filter(Boolean).slice(0, -1);
  return first.some((seg) => categoryOfPath(`/${seg}`) === "people");
}

const SLUG = /^[\p{L}'’]+(?:[-_.][\p{L}'’]+){1,4}(?:\.html?)?$/u;

/** Ranked as a home-page menu link in unknown words, or as the page such a link sends the reader to. */
const isMenuPage = (score: number) => score === UNKNOWN_NAV_SCORE || score === UNKNOWN_NAV_SCORE - 1;

/** Score of a link found on a page: its words, where it points, and the page it is on. */
export function scoreLink(link: LinkRef, from?: LinkSource): number | null {
  let u: URL;
  try {
    u = new URL(link.url);
  } catch {
    return null;
  }
  const path = u.pathname.toLowerCase();
  if (path.endsWith(".vcf")) return from?.listsPeople ? VCARD_SCORE : VCARD_SCORE - 18;
  const text = (link.text ?? "").replace(/\s+/g, " ").trim();
  // The data a page's script fetches, and where a page sends the reader (a meta refresh, a script):
  // the page itself, as ranked (a team page's people are there).
  const own = (link.rel ?? "").toLowerCase();
  if (own === "data" || own === "refresh") {
    // A site-wide bundle names the endpoints of every page: those whose words name people, contact
    // or the company ("/api/v1/team", "/wp-json/wp/v2/staff") rank as the bundle; the others (its
    // products, news, search, or a team page named in words no list knows) come last.
    if (from && own === "data" && isSiteBundle(from.url) && !isBundleRouteWorthReading(path))
      return BUNDLE_OTHER_ROUTE_SCORE;
    return from ? Math.min(from.score, CATEGORY_SCORE.people) - 1 : (scoreUrl(link.url) ?? 0);
  }
  // A split bundle's chunk, named by the route that loads it (path and name): as the bundle's
  // endpoints are; another route's chunk one above them, so that the endpoint it fetches is read too.
  if (own === "chunk" && from)
    return isBundleRouteWorthReading(text)
      ? Math.min(from.score, CATEGORY_SCORE.people) - 1
      : BUNDLE_OTHER_ROUTE_SCORE + 1;
  // The site's own script file on a page read for its people, contact or company that shows no one
  // with an address yet: it may fetch them (read as that page's script). Libraries, tags and bundles
  // of the whole site are not. A page the home page's menu names in words no list knows ("Ons
  // kantoor"), or where such a page sends the reader, is read for what it may be, its script too.
  if (own === "script") {
    const section =
      !!from && from.score < HOME_SCORE && (from.score >= CATEGORY_SCORE.about - 9 || isMenuPage(from.score));
    if (!section || from.knownPeople?.size || !/\.m?js$/.test(path) || LIBRARY_SCRIPT.test(path)) return null;
    // The page's own script first; the site's bundle (one request a site: every page links the same file) after it.
    return Math.min(from.score, CATEGORY_SCORE.people) - (SITE_BUNDLE.test(path) ? 3 : 2);
  }
  // A document a team page links to is most likely its directory.
  if (DOCUMENT.test(path))
    return Math.max(documentScore(text, path), from?.listsPeople ? CATEGORY_SCORE.people - 12 : 0);
  if (ASSET.test(path) || FORM_PAGE.test(path)) return null;
  const rel = (link.rel ?? "").toLowerCase();

  if (from?.listsPeople) {
    const parent = new URL(from.url);
    const paged = PAGE_NUMBER.test(path + u.search);
    const pagerText = PAGER_TEXT.test(fold(text)) || /^[«‹<←]?\s*\d{1,3}\s*[»›>→]?$/.test(text);
    const sameSection = path.split("/")[1] === parent.pathname.toLowerCase().split("/")[1];
    // The rest of a paginated listing ranks with the listing itself; one that shows people with
    // their addresses as a people page, whatever its address said (a label no list knows).
    if (/\bnext\b/.test(rel) || (paged && (pagerText || sameSection))) {
      return (from.knownPeople?.size ?? 0) >= 2 && from.score < HOME_SCORE
        ? Math.max(from.score, CATEGORY_SCORE.people) - 1
        : from.score - 1;
    }
    const segments = path.split("/").filter(Boolean);
    const last = segments[segments.length - 1] ?? "";
    const underParent =
      path.startsWith(parent.pathname.toLowerCase().replace(/\/?$/, "/")) && path !== parent.pathname.toLowerCase();
    const nameText = looksLikePersonName(text) ? text : (text.split(/\s{2,}|\n|,|–|—|\|/)[0] ?? "");
    const named = looksLikePersonName(nameText);
    const profile = named && from.knownPeople?.has(nameTokens(nameText)) ? KNOWN_PROFILE_SCORE : PROFILE_SCORE;
    if ((underParent || isPeopleDir(path)) && (SLUG.test(last) || named)) return profile;
    if (named && !categoryOfPath(path) && !ARCHIVE.test(path)) return profile - 10;
  } else if (isPeopleDir(path)) {
    const last = path.split("/").filter(Boolean).pop() ?? "";
    if (SLUG.test(last) && !PAGE_NUMBER.test(path)) return PROFILE_SCORE - 6;
  }

  const byText = categoryOfText(text);
  const byPath = categoryOfPath(path);
  // The newsroom: the one the home page's menu names ("News", "Aktualności") ranks as a press page
  // wherever it lives (/news/archive/2026), and its items as the home page's news items; its other
  // pages (years, next pages) are read late.
  if (!u.search) {
    const fromHome = from?.score === HOME_SCORE;
    const fromNewsroom = !!from && !fromHome && categoryOfPath(new URL(from.url).pathname) === "press";
    if ((fromHome || fromNewsroom) && NEWSROOM.test(path)) return HOME_NEWS_SCORE;
    if (fromHome && byText === "press") return CATEGORY_SCORE.press - 1;
    if (fromNewsroom && byPath === "press") return NEWSROOM_PAGE_SCORE;
  }
  const best = Math.max(byText ? CATEGORY_SCORE[byText] : 0, byPath ? CATEGORY_SCORE[byPath] : 0);
  if (!best) {
    if ((path === "/" || path === "") && !u.search) return HOME_SCORE;
    // Navigation of the home page in words no list knows: worth a look once the known pages are read.
    const shortLabel = text.length > 1 && text.length <= 32 && text.split(" ").length <= 4;
    const plain = !ARCHIVE.test(path) && !u.search;
    if (from?.score === HOME_SCORE && shortLabel && path.split("/").filter(Boolean).length <= 2 && plain)
      return UNKNOWN_NAV_SCORE;
    // The sub-pages of a section read for its label ("Giới thiệu" → "/gioi-thieu/doi-ngu"): a
    // team page often sits under "about" whatever the language calls it.
    if (from && from.score < HOME_SCORE && isSubPage(path, new URL(from.url).pathname) && shortLabel && plain)
      return UNKNOWN_NAV_SCORE - 1;
    // A short label in unknown words on the "about" page ("Lo studio" → "La squadra »"): the company's
    // own section pages, worth a look before guessed paths (its team often hangs there).
    if (from && isAboutPage(from) && shortLabel && plain && path.split("/").filter(Boolean).length <= 2)
      return ABOUT_LINK_SCORE;
    // Two steps into the site's own words ("Organisatie" → "Wie zijn wij"): read last, when the
    // pass has budget left after guessed paths.
    if (from?.score === UNKNOWN_NAV_SCORE && shortLabel && plain && path.split("/").filter(Boolean).length <= 2)
      return UNKNOWN_SECOND_STEP_SCORE;
    const fromHomeOrPress =
      from?.score === HOME_SCORE || (from && categoryOfPath(new URL(from.url).pathname) === "press");
    if (fromHomeOrPress && ARTICLE.test(path) && !u.search) return ARTICLE_SCORE;
    return null;
  }
  return adjust(best, path);
}

/** Links in unknown words on a page the home page's menu names in unknown words: after guessed paths. */
const UNKNOWN_SECOND_STEP_SCORE = 2;

/** Links in unknown words on an "about" page: above guessed paths (GUESS_CEILING), below the home page's own menu. */
const ABOUT_LINK_SCORE = (UNKNOWN_NAV_SCORE + GUESS_CEILING) / 2;

/** A page read as the company's "about" page: ranked as one, and its own address says so ("/lo-studio", "/ueber-uns"). */
function isAboutPage(from: LinkSource): boolean {
  const ranked = from.score >= CATEGORY_SCORE.about - 9 && from.score <= CATEGORY_SCORE.about;
  return ranked && !from.listsPeople && categoryOfPath(new URL(from.url).pathname) === "about";
}

/** A page one level under another ("/about/team" under "/about"). */
function isSubPage(path: string, parentPath: string): boolean {
  const parent = parentPath.toLowerCase().replace(/\/+$/, "");
  if (!parent || !path.startsWith(`${parent}/`)) return false;
  return (
    path
      .slice(parent.length + 1)
      .replace(/\/+$/, "")
      .split("/").length === 1
  );
}

/** Paths tried even when no link points to them (sites often leave them out of the navigation). */
export const GUESSED_PATHS = [
  "/contact",
  "/team",
  "/about",
  "/impressum",
  "/imprint",
  "/people",
  "/leadership",
  "/staff",
  "/press",
  "/careers",
  "/privacy",
  "/.well-known/security.txt",
];

/** Guessed paths of a site as candidates, ranked below linked pages. */
export function guessedCandidates(origin: string): Candidate[] {
  return GUESSED_PATHS.map((p) => `${origin}${p}`).flatMap((url) => {
    const s = scoreUrl(url);
    // Keeps the guesses' own order (/team before /privacy) under the ceiling.
    return s === null ? [] : [{ url, score: Math.max(1, GUESS_CEILING * (s / CATEGORY_SCORE.people)) }];
  });
}

/**
 * The URL rewritten onto the origin the site answers on (http → https, apex ↔ www), so one page
 * is not fetched under two spellings; null for other hosts.
 */
export function onOrigin(raw: string, origin: string): string | null {
  try {
    const u = new URL(raw);
    const o = new URL(origin);
    const twin = (h: string) => (h.startsWith("www.") ? h.slice(4) : `www.${h}`);
    if (u.hostname !== o.hostname && u.hostname !== twin(o.hostname)) return null;
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    u.protocol = o.protocol;
    u.host = o.host;
    return canonical(u.href);
  } catch {
    return null;
  }
}

/**
 * Merges candidates into a ranked frontier: one entry per canonical URL with its best score,
 * without the ones already done, highest score first (ties keep their order).
 */
export function rankFrontier(candidates: Iterable<Candidate>, done: ReadonlySet<string>): Candidate[] {
  const best = new Map<string, Candidate>();
  for (const c of candidates) {
    const url = canonical(c.url);
    if (!url || done.has(url) || c.score <= 0) continue;
    const known = best.get(url);
    if (!known || known.score < c.score) best.set(url, { url, score: c.score });
  }
  return [...best.values()].sort((a, b) => b.score - a.score);
}

/** Candidate URLs, ranked and de-duplicated, without the ones already done (URL-only scoring). */
export function rankCandidates(urls: Iterable<string>, done: ReadonlySet<string>): string[] {
  const scored: Candidate[] = [];
  for (const url of urls) {
    const s = scoreUrl(url);
    if (s !== null && s > 0) scored.push({ url, score: s });
  }
  return rankFrontier(scored, done).map((c) => c.url);
}

/** Links of a crawled page as candidates on `origin`, scored in the context of that page. */
export function linkCandidates(links: readonly LinkRef[], from: LinkSource, origin: string): Candidate[] {
  const out: Candidate[] = [];
  for (const link of links) {
    const url = onOrigin(link.url, origin);
    if (!url) continue;
    const score = scoreLink({ ...link, url }, from);
    if (score !== null && score > 0) out.push({ url, score });
  }
  return out;
}

/** Whether a page is a listing of people: its address says so, or it shows several people's addresses or profile links. */
export function listsPeople(
  url: string,
  namedAddresses: number,
  links: readonly LinkRef[],
  personalAddresses = 0,
): boolean {
  let path: string;
  try {
    path = new URL(url).pathname.toLowerCase();
  } catch {
    return false;
  }
  if (categoryOfPath(path) === "people" && !isProfilePath(path)) return true;
  if (namedAddresses >= 2 || personalAddresses >= 3) return true;
  return links.filter((l) => looksLikePersonName((l.text ?? "").trim())).length >= 3;
}

function isProfilePath(path: string): boolean {
  const last = path.split("/").filter(Boolean).pop() ?? "";
  return isPeopleDir(path) && SLUG.test(last) && categoryOfPath(`/${last}`) !== "people";
}

/** One spelling per page: no fragment, no trailing slash (except the root), no tracking query. */
export function canonical(raw: string): string | null {
  try {
    const u = new URL(raw);
    u.hash = "";
    for (const k of [...u.searchParams.keys()]) if (/^(utm_|fbclid|gclid|ref$)/.test(k)) u.searchParams.delete(k);
    // The first page of a listing is the listing: "?page=1" is read once, as the page without it.
    for (const k of ["page", "paged"]) if (u.searchParams.get(k) === "1") u.searchParams.delete(k);
    if (u.pathname.length > 1) u.pathname = u.pathname.replace(/\/+$/, "");
    return u.href;
  } catch {
    return null;
  }
}

/** `<loc>` URLs of a sitemap (or sitemap index) document. */
export function sitemapLocations(xml: string): { urls: string[]; isIndex: boolean } {
  const isIndex = /<sitemapindex[\s>]/i.test(xml);
  const urls = [...xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?\s*([^<\]\s]+)\s*(?:\]\]>)?\s*<\/loc>/gi)].map(([, loc]) =>
    loc.replace(/&amp;/g, "&"),
  );
  return { urls, isIndex };
}

/**
 * Child sitemaps of an index in the order worth reading: page sitemaps (where team and contact
 * pages live) before posts, products, categories, tags, images and authors.
 */
export function rankChildSitemaps(urls: readonly string[]): string[] {
  const weight = (url: string) => {
    const name = url.toLowerCase().split("/").pop() ?? "";
    if (
      /(post|blog|news|product|produkt|categor|tag|image|video|author|archive|event|shop)/.test(
        name.replace(/sitemap/g, ""),
      )
    )
      return 2;
    if (/(page|seite|pagina|main|static|default|team|people|about|contact)/.test(name)) return 0;
    return 1;
  };
  return urls
    .map((url, i) => ({ url, w: weight(url), i }))
    .sort((a, b) => a.w - b.w || a.i - b.i)
    .map((x) => x.url);
}

// One case per test: which pages the crawler chooses, how addresses are published, how
// names are read and spelt, and how formats are inferred. Pure functions, no network.
import { describe, expect, it } from "vitest";
import { proposeAddress } from "../../src/engine/finder/email-finder.js";
import { applyPattern, inferPatterns } from "../../src/engine/finder/patterns.js";
import type { EmailRow } from "../../src/engine/index/read.js";
import { looksLikePersonName, nameSplits, splitFullName } from "../../src/engine/people/names.js";
import {
  canonical,
  guessedCandidates,
  linkCandidates,
  listsPeople,
  onOrigin,
  rankChildSitemaps,
  scoreLink,
  scoreUrl,
} from "../../src/engine/web/crawl/plan.js";
import {
  acceptAddress,
  deobfuscate,
  mailtoAddresses,
  scanAddresses,
} from "../../src/engine/web/extract/email-addresses.js";
import { extractPage } from "../../src/engine/web/extract/page.js";
import { fittingName, nameFromSite } from "../../src/engine/web/extract/people.js";
import { vCardAddresses } from "../../src/engine/web/extract/vcard.js";

const home = { url: "https://acme.test/", score: 1000, listsPeople: false };
const score = (url: string, text = "", rel = "", from = home) => scoreLink({ url, text, rel }, from);
const scanned = (text: string, domain: string) =>
  scanAddresses(text)
    .map((h) => acceptAddress(h.email, domain))
    .filter(Boolean);

describe("page choice by what links say and where they point", () => {
  it("recognises team, contact, imprint and about links in German, French, Spanish, Italian, Dutch and Japanese", () => {
    const people = [
      ["https://acme.test/anwaelte/", "Anwälte"],
      ["https://acme.test/ueber-uns/team/", "Unser Team"],
      ["https://acme.test/equipe/", "L'équipe"],
      ["https://acme.test/equipo/", "Nuestro equipo"],
      ["https://acme.test/il-team/", "Il team"],
      ["https://acme.test/over-ons/ons-team/", "Ons team"],
      ["https://acme.test/company/member.html", "スタッフ紹介"],
      ["https://acme.test/x1", "Ansprechpartner"],
    ];
    for (const [url, text] of people) expect(score(url!, text), text).toBeGreaterThanOrEqual(90);
    const contact = [
      ["https://acme.test/kontakt/", "Kontakt"],
      ["https://acme.test/nous-contacter/", "Nous contacter"],
      ["https://acme.test/contacto/", "Contacto"],
      ["https://acme.test/contatti/", "Contatti"],
      ["https://acme.test/inquiry/", "お問い合わせ"],
    ];
    for (const [url, text] of contact) expect(score(url!, text), text).toBe(90);
    for (const [url, text] of [
      ["https://acme.test/impressum/", "Impressum"],
      ["https://acme.test/mentions-legales/", "Mentions légales"],
      ["https://acme.test/aviso-legal/", "Aviso legal"],
      ["https://acme.test/note-legali/", "Note legali"],
    ]) {
      expect(score(url!, text), text).toBe(80);
    }
    for (const [url, text] of [
      ["https://acme.test/ueber-uns/", "Über uns"],
      ["https://acme.test/qui-sommes-nous/", "Qui sommes-nous"],
      ["https://acme.test/quienes-somos/", "Quiénes somos"],
      ["https://acme.test/chi-siamo/", "Chi siamo"],
      ["https://acme.test/over-ons/", "Over ons"],
    ]) {
      expect(score(url!, text), text).toBe(70);
    }
  });

  it("knows team and contact words of more languages (pl, pt, sv, da, tr), with letters NFKD keeps whole (ł, ø, ı)", () => {
    expect(score("https://acme.test/o-nas/zespol/", "Zespół")).toBeGreaterThanOrEqual(90);
    expect(score("https://acme.test/x2", "Nossa equipe")).toBeGreaterThanOrEqual(99);
    expect(score("https://acme.test/x3", "Medarbejdere")).toBeGreaterThanOrEqual(99);
    expect(score("https://acme.test/iletisim", "İletişim")).toBe(90);
    expect(score("https://acme.test/om-oss/", "Om oss")).toBe(70);
  });

  it("gives home-page navigation in unknown words a last place instead of none", () => {
    expect(score("https://acme.test/tiimi/", "Tiimi")).toBe(8);
    expect(
      score("https://acme.test/tiimi/", "Tiimi", "", { url: "https://acme.test/x/", score: 70, listsPeople: false }),
    ).toBeNull();
    expect(score("https://acme.test/tarinat/2024/a/b", "Lue lisää tästä artikkelista nyt")).toBeNull();
    // 'uutiset' (news) is a known newsroom word: a deep item of the newsroom ranks as a dated
    // article whose path holds a keyword, below guessed paths, not as unknown navigation.
    const newsItem = score("https://acme.test/uutiset/2024/a/b", "Lue lisää tästä artikkelista nyt");
    expect(newsItem).toBeGreaterThan(0);
    expect(newsItem).toBeLessThan(7);
  });

  it("reads the link text when the path says nothing, and the path when the text says nothing", () => {
    expect(score("https://acme.test/p/123", "Unser Team")).toBeGreaterThanOrEqual(99);
    expect(score("https://acme.test/kontakt/", "Schreiben Sie uns")).toBe(90);
    expect(score("https://acme.test/produkte/", "Produkte")).toBeNull();
  });

  it("ranks blog posts that mention the team far below the team page", () => {
    expect(score("https://acme.test/blog/2024/new-team-member/", "Welcome to the team")!).toBeLessThan(40);
    expect(score("https://acme.test/team/", "Team")!).toBe(100);
  });

  it("continues a paginated team listing: /team/2/, ?page=2, rel=next and 'weiter'/'suivant'/'siguiente' links", () => {
    const listing = { url: "https://acme.test/team/", score: 100, listsPeople: true };
    expect(score("https://acme.test/team/2/", "2", "", listing)).toBe(99);
    expect(score("https://acme.test/team/?page=2", "Next page", "", listing)).toBe(99);
    expect(score("https://acme.test/team/seite/2/", "Weiter »", "", listing)).toBe(99);
    expect(score("https://acme.test/equipe/page/2/", "Suivant", "", listing)).toBe(99);
    expect(score("https://acme.test/equipo/pagina/2/", "Siguiente »", "", listing)).toBe(99);
    expect(score("https://acme.test/whatever", "", "next", listing)).toBe(99);
  });

  it("reads one profile page per person linked from a listing, and the vCards a listing links", () => {
    const listing = { url: "https://acme.test/chi-siamo/", score: 70, listsPeople: true };
    expect(score("https://acme.test/persone/giulia-rossi/", "Giulia Rossi", "", listing)).toBe(76);
    expect(score("https://acme.test/chi-siamo/marco-bianchi/", "", "", listing)).toBe(76);
    expect(score("https://acme.test/vcard/giulia-rossi.vcf", "vCard", "", listing)).toBe(78);
    // Outside a listing a profile URL still ranks as one, a little lower.
    expect(score("https://acme.test/people/jane-doe/", "Jane Doe")).toBe(70);
  });

  it("tells a listing of people by its address, its named addresses or its profile links", () => {
    expect(listsPeople("https://acme.test/our-team/", 0, [])).toBe(true);
    expect(listsPeople("https://acme.test/people/jane-doe", 0, [])).toBe(false);
    const cards = ["Jane Doe", "John Roe", "Ana Lima"].map((text, i) => ({ url: `https://acme.test/p/${i}`, text }));
    expect(listsPeople("https://acme.test/about/", 0, cards)).toBe(true);
    expect(listsPeople("https://acme.test/about/", 2, [])).toBe(true);
    expect(listsPeople("https://acme.test/about/", 1, [])).toBe(false);
  });

  it("keeps links on the site's own origin across http → https and apex ↔ www, and drops other hosts", () => {
    expect(onOrigin("http://acme.test/team/", "https://www.acme.test")).toBe("https://www.acme.test/team");
    expect(onOrigin("https://www.acme.test/kontakt#form", "https://acme.test")).toBe("https://acme.test/kontakt");
    expect(onOrigin("https://blog.acme.test/team", "https://acme.test")).toBeNull();
    const found = linkCandidates(
      [
        { url: "http://acme.test/team/", text: "Team" },
        { url: "https://acme.test/team", text: "Team" },
      ],
      home,
      "https://acme.test",
    );
    expect(new Set(found.map((c) => c.url))).toEqual(new Set(["https://acme.test/team"]));
  });

  it("reads page sitemaps of a sitemap index before post, product and category sitemaps", () => {
    const children = [
      "https://a.test/post-sitemap.xml",
      "https://a.test/product-sitemap.xml",
      "https://a.test/page-sitemap.xml",
      "https://a.test/sitemap-misc.xml",
    ];
    expect(rankChildSitemaps(children)).toEqual([
      "https://a.test/page-sitemap.xml",
      "https://a.test/sitemap-misc.xml",
      "https://a.test/post-sitemap.xml",
      "https://a.test/product-sitemap.xml",
    ]);
    expect(scoreUrl("https://a.test/en/about-us/our-people")).toBeGreaterThanOrEqual(90);
    expect(canonical("https://a.test/team/?utm_source=x")).toBe("https://a.test/team");
  });
});

describe("ways of publishing an address", () => {
  it("reads name(at)domain.tld, [at]/[dot], AT/DOT and their bracket, spacing and language variants", () => {
    const d = "acme.de";
    expect(scanned("katrin.bergmann(at)acme.de", d)).toEqual(["katrin.bergmann@acme.de"]);
    expect(scanned("juergen.mueller (at) acme (punkt) de", d)).toEqual(["juergen.mueller@acme.de"]);
    expect(scanned("jane [at] acme [dot] de", d)).toEqual(["jane@acme.de"]);
    expect(scanned("jane AT acme DOT de", d)).toEqual(["jane@acme.de"]);
    expect(scanned("jane AT acme.de", d)).toEqual(["jane@acme.de"]);
    expect(scanned("jane{at}acme{dot}de", d)).toEqual(["jane@acme.de"]);
    expect(scanned("jane -at- acme -dot- de", d)).toEqual(["jane@acme.de"]);
    expect(scanned("office(a)acme.de", d)).toEqual(["office@acme.de"]);
    expect(scanned("anna.berg @ acme.de", d)).toEqual(["anna.berg@acme.de"]);
    expect(scanned("Tickets @ shop.acme.de", d)).toEqual([]);
    expect(scanned("jruiz (arroba) acme (punto) de", d)).toEqual(["jruiz@acme.de"]);
    expect(scanned("info★acme.de（★を@に変えてください）", d)).toEqual(["info@acme.de"]);
    expect(deobfuscate("jean-a-b@acme.de")).toBe("jean-a-b@acme.de");
  });

  it("keeps prose, placeholders, asset names, package versions and other domains out", () => {
    const d = "acme.de";
    expect(scanned("Find us at acme.de — we meet at the fair", d)).toEqual([]);
    for (const placeholder of [
      "vorname.nachname@acme.de",
      "firstname.lastname@acme.de",
      "prenom.nom@acme.de",
      "nombre.apellido@acme.de",
      "max.mustermann@acme.de",
      "x@example.com",
    ]) {
      expect(acceptAddress(placeholder, d), placeholder).toBeNull();
    }
    expect(acceptAddress("logo@2x.png", d)).toBeNull();
    expect(scanned("npm install @acme/sdk@4.2.0 and jquery@3.7.1.min.js", d)).toEqual([]);
    expect(acceptAddress("hallo@pixelwerk-agentur.de", d)).toBeNull();
  });

  it("reads every recipient of a mailto link: several addresses, to=, cc= and bcc=", () => {
    expect(mailtoAddresses("mailto:a@x.com,b@x.com?cc=c@x.com&subject=Hi")).toEqual(["a@x.com", "b@x.com", "c@x.com"]);
    expect(mailtoAddresses("mailto:?to=d@x.com&cc=e@x.com")).toEqual(["d@x.com", "e@x.com"]);
  });

  it("reads addresses spelt out in <noscript> but not those in scripts or HTML comments", async () => {
    const html = `<html><body><div class="card"><h3>Sanne de Vries</h3><p>Fiscalist</p>
      <script>document.write('<a href="mailto:'+'s.devries'+'@acme.nl">mail</a>'); var x = "hidden@acme.nl";</script>
      <noscript>s.devries [at] acme [dot] nl</noscript></div><!-- old: gone@acme.nl --></body></html>`;
    const page = await extractPage(html, "https://acme.nl/team", "acme.nl");
    expect(page.addresses.map((a) => [a.email, a.name])).toEqual([
      ["s.devries@acme.nl", { first: "Sanne", last: "de Vries" }],
    ]);
  });

  it("reads vCards: EMAIL lines named by N or FN, with TITLE as position, only for the target domain", async () => {
    const card =
      "BEGIN:VCARD\r\nVERSION:4.0\r\nN:Lößl;Martina;;;\r\nFN:Martina Lößl\r\nTITLE:Spa-Leitung\r\nEMAIL;TYPE=work:m.lossl@acme.at\r\nEMAIL:private@gmail-fixture.com\r\nEND:VCARD\r\n";
    expect(vCardAddresses(card, "acme.at")).toEqual([
      {
        email: "m.lossl@acme.at",
        evidence: { kind: "stated", name: { first: "Martina", last: "Lößl" } },
        name: { first: "Martina", last: "Lößl" },
        position: "Spa-Leitung",
        via: "vcard",
      },
    ]);
    const page = await extractPage(card, "https://acme.at/vcard/martina.vcf", "acme.at", "text/vcard");
    expect(page.addresses[0]?.email).toBe("m.lossl@acme.at");
  });

  it("names the address on a profile page by the page's heading, far from the address", async () => {
    const filler = Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i} about projects.</p>`).join("");
    const html = `<html><head><title>Giulia Rossi – Studio</title></head><body><h1>Giulia Rossi</h1><p>Architetto</p>${filler}<p>Email: giulia.rossi AT studio DOT it</p></body></html>`;
    const page = await extractPage(html, "https://studio.it/persone/giulia-rossi/", "studio.it");
    expect(page.addresses).toMatchObject([
      { email: "giulia.rossi@studio.it", name: { first: "Giulia", last: "Rossi" } },
    ]);
  });

  it("reads the Latin spelling of a name written next to Japanese script", async () => {
    const html = `<html><body><div><h2>鈴木 花子 <span>Hanako Suzuki</span></h2><p>営業部長 / Sales Manager</p><p>suzuki＠sakura.co.jp</p></div></body></html>`;
    const page = await extractPage(html, "https://sakura.co.jp/staff", "sakura.co.jp");
    expect(page.addresses).toMatchObject([{ email: "suzuki@sakura.co.jp", name: { first: "Hanako", last: "Suzuki" } }]);
  });
});

describe("names as the domain writes them", () => {
  it("splits Irish and Welsh particles into the family name", () => {
    expect(splitFullName("Seán Ó Súilleabháin")).toEqual({ first: "Seán", last: "Ó Súilleabháin" });
    expect(splitFullName("Rhys ap Gwilym")).toEqual({ first: "Rhys", last: "ap Gwilym" });
    expect(splitFullName("Siobhán Mac Giolla Phádraig")).toEqual({ first: "Siobhán", last: "Mac Giolla Phádraig" });
    expect(looksLikePersonName("Rhys ap Gwilym")).toBe(true);
  });

  it("reads two-part Spanish names and surnames by the address they belong to", () => {
    expect(fittingName("mjgarcia@x.es", "María José García López")).toEqual({
      first: "María",
      middle: "José",
      last: "García López",
    });
    expect(fittingName("jruiz@x.es", "Javier Ruiz Moreno")).toEqual({ first: "Javier", last: "Ruiz Moreno" });
    expect(nameSplits("Juan Carlos Pérez Ruiz").length).toBeGreaterThan(3);
  });

  it("reads a name family name first only with a cue a reader would use: the page's language, an upper-cased family name, a comma", () => {
    // Alone on a page without a cue, "Nguyễn Thị Mai" is read as written (given name first);
    // the domain's other addresses can still turn it round (joint-reading.test.ts).
    expect(fittingName("mai.nguyen@x.com", "Nguyễn Thị Mai")).toEqual({ first: "Nguyễn", middle: "Thị", last: "Mai" });
    expect(fittingName("mai.nguyen@x.com", "Nguyễn Thị Mai", true)).toEqual({
      first: "Mai",
      middle: "Thị",
      last: "Nguyễn",
    });
    expect(fittingName("mai.nguyen@x.com", "NGUYỄN Thị Mai")).toEqual({ first: "Mai", middle: "Thị", last: "Nguyễn" });
    expect(fittingName("hiroshi.tanaka@x.jp", "TANAKA Hiroshi")).toEqual({ first: "Hiroshi", last: "Tanaka" });
    expect(fittingName("clara.dubois@x.fr", "Dubois, Clara")).toEqual({ first: "Clara", last: "Dubois" });
    // "tanaka" is {last} of Taro Tanaka: not a reason to turn the name round.
    expect(fittingName("tanaka@x.jp", "Taro Tanaka")).toEqual({ first: "Taro", last: "Tanaka" });
  });

  it("learns which part of a double surname the domain uses and applies it in the finder", () => {
    const inf = inferPatterns([
      { localPart: "jruiz", name: { first: "Javier", last: "Ruiz Moreno" } },
      { localPart: "lfernandez", name: { first: "Lucía", last: "Fernández Gil" } },
      { localPart: "csanchez", name: { first: "Carlos", last: "Sánchez" } },
    ]);
    expect(inf.shares[0]?.pattern).toBe("{f}{last}");
    expect(inf.lastForm).toBe("first");
    expect(
      applyPattern("{f}{last}", { first: "Rocío", last: "Jiménez Ortega" }, { style: "plain", lastForm: inf.lastForm }),
    ).toBe("rjimenez");
    expect(applyPattern("{f}{last}", { first: "Rocío", last: "Jiménez Ortega" })).toBe("rjimenezortega");
  });
});

describe("nicknames", () => {
  it("recognises bob.smith@ as Robert Smith's address, and finds it for a query with either name", () => {
    expect(fittingName("bob.smith@acme.test", "Robert Smith")).toEqual({ first: "Robert", last: "Smith" });
    const rows = [
      {
        email: "bob.smith@acme.test",
        domain: "acme.test",
        localPart: "bob.smith",
        type: "personal",
        firstName: "Bob",
        lastName: "Smith",
      },
    ] as EmailRow[];
    expect(proposeAddress(rows, { first: "Robert", last: "Smith" }, "acme.test")?.email).toBe("bob.smith@acme.test");
    // The finder writes the name it was given: no invented nickname for someone it has not seen.
    expect(applyPattern("{first}.{last}", { first: "Robert", last: "Jones" })).toBe("robert.jones");
  });
});

describe("formats from every personal address", () => {
  const western = (text: string) => ({ text, familyFirstPage: false });

  it("names an address found without a name from a name the site shows elsewhere, only when exactly one fits", () => {
    const names = ["Jane Doe", "Ana Lima", "Chief Technology Officer"].map(western);
    expect(nameFromSite("jdoe@acme.test", names)?.name).toEqual({ first: "Jane", last: "Doe" });
    expect(nameFromSite("jdoe@acme.test", [...names, western("John Doe")])).toBeNull();
    expect(nameFromSite("sales@acme.test", [western("Sales Team")])).toBeNull();
  });

  it("reads a name another page shows in that page's order: family name first on a Japanese page (seed 646014620)", () => {
    // The imprint names "Hashimoto Satoshi" beside a mailto link labelled メール: the name is the
    // page's, family name first, so hashimoto@ is {last} like the page's nakamura@, not {first}.
    const japanese = { text: "Hashimoto Satoshi", familyFirstPage: true };
    const found = nameFromSite("hashimoto@sasaki-ikeda.test", [japanese]);
    expect(found?.name).toEqual({ first: "Satoshi", last: "Hashimoto" });
    expect(found?.evidence).toEqual({ kind: "shown", ...japanese });
    expect(nameFromSite("hashimoto@sasaki-ikeda.test", [western("Hashimoto Satoshi")])?.name).toEqual({
      first: "Hashimoto",
      last: "Satoshi",
    });
  });

  const row = (email: string, first: string | null, last: string | null): EmailRow =>
    ({
      email,
      domain: email.split("@")[1]!,
      localPart: email.split("@")[0]!,
      type: "personal",
      firstName: first,
      lastName: last,
    }) as EmailRow;

  it("gives a first-name-only domain the {first} format, with a confidence, and the finder uses it", () => {
    const rows = [
      row("elodie@x.fr", "Élodie", "Martin"),
      row("francois@x.fr", "François", "Dubois"),
      row("chloe@x.fr", "Chloé", "Bernard"),
      row("mathis@x.fr", "Mathis", "Petit"),
    ];
    const inf = inferPatterns(
      rows.map((r) => ({ localPart: r.localPart, name: { first: r.firstName!, last: r.lastName! } })),
    );
    expect(inf.shares[0]?.pattern).toBe("{first}");
    expect(inf.confidence).toBeGreaterThanOrEqual(0.75);
    expect(proposeAddress(rows, { first: "Amélie", last: "Roux" }, "x.fr")?.email).toBe("amelie@x.fr");
  });

  it("weighs formats by support: the majority wins, and one address alone is not confident", () => {
    const one = inferPatterns([{ localPart: "jane.doe", name: { first: "Jane", last: "Doe" } }]);
    expect(one.confidence).toBeLessThanOrEqual(0.5);
    const mixed = inferPatterns([
      { localPart: "jdoe", name: { first: "Jane", last: "Doe" } },
      { localPart: "jroe", name: { first: "John", last: "Roe" } },
      { localPart: "ana.lima", name: { first: "Ana", last: "Lima" } },
    ]);
    expect(mixed.shares[0]?.pattern).toBe("{f}{last}");
  });

  it("spells finder names the way the domain does: ü → u on a site that writes 'kramer', ue on one that writes 'mueller'", () => {
    const plain = [row("s.kramer@h.at", "Sabine", "Krämer"), row("j.baumler@h.at", "Jürgen", "Bäumler")];
    expect(proposeAddress(plain, { first: "Günter", last: "Höller" }, "h.at")?.email).toBe("g.holler@h.at");
    const expanded = [row("juergen.mueller@k.at", "Jürgen", "Müller"), row("lea.hoffmann@k.at", "Lea", "Hoffmann")];
    expect(proposeAddress(expanded, { first: "Günther", last: "Weiß" }, "k.at")?.email).toBe("guenther.weiss@k.at");
  });
});

describe("page choice on sites in languages the word lists do not know", () => {
  it("reads the site's own navigation before guessed paths, which often answer 404", () => {
    const nav = score("https://acme.test/tiimi/", "Tiimi");
    const guessedTeam = guessedCandidates("https://acme.test").find((c) => c.url.endsWith("/team"))!;
    expect(nav).toBe(8);
    expect(guessedTeam.score).toBeLessThan(nav!);
    // Among themselves the guesses keep their order: /team before /privacy.
    const byPath = Object.fromEntries(
      guessedCandidates("https://acme.test").map((c) => [new URL(c.url).pathname, c.score]),
    );
    expect(byPath["/team"]).toBeGreaterThan(byPath["/privacy"]!);
  });

  it("follows the sub-pages of a section read for its unknown label ('Yritys' → its 'Tiimi' page), its other short links last", () => {
    const section = { url: "https://acme.test/yritys", score: 8, listsPeople: false };
    expect(score("https://acme.test/yritys/tiimi", "Tiimi", "", section)).toBe(7);
    // Elsewhere on the site: after every guessed path, read only with budget left (a team page two
    // steps into unknown words was never read: "Organisatie" → "/wie-zijn-wij").
    const elsewhere = score("https://acme.test/muualla/tiimi", "Tiimi", "", section)!;
    expect(elsewhere).toBeGreaterThan(0);
    expect(elsewhere).toBeLessThan(7);
  });

  it("knows Vietnamese team, contact and about words", () => {
    expect(score("https://acme.test/doi-ngu/", "Đội ngũ")).toBeGreaterThanOrEqual(90);
    expect(score("https://acme.test/lien-he/", "Liên hệ")).toBe(90);
    expect(score("https://acme.test/gioi-thieu/", "Giới thiệu")).toBe(70);
  });
});

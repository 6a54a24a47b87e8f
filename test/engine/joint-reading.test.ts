// A domain's names and its address format are read together, over all its addresses.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { proposeAddress } from "../../src/engine/finder/email-finder.js";
import { readJointly } from "../../src/engine/finder/joint-reading.js";
import { percentages } from "../../src/engine/finder/patterns.js";
import { placeholderFormat } from "../../src/engine/finder/stated-format.js";
import { domainRow, emailsOfDomain, formatsOf } from "../../src/engine/index/read.js";
import { storeCrawl } from "../../src/engine/index/store.js";
import { looksLikePersonName } from "../../src/engine/people/names.js";
import { readingsOf } from "../../src/engine/people/readings.js";
import { listsPeople } from "../../src/engine/web/crawl/plan.js";
import { acceptAddress } from "../../src/engine/web/extract/email-addresses.js";
import { extractPage } from "../../src/engine/web/extract/page.js";

const shown = (text: string, familyFirstPage = false) => ({ kind: "shown" as const, text, familyFirstPage });
const read = (people: [string, string, boolean?][], stated: Parameters<typeof readJointly>[1] = []) =>
  readJointly(
    people.map(([local, text, ff]) => ({ localPart: local, readings: readingsOf(shown(text, ff)) })),
    stated,
  );

describe("one convention explains a domain's people", () => {
  it("reads a {last}.{first} domain's names as written instead of mirroring them into {first}.{last}", () => {
    const r = read([
      ["dubois.clara", "Clara Dubois"],
      ["petit.marc", "Marc Petit"],
      ["roux.amelie", "Amélie Roux"],
    ]);
    expect(r.inference.shares[0]?.pattern).toBe("{last}.{first}");
    expect(r.names).toEqual([
      { first: "Clara", last: "Dubois" },
      { first: "Marc", last: "Petit" },
      { first: "Amélie", last: "Roux" },
    ]);
  });

  it("reads one address alone as written too: {last}{f}, {last}_{first} and {l}{first} are not mirrored", () => {
    expect(read([["duboisc", "Clara Dubois"]]).inference.shares[0]?.pattern).toBe("{last}{f}");
    expect(read([["dubois_clara", "Clara Dubois"]]).inference.shares[0]?.pattern).toBe("{last}_{first}");
    expect(read([["dclara", "Clara Dubois"]]).inference.shares[0]?.pattern).toBe("{l}{first}");
  });

  it("turns a name round when the domain's other addresses say so", () => {
    const r = read([
      ["john.smith", "John Smith"],
      ["anna.berg", "Anna Berg"],
      ["hiroshi.tanaka", "Tanaka Hiroshi"],
    ]);
    expect(r.inference.shares[0]?.pattern).toBe("{first}.{last}");
    expect(r.inference.shares[0]?.votes).toBe(3);
    expect(r.names[2]).toEqual({ first: "Hiroshi", last: "Tanaka" });
  });

  it("reads family name first on a page in a family-name-first language, and by an upper-cased family name", () => {
    expect(
      read([
        ["minh.nguyen", "Nguyen Van Minh", true],
        ["lan.tran", "Tran Thi Lan", true],
      ]).names,
    ).toEqual([
      { first: "Minh", middle: "Van", last: "Nguyen" },
      { first: "Lan", middle: "Thi", last: "Tran" },
    ]);
    expect(
      read([
        ["tanaka.h", "TANAKA Hiroshi"],
        ["sato.y", "SATO Yuki"],
      ]).inference.shares[0]?.pattern,
    ).toBe("{last}.{f}");
  });

  it("says it cannot tell when two readings explain the evidence equally, instead of guessing with confidence", () => {
    // One address, two readings the page supports equally, each in a different format.
    const tie = readJointly([
      {
        localPart: "wei.wang",
        readings: [
          { name: { first: "Wang", last: "Wei" }, weight: 1 },
          { name: { first: "Wei", last: "Wang" }, weight: 1 },
        ],
      },
    ]);
    const listed = percentages(tie.inference.shares);
    expect(listed.map((s) => s.format).sort()).toEqual(["{first}.{last}", "{last}.{first}"]);
    // Both are listed; the global prior (worth two addresses) only tilts the split.
    expect(listed[0]!.percentage).toBeLessThanOrEqual(70);
    expect(tie.inference.confidence).toBeLessThanOrEqual(0.25);
    // A domain whose addresses disagree says so too.
    const split = read([
      ["anna.berg", "Anna Berg"],
      ["petit.marc", "Marc Petit"],
    ]);
    expect(
      percentages(split.inference.shares)
        .map((s) => s.format)
        .sort(),
    ).toEqual(["{first}.{last}", "{last}.{first}"]);
    expect(split.inference.confidence).toBeLessThanOrEqual(0.5);
    // The same address on a domain whose other people settle it is not a tie.
    const settled = read([
      ["wei.wang", "Wang Wei", true],
      ["na.li", "Na Li"],
    ]);
    expect(percentages(settled.inference.shares)[0]).toEqual({
      format: "{first}.{last}",
      percentage: expect.any(Number),
    });
    expect(settled.inference.confidence).toBeGreaterThan(0.5);
  });

  it("prefers the family-name-first reading on a page in a family-name-first language", () => {
    expect(
      read([
        ["wang_wei", "Wang Wei", true],
        ["li_na", "Li Na", true],
      ]).inference.shares[0]?.pattern,
    ).toBe("{last}_{first}");
    expect(
      read([
        ["tanaka", "Tanaka Hiroshi", true],
        ["sato", "Sato Yuki", true],
      ]).inference.shares[0]?.pattern,
    ).toBe("{last}");
    // A foreign name written given name first on such a page still fits the domain's format.
    const mixed = read([
      ["nagy.peter", "Nagy Péter", true],
      ["kovacs.anna", "Kovács Anna", true],
      ["price.olivia", "Olivia Price", true],
    ]);
    expect(mixed.inference.shares[0]?.pattern).toBe("{last}.{first}");
    expect(mixed.names[2]).toEqual({ first: "Olivia", last: "Price" });
  });

  it("keeps the middle name, so {f}{m}{last} is a format like the others", () => {
    const r = read([
      ["jmsmith", "John Michael Smith"],
      ["akberg", "Anna Katharina Berg"],
    ]);
    expect(r.inference.shares[0]?.pattern).toBe("{f}{m}{last}");
  });
});

describe("a convention the site states in words", () => {
  it("reads placeholders in many languages as formats", () => {
    expect(placeholderFormat("firstname.lastname")).toBe("{first}.{last}");
    expect(placeholderFormat("vorname.nachname")).toBe("{first}.{last}");
    expect(placeholderFormat("nom.prenom")).toBe("{last}.{first}");
    expect(placeholderFormat("f.nazwisko")).toBe("{f}.{last}");
    expect(placeholderFormat("flastname")).toBe("{f}{last}");
    expect(placeholderFormat("firstname")).toBe("{first}");
    expect(placeholderFormat("fornavn_etternavn")).toBe("{first}_{last}");
    expect(placeholderFormat("soyadi.ad")).toBe("{last}.{first}");
    // Real mailboxes and names are not placeholders.
    for (const local of ["name", "nom", "adam", "thomas", "jane.doe2", "info", "last", "ana.lima"])
      expect(placeholderFormat(local), local).toBeNull();
  });

  it("never returns the placeholder as an address, even spelt with accents", async () => {
    expect(acceptAddress("fornavn.etternavn@fjord-as.no", "fjord-as.no")).toBeNull();
    const html = `<html lang="fr"><body><p>Nos adresses suivent le modèle prénom.nom@atelier-x.fr.</p><p>Claire Martin</p><p>claire.martin@atelier-x.fr</p></body></html>`;
    const page = await extractPage(html, "https://atelier-x.fr/contact", "atelier-x.fr");
    expect(page.addresses.map((a) => a.email)).toEqual(["claire.martin@atelier-x.fr"]);
    expect(page.statedFormats).toEqual(["{first}.{last}"]);
  });

  it("lets a stated convention settle a domain whose one address fits two readings", () => {
    expect(read([["wei.wang", "Wang Wei", true]], ["{last}.{first}"]).inference.shares[0]?.pattern).toBe(
      "{last}.{first}",
    );
  });
});

describe("the index keeps the joint reading", () => {
  const page = async (domain: string, path: string, html: string) => ({
    url: `https://${domain}${path}`,
    extraction: await extractPage(html, `https://${domain}${path}`, domain),
  });
  const card = (name: string, email: string) =>
    `<div><h3>${name}</h3><p><a href="mailto:${email}">${email}</a></p></div>`;

  it("stores names as read with the whole domain, and the formats for email-format and the finder", async () => {
    const domain = "maison-joint-reading.test";
    const html = `<html lang="fr"><body>${card("Clara Dubois", `dubois.clara@${domain}`)}${card("Marc Petit", `petit.marc@${domain}`)}</body></html>`;
    await storeCrawl(env, {
      domain,
      pages: [await page(domain, "/equipe", html)],
      status: "done",
      error: null,
      now: Date.now(),
    });
    const rows = await emailsOfDomain(env, domain);
    expect(rows.map((r) => [r.email, r.firstName, r.lastName, r.displayName])).toEqual([
      [`dubois.clara@${domain}`, "Clara", "Dubois", "Clara Dubois"],
      [`petit.marc@${domain}`, "Marc", "Petit", "Marc Petit"],
    ]);
    const formats = formatsOf(await domainRow(env, domain), []);
    expect(formats.shares[0]?.pattern).toBe("{last}.{first}");
    expect(proposeAddress(rows, { first: "Amélie", last: "Roux" }, domain, formats)?.email).toBe(
      `roux.amelie@${domain}`,
    );
  });

  it("reads an earlier crawl's names again when a later crawl settles the domain's convention", async () => {
    const domain = "later-settles.test";
    const now = Date.now();
    // First crawl: one name on a Chinese page, which fits both readings.
    await storeCrawl(env, {
      domain,
      pages: [await page(domain, "/", `<html lang="zh"><body>${card("Wang Wei", `wei.wang@${domain}`)}</body></html>`)],
      status: "crawling",
      error: null,
      now,
    });
    // Deep pass: two people whose names are unambiguous and use {last}.{first}.
    const more = `<html><body>${card("Anna Berg", `berg.anna@${domain}`)}${card("John Smith", `smith.john@${domain}`)}</body></html>`;
    await storeCrawl(env, {
      domain,
      pages: [await page(domain, "/team", more)],
      status: "done",
      error: null,
      now: now + 1,
    });
    const rows = await emailsOfDomain(env, domain);
    expect(rows.find((r) => r.email === `wei.wang@${domain}`)).toMatchObject({ firstName: "Wang", lastName: "Wei" });
    expect(formatsOf(await domainRow(env, domain), []).shares[0]?.pattern).toBe("{last}.{first}");
  });
});

describe("spelling habits learnt from the domain's own addresses", () => {
  it("learns how the domain writes hyphenated given names and writes the finder's answer the same way", () => {
    for (const [shown, want] of [
      ["hans-peter.koehler", "karl-heinz.mueller"],
      ["hanspeter.koehler", "karlheinz.mueller"],
      ["hans.koehler", "karl.mueller"],
    ] as const) {
      const r = read([
        [shown, "Hans-Peter Köhler"],
        ["anna.schmidt", "Anna Schmidt"],
      ]);
      expect(r.inference.firstForm === null ? "joined" : r.inference.firstForm, shown).toBe(
        shown.startsWith("hans-") ? "hyphen" : shown.startsWith("hanspeter") ? "joined" : "first",
      );
      const rows = [
        {
          email: `${shown}@k.de`,
          domain: "k.de",
          localPart: shown,
          type: "personal",
          firstName: "Hans-Peter",
          lastName: "Köhler",
          middleName: null,
        },
      ] as never;
      expect(proposeAddress(rows, { first: "Karl-Heinz", last: "Müller" }, "k.de", r.inference)?.email).toBe(
        `${want}@k.de`,
      );
    }
  });

  it("learns a double surname written with a hyphen although the page writes it with a space", () => {
    const r = read([
      ["maria.garcia-lopez", "María García López"],
      ["juan.perez", "Juan Pérez"],
    ]);
    expect(r.inference.lastForm).toBe("hyphen");
    expect(proposeAddress([], { first: "Rocío", last: "Jiménez Ortega" }, "x.es", r.inference)?.email).toBe(
      "rocio.jimenez-ortega@x.es",
    );
  });
});

describe("romanized names beside their original script", () => {
  it("reads a Latin name written beside a CJK name as given name first, even on a Japanese page", async () => {
    const html = `<html lang="ja"><body><div><h2>田中 太郎 <span>Taro Tanaka</span></h2><p>tanaka＠kogyo-x.co.jp</p></div><div><h2>鈴木 花子 <span>Hanako Suzuki</span></h2><p>suzuki＠kogyo-x.co.jp</p></div></body></html>`;
    const page = await extractPage(html, "https://kogyo-x.co.jp/company", "kogyo-x.co.jp");
    const r = readJointly(
      page.addresses.map((a) => ({ localPart: a.email.split("@")[0]!, readings: readingsOf(a.evidence!) })),
    );
    expect(r.inference.shares[0]?.pattern).toBe("{last}");
    expect(r.names[0]).toEqual({ first: "Taro", last: "Tanaka" });
  });
});

describe("cues on the page", () => {
  it("reads upper-cased family names, with Irish particles and a middle initial", async () => {
    const html = `<html lang="en"><body><div><h3>Ó BRIAIN Pádraig</h3><p>pobriain@doyle-x.ie</p></div><div><h3>MCGRATH Niamh J.</h3><p>nmcgrath@doyle-x.ie</p></div></body></html>`;
    const page = await extractPage(html, "https://doyle-x.ie/team", "doyle-x.ie");
    const r = readJointly(
      page.addresses.map((a) => ({ localPart: a.email.split("@")[0]!, readings: readingsOf(a.evidence!) })),
    );
    expect(r.inference.shares[0]?.pattern).toBe("{f}{last}");
    expect(r.names).toEqual([
      { first: "Pádraig", last: "Ó Briain" },
      { first: "Niamh", middle: "J.", last: "Mcgrath" },
    ]);
  });

  it("takes the order of a displayed name from a JSON-LD Person on the page that states it", async () => {
    const person = (given: string, family: string, email: string) =>
      `<tr><td>${family} ${given}<script type="application/ld+json">{"@type":"Person","name":"${family} ${given}","givenName":"${given}","familyName":"${family}"}</script></td><td>${email}</td></tr>`;
    const html = `<html lang="tr"><body><table>${person("Barış", "Demir", "demir.b@aksoy-x.com.tr")}${person("Ayşe", "Koç", "koc.a@aksoy-x.com.tr")}</table></body></html>`;
    const page = await extractPage(html, "https://aksoy-x.com.tr/ekibimiz", "aksoy-x.com.tr");
    expect(page.addresses.map((a) => a.evidence)).toEqual([
      { kind: "stated", name: { first: "Barış", last: "Demir" } },
      { kind: "stated", name: { first: "Ayşe", last: "Koç" } },
    ]);
  });

  it("never takes a fediverse handle on the company's own server, or an example address, for a mailbox", async () => {
    const html = `<html lang="ja"><body><p>社員のメールアドレスは firstname.lastname@mori-x.jp (例: taro.yamada@mori-x.jp) の形式です。</p><p>Mastodon: @mori@social.mori-x.jp</p><p>info@mori-x.jp</p></body></html>`;
    const page = await extractPage(html, "https://mori-x.jp/inquiry", "mori-x.jp");
    expect(page.addresses.map((a) => a.email)).toEqual(["info@mori-x.jp"]);
    expect(page.statedFormats).toEqual(["{first}.{last}"]);
  });
});

describe("what is an example and what is a placeholder", () => {
  it("skips addresses given as examples in many languages", async () => {
    for (const [lang, text] of [
      ["nl", "bijvoorbeeld"],
      ["hu", "például"],
      ["de", "z. B."],
      ["fr", "par exemple"],
      ["pl", "na przykład"],
      ["en", "e.g."],
    ] as const) {
      const html = `<html lang="${lang}"><body><p>(${text} jan.kowal@firma-x.eu)</p><p>kontakt@firma-x.eu</p></body></html>`;
      expect(
        (await extractPage(html, "https://firma-x.eu/", "firma-x.eu")).addresses.map((a) => a.email),
        text,
      ).toEqual(["kontakt@firma-x.eu"]);
    }
  });

  it("does not take short name words for placeholders: ho.l is Hồ Linh's address", () => {
    expect(placeholderFormat("ho.l")).toBeNull();
    expect(placeholderFormat("ad.n")).toBeNull();
    expect(acceptAddress("ho.l@pham-x.vn", "pham-x.vn")).toBe("ho.l@pham-x.vn");
  });
});

describe("spelling habits that differ by letter and by kind of family name", () => {
  it("learns umlauts and Nordic letters separately: a site may write Jörg as joerg and Åsa as asa", () => {
    const r = read([
      ["joerg.berg", "Jörg Berg"],
      ["asa.lind", "Åsa Lind"],
      ["nils.holm", "Nils Holm"],
    ]);
    expect([r.inference.style, r.inference.nordic]).toEqual(["expanded", "plain"]);
    expect(proposeAddress([], { first: "Björn", last: "Ström" }, "x.se", r.inference)?.email).toBe(
      "bjoern.stroem@x.se",
    );
    expect(proposeAddress([], { first: "Søren", last: "Dahl" }, "x.se", r.inference)?.email).toBe("soren.dahl@x.se");
    const nordic = read([
      ["haakon.naess", "Håkon Næss"],
      ["bjorn.lie", "Björn Lie"],
    ]);
    expect([nordic.inference.style, nordic.inference.nordic]).toEqual(["plain", "expanded"]);
    expect(proposeAddress([], { first: "Søren", last: "Ekström" }, "x.no", nordic.inference)?.email).toBe(
      "soeren.ekstrom@x.no",
    );
  });

  it("learns particles and double family names separately: dos Santos → santos beside García López → garcialopez", () => {
    const r = read([
      ["mgarcialopez", "María García López"],
      ["csantos", "Carla dos Santos"],
      ["jperez", "Juan Pérez"],
    ]);
    expect([r.inference.lastForm, r.inference.particleForm]).toEqual(["joined", "last"]);
    expect(proposeAddress([], { first: "Rui", last: "da Costa" }, "x.pt", r.inference)?.email).toBe("rcosta@x.pt");
    expect(proposeAddress([], { first: "Rocío", last: "Jiménez Ortega" }, "x.pt", r.inference)?.email).toBe(
      "rjimenezortega@x.pt",
    );
  });
});

describe("names written 'Family, Given'", () => {
  it("reads them whole, with a title inside and a quoted nickname", async () => {
    const card = (shown: string, email: string) =>
      `<div><h3>${shown}</h3><p class="position">Senior Consultant</p><p>Email: ${email}</p></div>`;
    const html = `<html lang="en"><body>${card("Sullivan, Katherine &quot;Kate&quot;", "kate_sullivan@linde-x.io")}${card("Dr. Lakatos, Tamás", "tamas_lakatos@linde-x.io")}${card("O'Sullivan, Ailbhe", "ailbhe_osullivan@linde-x.io")}</body></html>`;
    const page = await extractPage(html, "https://linde-x.io/about/team", "linde-x.io");
    const r = readJointly(
      page.addresses.map((a) => ({ localPart: a.email.split("@")[0]!, readings: readingsOf(a.evidence!) })),
    );
    expect(r.inference.shares[0]?.pattern).toBe("{first}_{last}");
    expect(r.names.map((n) => n && `${n.first} ${n.last}`)).toEqual([
      "Katherine Sullivan",
      "Tamás Lakatos",
      "Ailbhe O'Sullivan",
    ]);
  });

  it("does not read 'Jane Roe, CTO' as a name written family name first", async () => {
    const page = await extractPage(
      `<html><body><p>Clara Berg, Chief Technology Officer</p><p>cberg@x-co.de</p></body></html>`,
      "https://x-co.de/",
      "x-co.de",
    );
    expect(page.addresses[0]).toMatchObject({
      name: { first: "Clara", last: "Berg" },
      position: "Chief Technology Officer",
    });
  });
});

describe("initials and particles", () => {
  it("learns a dropped particle from a format that writes only the family name's initial (Koen van Dijk → koend)", () => {
    const r = read([
      ["annab", "Anna van den Berg"],
      ["pietj", "Piet Jansen"],
    ]);
    expect(r.inference.particleForm).toBe("last");
    expect(proposeAddress([], { first: "Koen", last: "van Dijk" }, "x.nl", r.inference)?.email).toBe("koend@x.nl");
  });

  it("names a two-letter address that is also a role code when the person's card shows whose initials it is", async () => {
    const html = `<html lang="it"><body><dl><dt>Martina Di Stefano</dt><dd>Segreteria</dd><dd>md&#64;mancini-x.it</dd><dt>Paolo Mele</dt><dd>Avvocato</dd><dd>pm@mancini-x.it</dd></dl></body></html>`;
    const page = await extractPage(html, "https://mancini-x.it/team", "mancini-x.it");
    expect(page.addresses.map((a) => [a.email, a.name?.first])).toEqual([
      ["md@mancini-x.it", "Martina"],
      ["pm@mancini-x.it", "Paolo"],
    ]);
    const plain = await extractPage(
      `<html><body><p>Press</p><p>pm@mancini-x.it</p></body></html>`,
      "https://mancini-x.it/",
      "mancini-x.it",
    );
    expect(plain.addresses[0]?.name).toBeNull();
  });

  it("takes a short placeholder word in a short Turkish sentence for the convention, not a mailbox", async () => {
    const html = `<html lang="tr"><body><p>Tüm çalışanlarımıza ad@tr-x1.com.tr adresinden ulaşabilirsiniz.</p><p>Burak Güler</p><p>burak@tr-x1.com.tr</p></body></html>`;
    const page = await extractPage(html, "https://tr-x1.com.tr/iletisim", "tr-x1.com.tr");
    expect(page.addresses.map((a) => a.email)).toEqual(["burak@tr-x1.com.tr"]);
    expect(page.statedFormats).toEqual(["{first}"]);
  });

  it("takes a placeholder made only of short placeholder words (tên_họ) as a placeholder", () => {
    expect(placeholderFormat("ten_ho")).toBe("{first}_{last}");
    expect(placeholderFormat("ho.l")).toBeNull();
  });
});

describe("Gaelic prefixes", () => {
  it("writes Ó Briain joined whatever the domain does with Romance particles, and does not let it vote on them", () => {
    const r = read([
      ["obriain.donal", "Dónal Ó Briain"],
      ["sousa.goncalo", "Gonçalo de Sousa"],
      ["murphy.sean", "Seán Murphy"],
    ]);
    expect(r.inference.particleForm).toBe("last");
    expect(proposeAddress([], { first: "Tiago", last: "do Carmo" }, "x.ie", r.inference)?.email).toBe(
      "carmo.tiago@x.ie",
    );
    expect(proposeAddress([], { first: "Siobhán", last: "Nic Dhonnchadha" }, "x.ie", r.inference)?.email).toBe(
      "nicdhonnchadha.siobhan@x.ie",
    );
  });
});

describe("capitalised prefixes and initials", () => {
  it("writes De Luca joined as one family name and learns the particle habit from lower-case particles only", () => {
    const r = read([
      ["horst.floor", "Floor ter Horst"],
      ["deluca.gianluca", "Gianluca De Luca"],
      ["colombo.marco", "Marco Colombo"],
    ]);
    expect(r.inference.particleForm).toBe("last");
    expect(proposeAddress([], { first: "Inês", last: "do Carmo" }, "x.it", r.inference)?.email).toBe("carmo.ines@x.it");
    expect(proposeAddress([], { first: "Andrea", last: "De Luca" }, "x.it", r.inference)?.email).toBe(
      "deluca.andrea@x.it",
    );
  });

  it("reads an upper-cased family name's particles as particles: VAN DIJK Jan, VAN 'T HOF Wouter Maria", () => {
    expect(readingsOf(shown("VAN DIJK Jan"))[0]?.name).toEqual({ first: "Jan", last: "van Dijk" });
    expect(readingsOf(shown("VAN 'T HOF Wouter Maria")).map((r) => r.name)).toContainEqual({
      first: "Wouter",
      middle: "Maria",
      last: "van 't Hof",
    });
    expect(
      read([
        ["wmvanthof", "VAN 'T HOF Wouter Maria"],
        ["pmmulder", "MULDER Pieter Maria"],
      ]).inference.shares[0]?.pattern,
    ).toBe("{f}{m}{last}");
    expect(looksLikePersonName("VAN 'T HOF Wouter Maria")).toBe(true);
  });

  it("never ends a given name with a particle: tiago-dossantos is Tiago of the dos Santos family", () => {
    expect(read([["tiago-dossantos", "Tiago dos Santos"]]).names[0]).toEqual({ first: "Tiago", last: "dos Santos" });
  });

  it("reads an initial after the given name as a middle name, never as part of the given name: grzegorzj is {first}{l}", () => {
    expect(read([["grzegorzj", "Grzegorz J. Jabłoński"]]).names[0]).toEqual({
      first: "Grzegorz",
      middle: "J.",
      last: "Jabłoński",
    });
  });

  it("reads 'Trần, Thị Dũng' with dttran@ as Dũng Thị of the Trần family ({f}{m}{last})", () => {
    const r = read([
      ["dttran", "Trần, Thị Dũng"],
      ["qqdang", "Đặng, Quốc Quân"],
    ]);
    expect(r.inference.shares[0]?.pattern).toBe("{f}{m}{last}");
    expect(r.names[0]).toEqual({ first: "Dũng", middle: "Thị", last: "Trần" });
  });

  it("never reads an initial as the start of a family name: Ingrid K. Møller with ikmoller is {f}{m}{last}", () => {
    const r = read([
      ["fjhoelzl", "Frauke J. Hölzl"],
      ["ikmoller", "Ingrid K. Møller"],
      ["hksorensen", "Håkon K. Sørensen"],
    ]);
    expect(r.inference.shares.map((s) => s.pattern)).toEqual(["{f}{m}{last}"]);
    expect(r.names[1]).toEqual({ first: "Ingrid", middle: "K.", last: "Møller" });
  });
});

describe("a name, then a title after a comma", () => {
  it("reads 'Niamh O'Brien, Accountmanager' as a name and a title, not as a name written family name first", async () => {
    const html = `<html lang="nl"><body><p>Niamh O'Brien, Accountmanager</p><p>nobrien@visser-x.nl</p><p>García López, María</p><p>mgarcia@visser-x.nl</p></body></html>`;
    const page = await extractPage(html, "https://visser-x.nl/team", "visser-x.nl");
    expect(page.addresses.map((a) => [a.name, a.position])).toEqual([
      [{ first: "Niamh", last: "O'Brien" }, "Accountmanager"],
      [{ first: "María", last: "García López" }, null],
    ]);
  });
});

describe("names inside a sentence", () => {
  it("reads 'Administrador: Gómez Ibáñez, Begoña (gomez.b@…)' and 'Robert (Bob) Smith'", async () => {
    const html = `<html lang="es"><body><p>Administrador: Gómez Ibáñez, Begoña (gomez.b{at}castano-x.es)</p><p>Robert (Bob) Smith</p><p>bob.smith@castano-x.es</p></body></html>`;
    const page = await extractPage(html, "https://castano-x.es/aviso-legal", "castano-x.es");
    expect(page.addresses.map((a) => a.name)).toEqual([
      { first: "Begoña", last: "Gómez Ibáñez" },
      { first: "Robert", last: "Smith" },
    ]);
  });

  it("names each of several addresses on one line by the name just before it", async () => {
    const html = `<html lang="tr"><body><p>Yönetim: Işıl Koç (<a href="mailto:isilk@g-x.com.tr">isilk@g-x.com.tr</a>), Koen Hendriks (koenh@g-x.com.tr)</p></body></html>`;
    const page = await extractPage(html, "https://g-x.com.tr/yasal-uyari", "g-x.com.tr");
    expect(page.addresses.map((a) => [a.email, a.name])).toEqual([
      ["isilk@g-x.com.tr", { first: "Işıl", last: "Koç" }],
      ["koenh@g-x.com.tr", { first: "Koen", last: "Hendriks" }],
    ]);
  });
});

describe("cards with many lines between the name and the address", () => {
  it("names an address five lines below the name (title, phone, department, a label)", async () => {
    const card = (name: string, local: string) =>
      `<div><h3>${name}</h3><p>行政主管</p><p>电话: +86 25 754 1459</p><p>销售部</p><p>邮箱:</p><p>${local} AT hu-x DOT com DOT cn</p></div>`;
    const page = await extractPage(
      `<html lang="zh"><body>${card("ZHU Jing", "jing-zhu")}${card("LUO Xin", "xin-luo")}</body></html>`,
      "https://hu-x.com.cn/guanyu/tuandui",
      "hu-x.com.cn",
    );
    expect(page.addresses.map((a) => a.name)).toEqual([
      { first: "Jing", last: "Zhu" },
      { first: "Xin", last: "Luo" },
    ]);
  });

  it("follows the next page of a listing whose people it could not name", () => {
    expect(listsPeople("https://x.cn/guanyu/tuandui", 0, [], 3)).toBe(true);
    expect(listsPeople("https://x.cn/guanyu", 0, [], 1)).toBe(false);
  });
});

describe("more of what generated sites showed", () => {
  it("drops the French Maître and other titles, but keeps Don as a given name", () => {
    expect(
      read([
        ["clemaitre", "Me Céline Lemaître"],
        ["jtessier", "Julien Tessier"],
      ]).names[0],
    ).toEqual({ first: "Céline", last: "Lemaître" });
    expect(read([["don.smith", "Don Smith"]]).names[0]).toEqual({ first: "Don", last: "Smith" });
    expect(read([["dmsmith", "Don Michael Smith"]]).names[0]).toEqual({
      first: "Don",
      middle: "Michael",
      last: "Smith",
    });
  });

  it("reads 'Ortega Pérez, Rocío' as Rocío of the Ortega Pérez family", async () => {
    const html = `<html lang="fr"><body><table><tr><td>Ortega Pérez, Rocío</td><td>Avocate associée</td><td>ortega@cobalt-x.fr</td></tr><tr><td>Marchand, Céline</td><td>Juriste</td><td>marchand@cobalt-x.fr</td></tr></table></body></html>`;
    const page = await extractPage(html, "https://cobalt-x.fr/equipe", "cobalt-x.fr");
    const r = readJointly(
      page.addresses.map((a) => ({ localPart: a.email.split("@")[0]!, readings: readingsOf(a.evidence!) })),
    );
    expect(r.names[0]).toEqual({ first: "Rocío", last: "Ortega Pérez" });
    expect(r.inference.lastForm).toBe("first");
  });

  it("knows Dutch particles (in 't Veld) and family-first names with a several-word family name (van Leeuwen Jeroen)", () => {
    expect(
      read([
        ["wmintveld", "Wouter Maria in 't Veld"],
        ["aboer", "Anna Boer"],
      ]).names[0],
    ).toEqual({ first: "Wouter", middle: "Maria", last: "in 't Veld" });
    const r = read([
      ["jl", "van Leeuwen Jeroen", true],
      ["ad", "de Vries Anna", true],
    ]);
    expect(r.names).toEqual([
      { first: "Jeroen", last: "van Leeuwen" },
      { first: "Anna", last: "de Vries" },
    ]);
    expect(r.inference.particleForm).toBe("last");
  });

  it("takes a short placeholder word in a sentence for the convention, not a mailbox", async () => {
    const html = `<html lang="pl"><body><p>Adresy e-mail naszych pracowników mają postać imie@aurora-x.pl.</p><p>biuro@aurora-x.pl</p></body></html>`;
    const page = await extractPage(html, "https://aurora-x.pl/kontakt", "aurora-x.pl");
    expect(page.addresses.map((a) => a.email)).toEqual(["biuro@aurora-x.pl"]);
    expect(page.statedFormats).toEqual(["{first}"]);
  });
});

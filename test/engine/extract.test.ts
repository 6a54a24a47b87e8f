import { describe, expect, it } from "vitest";
import {
  acceptAddress,
  decodeCfEmail,
  deobfuscate,
  mailtoAddresses,
  scanAddresses,
} from "../../src/engine/web/extract/email-addresses.js";
import { extractPage } from "../../src/engine/web/extract/page.js";

async function page(url: string, target: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return extractPage(await res.text(), url, target, res.headers.get("content-type") ?? "text/html");
}
const byEmail = (x: Awaited<ReturnType<typeof page>>) => new Map(x.addresses.map((a) => [a.email, a]));

describe("address text helpers", () => {
  it("undoes the common obfuscations", () => {
    expect(deobfuscate("jane [at] acme [dot] com")).toBe("jane@acme.com");
    expect(deobfuscate("jane(at)acme.com")).toBe("jane@acme.com");
    expect(deobfuscate("jane {at} acme {dot} co {dot} uk")).toBe("jane@acme.co.uk");
    expect(deobfuscate("jane＠acme.com")).toBe("jane@acme.com");
    expect(deobfuscate("jane at acme dot com")).toBe("jane@acme.com");
  });

  it("does not read ordinary prose with ' at ' as an address", () => {
    expect(scanAddresses("Find us at acme.com or meet us at the fair")).toEqual([]);
  });

  it("decodes HTML entities before matching", () => {
    expect(scanAddresses("&#106;&#111;&#101;&#64;acme&#46;com").map((h) => h.email)).toEqual(["joe@acme.com"]);
    expect(scanAddresses("sales&#x40;acme.com").map((h) => h.email)).toEqual(["sales@acme.com"]);
    expect(scanAddresses("sales&commat;acme.com").map((h) => h.email)).toEqual(["sales@acme.com"]);
  });

  it("decodes Cloudflare email protection and rejects junk", () => {
    expect(decodeCfEmail("5a313337742a3b28311a3936352f3e23772e35353629742e3f292e")).toBe("kim.park@cloudy-tools.test");
    expect(decodeCfEmail("zz")).toBeNull();
    expect(decodeCfEmail("5a")).toBeNull();
  });

  it("strips mailto query strings and splits several recipients, reading to=, cc= and bcc= as recipients too", () => {
    expect(mailtoAddresses("mailto:a@x.com?subject=Hi%20there")).toEqual(["a@x.com"]);
    expect(mailtoAddresses("mailto:a@x.com,b%40x.com?cc=c@x.com")).toEqual(["a@x.com", "b@x.com", "c@x.com"]);
    expect(mailtoAddresses("mailto:?to=d@x.com&amp;cc=e@x.com;f@x.com&bcc=g%40x.com&body=h@x.com")).toEqual([
      "d@x.com",
      "e@x.com",
      "f@x.com",
      "g@x.com",
    ]);
  });

  it("keeps only real addresses of the target's registrable domain", () => {
    expect(acceptAddress("Jane.Cooper@Acme.com", "acme.com")).toBe("jane.cooper@acme.com");
    expect(acceptAddress("jobs@careers.acme.com", "acme.com")).toBe("jobs@careers.acme.com");
    expect(acceptAddress("jane@other.com", "acme.com")).toBeNull();
    expect(acceptAddress("logo@2x.png", "2x.png")).toBeNull();
    expect(acceptAddress("icon@3x.acme.com", "acme.com")).toBeNull();
    expect(acceptAddress("your@acme.com", "acme.com")).toBeNull();
    expect(acceptAddress("firstname.lastname@acme.com", "acme.com")).toBeNull();
    expect(acceptAddress("name@example.com", "example.com")).toBeNull();
    expect(acceptAddress("0123456789abcdef0123456789abcdef@sentry.acme.com", "acme.com")).toBeNull();
    expect(acceptAddress("a..b@acme.com", "acme.com")).toBeNull();
  });
});

describe("page extraction (fixture sites)", () => {
  it("reads a team page: names, positions, obfuscated and entity-encoded addresses", async () => {
    const x = byEmail(await page("https://acme-widgets.test/team", "acme-widgets.test"));
    expect([...x.keys()].sort()).toEqual([
      "anna-lena.muller@acme-widgets.test",
      "jane.cooper@acme-widgets.test",
      "john.smith@acme-widgets.test",
      "plee@acme-widgets.test",
      "zoe.obrien@acme-widgets.test",
    ]);
    expect(x.get("jane.cooper@acme-widgets.test")).toMatchObject({
      name: { first: "Jane", last: "Cooper" },
      position: "Chief Technology Officer",
      via: "mailto",
    });
    expect(x.get("zoe.obrien@acme-widgets.test")).toMatchObject({
      name: { first: "Zoë", last: "O'Brien" },
      position: "Marketing Manager",
      via: "text",
    });
    expect(x.get("anna-lena.muller@acme-widgets.test")?.name).toEqual({ first: "Anna-Lena", last: "Müller" });
    expect(x.get("plee@acme-widgets.test")).toMatchObject({
      name: { first: "Pat", last: "Lee" },
      position: "Support Lead",
    });
  });

  it("reads the home page: mailto without its subject, company facts, profiles, phones; skips scripts, assets and DSNs", async () => {
    const x = await page("https://acme-widgets.test/", "acme-widgets.test");
    expect(x.addresses.map((a) => a.email)).toEqual(["info@acme-widgets.test"]);
    expect(x.addresses[0]!.name).toBeNull();
    expect(x.phones).toEqual(["+12175550134"]);
    expect(x.company).toMatchObject({
      name: "Acme Widgets Inc.",
      description: "Acme Widgets builds industrial widgets.",
      logo: "https://acme-widgets.test/logo.png",
      founded: "2009",
      employeeCount: 120,
      country: "US",
      state: "IL",
      city: "Springfield",
      streetAddress: "1 Widget Way",
      postalCode: "62701",
      phone: "+12175550134",
      linkedinUrl: "https://www.linkedin.com/company/acme-widgets",
      twitterUrl: "https://twitter.com/acmewidgets",
      facebookUrl: "https://www.facebook.com/acmewidgets",
      instagramUrl: "https://www.instagram.com/acmewidgets",
      githubUrl: "https://github.com/acme-widgets",
      youtubeUrl: "https://www.youtube.com/@acmewidgets",
    });
    expect(x.links).toContain("https://acme-widgets.test/about");
    expect(x.links.some((l) => l.includes("elsewhere.test"))).toBe(false);
  });

  it("reads a contact page: text addresses, (at), subdomain addresses, announced phones; no prose or placeholders", async () => {
    const x = await page("https://acme-widgets.test/contact", "acme-widgets.test");
    expect(x.addresses.map((a) => a.email).sort()).toEqual([
      "jobs@careers.acme-widgets.test",
      "sales@acme-widgets.test",
      "support@acme-widgets.test",
    ]);
    expect(x.phones).toEqual(["+12175550199"]);
  });

  it("reads JSON-LD Person with name and title", async () => {
    const x = byEmail(await page("https://acme-widgets.test/about", "acme-widgets.test"));
    expect(x.get("robert.brown@acme-widgets.test")).toMatchObject({
      name: { first: "Robert", last: "Brown" },
      position: "CEO & Founder",
      via: "jsonld",
    });
  });

  it("decodes Cloudflare-protected addresses (link and data-cfemail) and keeps the card's name", async () => {
    const x = byEmail(await page("https://cloudy-tools.test/", "cloudy-tools.test"));
    expect([...x.keys()].sort()).toEqual(["billing@cloudy-tools.test", "kim.park@cloudy-tools.test"]);
    expect(x.get("kim.park@cloudy-tools.test")).toMatchObject({
      name: { first: "Kim", last: "Park" },
      position: "CTO",
      via: "cfemail",
    });
  });

  it("reads {at}/{dot}, fullwidth @, spelled-out 'at … dot', entity-only and [at][dot] forms", async () => {
    const x = byEmail(await page("https://cloudy-tools.test/contact", "cloudy-tools.test"));
    expect([...x.keys()].sort()).toEqual([
      "dev@cloudy-tools.test",
      "joe@cloudy-tools.test",
      "lisa@cloudy-tools.test",
      "mike@cloudy-tools.test",
      "tom@cloudy-tools.test",
    ]);
    // "mike" fits the name Mike Chen ({first}); the title on the same line comes with it.
    expect(x.get("mike@cloudy-tools.test")).toMatchObject({
      name: { first: "Mike", last: "Chen" },
      position: "Sales Director",
    });
  });

  it("reads a German Impressum: entity @, (at), local phone numbers with the ccTLD's country", async () => {
    const x = byEmail(await page("https://blau-gmbh.test/impressum", "blau-gmbh.test"));
    expect([...x.keys()].sort()).toEqual(["info@blau-gmbh.test", "juergen.weiss@blau-gmbh.test"]);
    const res = await page("https://blau-gmbh.test/kontakt", "blau-gmbh.test");
    const k = byEmail(res);
    expect(k.get("lukasz.nowak@blau-gmbh.test")?.name).toEqual({ first: "Łukasz", last: "Nowak" });
    expect(k.get("soeren.oedegaard@blau-gmbh.test")?.name).toEqual({ first: "Søren", last: "Ødegaard" });
    expect(k.get("anna.schmidt@blau-gmbh.test")).toMatchObject({
      name: { first: "Anna", last: "Schmidt" },
      position: "Leiterin Buchhaltung",
    });
    expect(k.get("karriere@blau-gmbh.test")?.name).toBeNull();
  });

  it("reads security.txt as plain text", async () => {
    const x = await page("https://acme-widgets.test/.well-known/security.txt", "acme-widgets.test");
    expect(x.addresses.map((a) => a.email)).toEqual(["security@acme-widgets.test"]);
  });
});

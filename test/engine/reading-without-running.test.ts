// The readers behind the wider web's realities, one cause a test: what a script's literals spell
// (never what it computes), consent pages, cookies, late charsets and Office documents.
import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readingsOf } from "../../src/engine/people/readings.js";
import { decideEncoding } from "../../src/engine/web/charset.js";
import { consentAcceptLink } from "../../src/engine/web/consent.js";
import { CookieJar } from "../../src/engine/web/cookies.js";
import { extractPage } from "../../src/engine/web/extract/page.js";
import {
  assembledText,
  fetchedDataUrls,
  lazyChunks,
  scriptRedirect,
} from "../../src/engine/web/extract/script-text.js";
import { OfficeReadError, officeRows } from "../../src/engine/web/office-text.js";
import { writeOffice, writeZip } from "../fixtures/generator/widerweb/office.js";

const deflateRaw = (data: Uint8Array) => new Uint8Array(deflateRawSync(data));
const emails = async (html: string, domain = "brandt-kanzlei.de") =>
  (await extractPage(html, `https://${domain}/team`, domain)).addresses.map((a) => a.email).sort();

describe("scripts, read without running them", () => {
  it("joins string literals and the variables bound to them", () => {
    expect(assembledText(`document.write("clara.weiss" + "@" + "brandt-kanzlei" + "." + "de");`)).toContain(
      "clara.weiss@brandt-kanzlei.de",
    );
    expect(
      assembledText(
        `(function(){var u = 'maxi.berger'; var d = 'brandt-kanzlei' + '.de'; document.write('<a href="mailto:' + u + '@' + d + '">' + u + '@' + d + '</a>');})();`,
      ),
    ).toContain("maxi.berger@brandt-kanzlei.de");
  });

  it("reads a literal reversed by split/reverse/join", () => {
    expect(
      assembledText(
        `document.write(${JSON.stringify([..."clara.weiss@brandt-kanzlei.de"].reverse().join(""))}.split("").reverse().join(""));`,
      ),
    ).toContain("clara.weiss@brandt-kanzlei.de");
  });

  it("never computes: String.fromCharCode ends a join, and a literal as written is not assembled", () => {
    expect(assembledText(`var u="jane",h="acme",t="de";var a=u+String.fromCharCode(64)+h+"."+t;`)).not.toContain("@");
    expect(assembledText(`var contact = "info@brandt-kanzlei.de";`)).toBe("");
  });

  it("finds the JSON routes a script fetches, also joined from parts, and where a script redirects", () => {
    expect(fetchedDataUrls(`fetch("/wp-json/wp/v2/team").then(r => r.json())`)).toEqual(["/wp-json/wp/v2/team"]);
    expect(fetchedDataUrls(`var API_BASE = "/api/v1";\nfetch(API_BASE + "/people", {})`)).toContain("/api/v1/people");
    expect(fetchedDataUrls(`var cfg = "/api/v1/people";`), "a script that fetches nothing").toEqual([]);
    expect(scriptRedirect(`window.location.replace("/company/team");`)).toBe("/company/team");
    expect(scriptRedirect(`location.href = '/de/';`)).toBe("/de/");
  });

  it("assembles a split bundle's chunk URLs from its runtime's map, each with the route (path and name) that loads it", () => {
    const runtime = `o.p="/";o.u=function(e){return"static/js/"+e+"."+{12:"a1b2c3d4",57:"9f8e7d6c",301:"00ff11ee"}[e]+".chunk.js"};`;
    const routes = `var routes=[{path:"/products",name:"products",load:function(){return o.e(57).then(o.bind(o,1))}},{path:"/ueber-uns/leute",name:"team",load:function(){return o.e(12).then(o.bind(o,2))}},{path:"/x",load:function(){return o.e(301)}}];`;
    expect(lazyChunks(`(()=>{${runtime}function f(e){return e/2}${routes}})();`)).toEqual([
      { url: "/static/js/57.9f8e7d6c.chunk.js", route: "/products products" },
      { url: "/static/js/12.a1b2c3d4.chunk.js", route: "/ueber-uns/leute team" },
      { url: "/static/js/301.00ff11ee.chunk.js", route: "/x" },
    ]);
    // A chunk number the map does not hold, or no runtime: nothing is guessed.
    expect(lazyChunks(`${runtime}var r=[{path:"/team",load:function(){return o.e(99)}}];`)).toEqual([]);
    expect(lazyChunks(routes)).toEqual([]);
  });

  it("puts an assembled address where its script stands, named by the line before it", async () => {
    const html = `<html><body><p><strong>Clara Weiss</strong>, CTO<br>E-Mail: <script>document.write("clara.weiss" + "@" + "brandt-kanzlei.de");</script></p></body></html>`;
    const page = await extractPage(html, "https://brandt-kanzlei.de/team", "brandt-kanzlei.de");
    expect(page.addresses.map((a) => [a.email, a.name?.first, a.name?.last])).toEqual([
      ["clara.weiss@brandt-kanzlei.de", "Clara", "Weiss"],
    ]);
  });

  it("joins an address split over data attributes, only on the site's domain", async () => {
    expect(
      await emails(`<p><span class="m" data-user="clara.weiss" data-domain="brandt-kanzlei.de"></span></p>`),
    ).toEqual(["clara.weiss@brandt-kanzlei.de"]);
    expect(await emails(`<p><span data-user="clara" data-domain="other.com"></span></p>`)).toEqual([]);
  });

  it("reads text the page's CSS reverses, inline or by a class its <style> declares later, when it is the site's own address", async () => {
    const rev = (s: string) => [...s].reverse().join("");
    expect(
      await emails(
        `<p>Clara Weiss <span style="unicode-bidi: bidi-override; direction: rtl;">${rev("clara.weiss@brandt-kanzlei.de")}</span></p>
         <p>Max Berger <span class="mail-r">${rev("max.berger@brandt-kanzlei.de")}</span><style>.mail-r{unicode-bidi:bidi-override;direction:rtl}</style></p>`,
      ),
    ).toEqual(["clara.weiss@brandt-kanzlei.de", "max.berger@brandt-kanzlei.de"]);
  });

  it("leaves reversed text alone when it is another domain's address, not an address, or not turned right to left", async () => {
    const rev = (s: string) => [...s].reverse().join("");
    expect(
      await emails(
        `<p><span style="unicode-bidi:bidi-override;direction:rtl">${rev("privacy@consent-vendor.com")}</span></p>
         <p><span style="unicode-bidi:bidi-override;direction:rtl">${rev("Kanzlei Brandt, Berlin")}</span></p>
         <p><span style="unicode-bidi:bidi-override;direction:ltr">${rev("lea.roth@brandt-kanzlei.de")}</span></p>
         <p><span class="plain">${rev("jan.ost@brandt-kanzlei.de")}</span><style>.plain{direction:rtl}</style></p>`,
      ),
    ).toEqual([]);
  });

  it("reads a JSON answer as the page's data, and links a meta refresh and a fetched route", async () => {
    const json = JSON.stringify([
      { acf: { firstName: "Clara", lastName: "Weiss", email: "clara.weiss@brandt-kanzlei.de" } },
    ]);
    const data = await extractPage(
      json,
      "https://brandt-kanzlei.de/wp-json/wp/v2/team",
      "brandt-kanzlei.de",
      "application/json",
    );
    expect(data.addresses.map((a) => a.email)).toEqual(["clara.weiss@brandt-kanzlei.de"]);
    const page = await extractPage(
      `<html><head><meta http-equiv="refresh" content="0; url=/company/team"></head><body><script>fetch("/api/team")</script></body></html>`,
      "https://brandt-kanzlei.de/team",
      "brandt-kanzlei.de",
    );
    expect(page.linkRefs.map((l) => [l.url, l.rel])).toEqual(
      expect.arrayContaining([
        ["https://brandt-kanzlei.de/company/team", "refresh"],
        ["https://brandt-kanzlei.de/api/team", "data"],
      ]),
    );
  });
});

describe("consent walls and cookies", () => {
  const wall = `<main><h1>Before you continue</h1><p><a href="/consent/accept?return=%2Fteam">Accept and continue</a> <a href="/about">About us</a></p></main>`;

  it("follow a consent page's accept link only when the page asked for ended there", () => {
    expect(
      consentAcceptLink("https://brandt-kanzlei.de/team", "https://brandt-kanzlei.de/consent?return=%2Fteam", wall),
    ).toBe("https://brandt-kanzlei.de/consent/accept?return=%2Fteam");
    expect(
      consentAcceptLink("https://brandt-kanzlei.de/team", "https://brandt-kanzlei.de/team", wall),
      "not sent away",
    ).toBeNull();
    expect(
      consentAcceptLink(
        "https://brandt-kanzlei.de/x",
        "https://brandt-kanzlei.de/y",
        `<a href="/products/accept-card">Accept cards</a>`,
      ),
    ).toBeNull();
  });

  it("keep what answers set, drop what they expire", () => {
    const jar = new CookieJar();
    expect(jar.header()).toBeNull();
    jar.store(new Headers([["set-cookie", "site_consent=all; Path=/; Max-Age=31536000"]]));
    jar.store(new Headers([["set-cookie", "session=abc; HttpOnly"]]));
    expect(jar.header()).toBe("site_consent=all; session=abc");
    jar.store(new Headers([["set-cookie", "session=; Max-Age=0"]]));
    expect(jar.header()).toBe("site_consent=all");
  });
});

describe("encodings", () => {
  it("a <meta charset> after the first 1,024 bytes names the encoding", () => {
    const html = `<!DOCTYPE html><html><head><style>${"a{color:red}".repeat(120)}</style><meta charset="windows-1251"></head><body>Юлия</body></html>`;
    const bytes = new Uint8Array(
      [...html].map((ch) =>
        ch === "Ю" ? 0xde : ch === "л" ? 0xeb : ch === "и" ? 0xe8 : ch === "я" ? 0xff : ch.charCodeAt(0),
      ),
    );
    expect(decideEncoding(bytes, "text/html")).toEqual({ encoding: "windows-1251", source: "late meta" });
    expect(new TextDecoder(decideEncoding(bytes, "text/html").encoding).decode(bytes)).toContain("Юлия");
  });
});

describe("Office documents", () => {
  const rows = [
    ["Name", "Position", "E-mail"],
    ["Clara Weiss", "CTO", "clara.weiss@brandt-kanzlei.de"],
  ];

  it("reads a Word table row by row, deflated or stored", async () => {
    for (const deflated of [true, false]) {
      const bytes = writeOffice({ kind: "docx", title: "Staff", rows, deflated, shared: false }, deflateRaw);
      expect(await officeRows(bytes)).toEqual([["Staff"], ...rows]);
    }
  });

  it("reads a workbook with shared or inline strings", async () => {
    for (const shared of [true, false]) {
      const bytes = writeOffice({ kind: "xlsx", title: "Staff", rows, deflated: true, shared }, deflateRaw);
      expect(await officeRows(bytes)).toEqual([["Staff"], ...rows]);
    }
  });

  it("refuses what is not an Office zip, and a part that inflates beyond its cap", async () => {
    await expect(officeRows(new TextEncoder().encode("not a zip"))).rejects.toBeInstanceOf(OfficeReadError);
    const bomb = writeZip({ "word/document.xml": "<w:p>".padEnd(5 * 1024 * 1024, " ") }, deflateRaw);
    await expect(officeRows(bomb)).rejects.toBeInstanceOf(OfficeReadError);
  });
});

describe("names with a patronymic", () => {
  const best = (text: string) => readingsOf({ kind: "shown", text, familyFirstPage: false })[0];

  it("read the family name first when the patronymic ends the name, as Russian documents write it", () => {
    expect(best("Быкова Оксана Петровна")).toEqual({
      name: { first: "Оксана", middle: "Петровна", last: "Быкова" },
      weight: 1,
    });
  });

  it("read the given name first when the patronymic stands in the middle, native or romanized", () => {
    expect(best("Юлия Сергеевна Иванова")?.name).toEqual({ first: "Юлия", middle: "Сергеевна", last: "Иванова" });
    expect(best("Ivan Sergeyevich Petrov")?.name).toEqual({ first: "Ivan", middle: "Sergeyevich", last: "Petrov" });
  });

  it("leave other three-word names to the domain's evidence", () => {
    expect(best("María José García")?.name).not.toMatchObject({ middle: "José", last: "María" });
  });
});

// The engine reads what real company pages publish: app-rendered pages whose people live only in
// embedded data, schema.org microdata, Japanese, Chinese and Korean names beside their romanized
// forms, messy markup, obfuscations in the page's own words and text its CSS reverses, without
// reading what only an image shows.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { indexFor } from "../../src/db/shards.js";
import { proposeAddress } from "../../src/engine/finder/email-finder.js";
import { domainRow, emailsOfDomain, formatsOf, shownNamesOf } from "../../src/engine/index/read.js";
import { storeCrawl } from "../../src/engine/index/store.js";
import { alignRomanized, namesAnotherFamily, romanizeKana } from "../../src/engine/people/native-names.js";
import { extractPage } from "../../src/engine/web/extract/page.js";
import { appDataOf } from "../../src/engine/web/extract/script-data.js";

const read = async (html: string, domain: string, path = "/team") =>
  (await extractPage(html, `https://${domain}${path}`, domain)).addresses;
const named = (addresses: Awaited<ReturnType<typeof read>>) =>
  Object.fromEntries(
    addresses.map((a) => [
      a.email,
      a.name ? [a.name.first, a.name.middle ?? null, a.name.last].filter(Boolean).join(" / ") : null,
    ]),
  );

/** Stores pages as one crawl of `domain` and returns its rows and formats as the finder sees them. */
async function crawl(domain: string, pages: [path: string, html: string][]) {
  const extracted = await Promise.all(
    pages.map(async ([path, html]) => ({
      url: `https://${domain}${path}`,
      extraction: await extractPage(html, `https://${domain}${path}`, domain),
    })),
  );
  await storeCrawl(env, { domain, pages: extracted, status: "done", error: null, now: Date.now() });
  const rows = await emailsOfDomain(env, domain);
  return { rows, formats: formatsOf(await domainRow(env, domain), rows) };
}

describe("app-rendered pages: people only in embedded data", () => {
  it("reads people from a Next.js page's __NEXT_DATA__, parts, titles and nested contact details", async () => {
    const data = {
      props: {
        pageProps: {
          team: [
            { id: 1, firstName: "Mia", lastName: "Lorenz", role: "CTO", email: "mia.lorenz@app-x1.com" },
            {
              id: 2,
              name: "Jonas Weber",
              jobTitle: "CEO",
              contact: { email: "jonas.weber@app-x1.com", phone: "+49 30 1234" },
            },
          ],
        },
      },
    };
    const html = `<html><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">${JSON.stringify(data)}</script></body></html>`;
    const found = await read(html, "app-x1.com");
    expect(named(found)).toEqual({
      "mia.lorenz@app-x1.com": "Mia / Lorenz",
      "jonas.weber@app-x1.com": "Jonas / Weber",
    });
    expect(found.map((a) => [a.position, a.via])).toEqual([
      ["CTO", "data"],
      ["CEO", "data"],
    ]);
    expect(found[0]!.evidence).toEqual({ kind: "stated", name: { first: "Mia", last: "Lorenz" } });
  });

  it("reads Nuxt 2's window.__NUXT__ payload, whose values come from the function's arguments", async () => {
    const payload = `window.__NUXT__=(function(a,b,c,d){return {layout:"default",data:[{staff:[{name:"Mia Lorenz",position:a,email:"mia.lorenz\\u0040app-x2.com"},{name:b,position:a,email:c}]}],fetch:{},error:null,serverRendered:!0,routePath:"\\u002Fteam",config:{cdnURL:d}}}("Engineer","Jonas Weber","jonas.weber@app-x2.com",void 0));`;
    const html = `<html><body><div id="__nuxt"></div><script>${payload}</script></body></html>`;
    const found = await read(html, "app-x2.com");
    expect(named(found)).toEqual({
      "mia.lorenz@app-x2.com": "Mia / Lorenz",
      "jonas.weber@app-x2.com": "Jonas / Weber",
    });
    expect(found.map((a) => a.position)).toEqual(["Engineer", "Engineer"]);
  });

  it("reads a payload function called after its parentheses, and devalue's assignments before its return", () => {
    const [value] = appDataOf([
      { type: "", id: "", text: `window.__NUXT__=(function(a,b){a.self=b;return {a:a}})({},"x")` },
    ]);
    expect(value).toEqual({ a: { self: "x" } });
  });

  it("reads Nuxt 3's devalue payload and JSON islands", async () => {
    const nuxt3 = `[["Reactive",1],{"data":2},{"team":3},[4],{"name":5,"email":6,"role":7},"Mia Lorenz","mia.lorenz@app-x3.com","CTO"]`;
    const island = `{"people":[{"name":{"first":"Jonas","last":"Weber"},"email":"jweber@app-x3.com"}]}`;
    const html = `<html><body><script type="application/json" id="__NUXT_DATA__">${nuxt3}</script><script type="application/json" data-island="team">${island}</script></body></html>`;
    expect(named(await read(html, "app-x3.com"))).toEqual({
      "mia.lorenz@app-x3.com": "Mia / Lorenz",
      "jweber@app-x3.com": "Jonas / Weber",
    });
  });

  it("reads rich text inside embedded data as page text: a name above an address", async () => {
    const data = {
      page: {
        blocks: [
          { html: '<h3>Mia Lorenz</h3><p>Head of Sales<br><a href="mailto:mlorenz@app-x4.com">Write to Mia</a></p>' },
        ],
      },
    };
    const html = `<html><body><script id="__NEXT_DATA__" type="application/json">${JSON.stringify(data)}</script></body></html>`;
    expect(named(await read(html, "app-x4.com"))).toEqual({ "mlorenz@app-x4.com": "Mia / Lorenz" });
  });

  it("reads an Astro island's props and Inertia's data-page attribute", async () => {
    const pair = (v: unknown): unknown =>
      Array.isArray(v)
        ? [1, v.map(pair)]
        : v && typeof v === "object"
          ? [0, Object.fromEntries(Object.entries(v).map(([k, x]) => [k, pair(x)]))]
          : [0, v];
    const props = {
      title: pair("Team"),
      people: pair([{ name: "Mia Lorenz", position: "CTO", email: "mia.lorenz@app-x7.com" }]),
    };
    const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
    const inertia = {
      component: "Team",
      props: { members: [{ first_name: "Jonas", last_name: "Weber", email: "jweber@app-x7.com" }] },
    };
    const html = `<html><body><astro-island uid="Z1" props="${esc(JSON.stringify(props))}" ssr client="load"></astro-island><div id="app" data-page="${esc(JSON.stringify(inertia))}"></div></body></html>`;
    expect(named(await read(html, "app-x7.com"))).toEqual({
      "mia.lorenz@app-x7.com": "Mia / Lorenz",
      "jweber@app-x7.com": "Jonas / Weber",
    });
  });

  it("reads a native name and its romanized form given in one value of the data", async () => {
    const data = {
      people: [
        { name: "小林 宏 (Hiroshi Kobayashi)", email: "hiroshi.kobayashi@app-x8.jp" },
        { name: "伊藤 結衣 (Yui Ito)", email: "yui.ito@app-x8.jp" },
      ],
    };
    const html = `<html lang="ja"><body><script id="__NEXT_DATA__" type="application/json">${JSON.stringify(data)}</script></body></html>`;
    expect(named(await read(html, "app-x8.jp"))).toEqual({
      "hiroshi.kobayashi@app-x8.jp": "Hiroshi / Kobayashi",
      "yui.ito@app-x8.jp": "Yui / Ito",
    });
  });

  it("returns no other domain's address from embedded data: form services, analytics, error trackers", async () => {
    const data = {
      form: { action: "https://formspree.io/f/abc", notify: "forms@formspree.io" },
      analytics: {
        account: "ua-123@analytics-vendor.com",
        dsn: "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/2",
      },
      team: [{ name: "Mia Lorenz", email: "mia.lorenz@app-x5.com" }],
    };
    const html = `<html><body><script id="__NEXT_DATA__" type="application/json">${JSON.stringify(data)}</script></body></html>`;
    expect((await read(html, "app-x5.com")).map((a) => a.email)).toEqual(["mia.lorenz@app-x5.com"]);
  });

  it("does not take an organisation with an address for a person", async () => {
    const data = { company: { name: "Acme Widgets GmbH", email: "info@app-x6.com" } };
    const html = `<html><body><script type="application/json">${JSON.stringify(data)}</script></body></html>`;
    expect(named(await read(html, "app-x6.com"))).toEqual({ "info@app-x6.com": null });
  });
});

describe("schema.org microdata", () => {
  const person = (inner: string) => `<div itemscope itemtype="https://schema.org/Person">${inner}</div>`;

  it("reads a Person item's address given only as <link itemprop=email href=mailto:>", async () => {
    const html = `<html><body>${person(`<h3 itemprop="name">Mia Lorenz</h3><p itemprop="jobTitle">CTO</p><link itemprop="email" href="mailto:mia.lorenz@md-x1.com">`)}</body></html>`;
    const [a] = await read(html, "md-x1.com");
    expect(a).toMatchObject({
      email: "mia.lorenz@md-x1.com",
      name: { first: "Mia", last: "Lorenz" },
      position: "CTO",
      via: "microdata",
    });
  });

  it("reads <meta itemprop=email content> with givenName and familyName as the stated parts", async () => {
    const html = `<html><body>${person(`<span itemprop="familyName">Lorenz</span>, <span itemprop="givenName">Mia</span><meta itemprop="email" content="lorenz.m@md-x2.com">`)}</body></html>`;
    const [a] = await read(html, "md-x2.com");
    expect(a).toMatchObject({
      email: "lorenz.m@md-x2.com",
      evidence: { kind: "stated", name: { first: "Mia", last: "Lorenz" } },
    });
  });

  it("reads the address as an item's text and Person items nested in an Organization, whose own address is nobody's", async () => {
    const html = `<html><body><div itemscope itemtype="https://schema.org/Organization"><span itemprop="name">Acme</span> <span itemprop="email">office@md-x3.com</span>
      <DIV ITEMPROP=employee ITEMSCOPE ITEMTYPE=https://schema.org/Person><SPAN ITEMPROP=name>Jonas <b>Weber</b></SPAN> <SPAN ITEMPROP=email>jweber@md-x3.com</SPAN></DIV></div></body></html>`;
    expect(named(await read(html, "md-x3.com"))).toEqual({
      "jweber@md-x3.com": "Jonas / Weber",
      "office@md-x3.com": null,
    });
  });

  it("reads ruby inside a microdata name the way the page text reads it", async () => {
    const html = `<html lang="ja"><body>${person(`<span itemprop="name"><ruby>木村<rt>Kimura</rt></ruby> <ruby>由紀<rt>Yuki</rt></ruby></span><link itemprop="email" href="mailto:ykimura@md-x4.co.jp">`)}</body></html>`;
    expect(named(await read(html, "md-x4.co.jp"))).toEqual({ "ykimura@md-x4.co.jp": "Yuki / Kimura" });
  });

  it("reads additionalName as the middle name, so that a {f}{m}{last} site has a format", async () => {
    const ld = (g: string, m: string, f: string, e: string) =>
      `<script type="application/ld+json">${JSON.stringify({ "@type": "Person", name: `${g} ${m[0]}. ${f}`, givenName: g, additionalName: m, familyName: f, email: `mailto:${e}` })}</script>`;
    const { formats } = await crawl("fml-x1.be", [
      [
        "/team/femke",
        `<html lang="nl"><body><h1>Femke M. Hendriks</h1>${ld("Femke", "Maria", "Hendriks", "fmhendriks@fml-x1.be")}</body></html>`,
      ],
      [
        "/team/chris",
        `<html lang="nl"><body><h1>Christopher T. Fletcher</h1>${ld("Christopher", "Thomas", "Fletcher", "ctfletcher@fml-x1.be")}</body></html>`,
      ],
    ]);
    expect(formats.shares[0]?.pattern).toBe("{f}{m}{last}");
  });
});

describe("Japanese, Chinese and Korean names beside their romanized forms", () => {
  const card = (who: string, email: string) => `<div><p>${who}</p><p>${email}</p></div>`;

  it("reads the family name from the native name in parentheses: {last}.{first}, not mirrored", async () => {
    const html = `<html lang="ja"><body>${card("田中 太郎 (Taro Tanaka)", "tanaka.taro@jp-x1.co.jp")}${card("鈴木 花子（Hanako Suzuki）", "suzuki.hanako@jp-x1.co.jp")}</body></html>`;
    expect(named(await read(html, "jp-x1.co.jp"))).toEqual({
      "tanaka.taro@jp-x1.co.jp": "Taro / Tanaka",
      "suzuki.hanako@jp-x1.co.jp": "Hanako / Suzuki",
    });
    // Written family name first in Latin too, the native name still says which word is which.
    expect(
      named(await read(html.replace("Taro Tanaka", "Tanaka Taro"), "jp-x1.co.jp"))["tanaka.taro@jp-x1.co.jp"],
    ).toBe("Taro / Tanaka");
  });

  it("reads a two-column table: native name in one cell, romanized name in the next", async () => {
    const row = (n: string, r: string, e: string) => `<tr><td>${n}</td><td>${r}</td><td>${e}</td></tr>`;
    const html = `<html lang="ja"><body><table>${row("佐藤 健", "Ken Sato", "sato.ken@jp-x2.co.jp")}${row("山本 美咲", "Misaki Yamamoto", "yamamoto.misaki@jp-x2.co.jp")}</table></body></html>`;
    const { formats } = await crawl("jp-x2.co.jp", [["/company", html]]);
    expect(formats.shares[0]?.pattern).toBe("{last}.{first}");
  });

  it("reads a branch page's heading in two words (スタッフ 大阪) as no native name of the Latin name under it", async () => {
    // Real-web seed 90069298, delta-shoji: the heading above "Matsumoto Kenji" was taken for his name in
    // Japanese, so his romanized name was read given name first and the format came out {first}.{l}.
    const table = `<html lang="ja"><body><h1>スタッフ紹介</h1><table><tr><td>Suzuki Kenta</td><td>エンジニア</td><td>メール: suzuki.k@jp-x9.co.jp</td></tr><tr><td>Mori Sakura</td><td>代表取締役</td><td>—</td></tr></table></body></html>`;
    const branch = `<html lang="ja"><body><h1>スタッフ 大阪</h1><p><strong>Matsumoto Kenji</strong>, コンサルタント<br>メール: matsumoto.k@jp-x9.co.jp</p></body></html>`;
    const { rows, formats } = await crawl("jp-x9.co.jp", [
      ["/company/members", table],
      ["/about/offices/osaka/team", branch],
    ]);
    expect(formats.shares[0]?.pattern).toBe("{last}.{f}");
    expect(rows.map((r) => [r.firstName, r.lastName])).toEqual([
      ["Kenji", "Matsumoto"],
      ["Kenta", "Suzuki"],
    ]);
    // A native name whose family name the romanized one does not spell is someone else's.
    expect(namesAnotherFamily("松本 健二", "Suzuki Kenta")).toBe(true);
    expect(namesAnotherFamily("鈴木 健太", "Kenta Suzuki")).toBe(false);
  });

  it("reads ruby annotations, in Latin letters or in kana, as the reading of each part", async () => {
    const latin = `<p><ruby>田中<rt>Tanaka</rt></ruby> <ruby>太郎<rt>Taro</rt></ruby></p><p>taro.tanaka@jp-x3.co.jp</p>`;
    const kana = `<p><ruby>伊藤<rp>(</rp><rt>いとう</rt><rp>)</rp></ruby><ruby>翔太<rp>(</rp><rt>しょうた</rt><rp>)</rp></ruby></p><p>shota.ito@jp-x3.co.jp</p>`;
    expect(named(await read(`<html lang="ja"><body>${latin}${kana}</body></html>`, "jp-x3.co.jp"))).toEqual({
      "taro.tanaka@jp-x3.co.jp": "Taro / Tanaka",
      "shota.ito@jp-x3.co.jp": "Shota / Ito",
    });
    expect(romanizeKana("しょうた")).toBe("shouta");
    expect(romanizeKana("ハットリ")).toBe("hattori");
  });

  it("reads a name shown natively on the Japanese page and romanized only on its /en/ version", async () => {
    const ja = `<html lang="ja"><body>${card("田中 太郎", "tanaka.taro@jp-x4.co.jp")}${card("鈴木 花子", "suzuki.hanako@jp-x4.co.jp")}</body></html>`;
    const en = `<html lang="en"><body>${card("Tanaka Taro", "tanaka.taro@jp-x4.co.jp")}${card("Suzuki Hanako", "suzuki.hanako@jp-x4.co.jp")}</body></html>`;
    const { rows, formats } = await crawl("jp-x4.co.jp", [
      ["/company", ja],
      ["/en/company", en],
    ]);
    expect(formats.shares[0]?.pattern).toBe("{last}.{first}");
    expect(rows.map((r) => [r.firstName, r.lastName])).toEqual([
      ["Hanako", "Suzuki"],
      ["Taro", "Tanaka"],
    ]);
  });

  it("reads Chinese staff known by an English given name, and Korean names written without a space", async () => {
    const html = `<html lang="zh-CN"><body>${card("王伟 (David Wang)", "david.wang@cn-x1.cn")}${card("陈静 (Grace)", "grace.chen@cn-x1.cn")}${card("김민준 (Kim Minjun)", "minjun.kim@cn-x1.cn")}</body></html>`;
    expect(named(await read(html, "cn-x1.cn"))).toEqual({
      "david.wang@cn-x1.cn": "David / Wang",
      "grace.chen@cn-x1.cn": "Grace / Chen",
      "minjun.kim@cn-x1.cn": "Minjun / Kim",
    });
    expect(alignRomanized("欧阳明", "Ming Ouyang")).toEqual({ first: "Ming", last: "Ouyang" });
    expect(alignRomanized("山田 一郎", "Ichiro Yamaguchi")).toBeNull();
  });

  it("reads Seo as a Korean family name, not the acronym SEO, and a card's labels (이메일:, 전화:) as no name", async () => {
    const html = `<html lang="ko"><body><div><h3>서수아 (Sua Seo)</h3><p>대표이사</p><p>전화: +82 81 208 2171</p><p>이메일: <a href="mailto:seos@kr-x1.kr">seos@kr-x1.kr</a></p></div></body></html>`;
    expect(named(await read(html, "kr-x1.kr"))).toEqual({ "seos@kr-x1.kr": "Sua / Seo" });
    const unnamed = await read(
      `<html lang="ko"><body><p>전화: +82 81 208 2171</p><p>이메일: kimm@kr-x1.kr</p></body></html>`,
      "kr-x1.kr",
    );
    expect(unnamed[0]).toMatchObject({ name: null, native: null });
  });

  it("reads native names and their romanized forms from embedded data", async () => {
    const data = {
      members: [{ nameJa: "高橋 健一", nameEn: "Kenichi Takahashi", email: "takahashi.kenichi@jp-x5.co.jp" }],
    };
    const html = `<html lang="ja"><body><script id="__NEXT_DATA__" type="application/json">${JSON.stringify(data)}</script></body></html>`;
    expect(named(await read(html, "jp-x5.co.jp"))).toEqual({ "takahashi.kenichi@jp-x5.co.jp": "Kenichi / Takahashi" });
  });
});

describe("Arabic, Hebrew and Thai names beside their romanized forms", () => {
  const card = (who: string, email: string) => `<div><p>${who}</p><p>${email}</p></div>`;

  it("reads the romanized name of a right-to-left page's staff, and of Thai staff, given name first", async () => {
    const rtl = (lang: string, cards: string) => `<html lang="${lang}" dir="rtl"><body>${cards}</body></html>`;
    const arabic = rtl(
      "ar",
      card("أحمد حداد (Ahmed Haddad)", "ahmed.haddad@ar-x1.example") +
        card("ليلى منصور (Layla Mansour)", "layla.mansour@ar-x1.example"),
    );
    expect(named(await read(arabic, "ar-x1.example"))).toEqual({
      "ahmed.haddad@ar-x1.example": "Ahmed / Haddad",
      "layla.mansour@ar-x1.example": "Layla / Mansour",
    });
    const hebrew = rtl("he", card("נועה כהן (Noa Cohen)", "ncohen@he-x1.example"));
    expect(named(await read(hebrew, "he-x1.example"))).toEqual({ "ncohen@he-x1.example": "Noa / Cohen" });
    const thai = `<html lang="th"><body>${card("สมชาย ศรีสุข (Somchai Srisuk)", "somchai.s@th-x1.example")}</body></html>`;
    expect(named(await read(thai, "th-x1.example"))).toEqual({ "somchai.s@th-x1.example": "Somchai / Srisuk" });
  });

  it("takes the middle initial a data record's displayed name shows beside given and family names stated without it", async () => {
    const json = JSON.stringify({
      people: [
        { firstName: "Uwe", lastName: "Hölzl", displayName: "Dipl.-Ing. Hölzl Uwe T.", email: "uthoelzl@de-x9.de" },
        { firstName: "Jürgen", lastName: "Neumann", displayName: "Neumann Jürgen J.", email: "jjneumann@de-x9.de" },
        { firstName: "Anna", lastName: "Berg", displayName: "Anna Berg", email: "aberg@de-x9.de" },
      ],
    });
    const page = await extractPage(json, "https://de-x9.de/api/team", "de-x9.de", "application/json", "de");
    expect(named(page.addresses)).toEqual({
      "uthoelzl@de-x9.de": "Uwe / T. / Hölzl",
      "jjneumann@de-x9.de": "Jürgen / J. / Neumann",
      "aberg@de-x9.de": "Anna / Berg",
    });
  });

  it("ties a name written only in Arabic, Hebrew or Thai script to the address whose consonants spell it, and never to another", async () => {
    const rtl = (lang: string, cards: string) => `<html lang="${lang}" dir="rtl"><body>${cards}</body></html>`;
    const arabic = rtl(
      "ar",
      card("أحمد حداد", "ahmed.haddad@ar-x2.example") +
        card("يوسف خوري", "ykhoury@ar-x2.example") +
        card("فاطمة منصور", "fatima.mansour@ar-x2.example") +
        card("عمر درويش", "info.darwish@ar-x2.example"),
    );
    expect(named(await read(arabic, "ar-x2.example"))).toEqual({
      "ahmed.haddad@ar-x2.example": "أحمد / حداد",
      "ykhoury@ar-x2.example": "يوسف / خوري",
      "fatima.mansour@ar-x2.example": "فاطمة / منصور",
      // Not Omar's address: no piece of "info" spells عمر.
      "info.darwish@ar-x2.example": null,
    });
    const hebrew = rtl("he", card("נועה כהן", "ncohen@he-x2.example") + card("יוסף פרץ", "yosef.peretz@he-x2.example"));
    expect(named(await read(hebrew, "he-x2.example"))).toEqual({
      "ncohen@he-x2.example": "נועה / כהן",
      "yosef.peretz@he-x2.example": "יוסף / פרץ",
    });
    const thai = `<html lang="th"><body>${card("สมชาย ศรีสุข", "somchai.s@th-x2.example")}${card("มาลี วงศ์สวัสดิ์", "malee.wongsawat@th-x2.example")}</body></html>`;
    expect(named(await read(thai, "th-x2.example"))).toEqual({
      "somchai.s@th-x2.example": "สมชาย / ศรีสุข",
      "malee.wongsawat@th-x2.example": "มาลี / วงศ์สวัสดิ์",
    });
    // Someone else's address beside the card keeps no name.
    expect(named(await read(rtl("ar", card("أحمد حداد", "karim.saleh@ar-x2.example")), "ar-x2.example"))).toEqual({
      "karim.saleh@ar-x2.example": null,
    });
  });

  it("reads an Arabic or Hebrew page's own words as no one's name, and its words for at and dot (wider-web seed 3079816937)", async () => {
    // A page worded in Hebrew: its menu, headings, titles and "by" lines are two or three words in
    // one script, as a name written only in that script is; and its footer spells the address in
    // Hebrew words ("strudel" for @, "nekuda" for a dot).
    const html = `<html lang="he" dir="rtl"><body><nav><a href="/">דף הבית</a> <a href="/contact">צור קשר</a></nav><h1>הצוות שלנו</h1>${card("מיכל כץ", "מנהל פרויקטים")}<p>מאת אבי ביטון · 2026-02-02</p><footer><p>עיצוב ובניית אתר: pixelwerk</p><p>jobs שטרודל he-x3 נקודה example</p></footer></body></html>`;
    const page = await extractPage(html, "https://he-x3.example/", "he-x3.example");
    expect(page.personNames).toEqual(["מיכל כץ"]);
    expect(page.addresses.map((a) => a.email)).toEqual(["jobs@he-x3.example"]);
    const arabic = `<html lang="ar" dir="rtl"><body><h1>فريق العمل</h1><p>أحمد حداد</p><p>مدير المبيعات</p><p>sales آت ar-x3 نقطة example</p></body></html>`;
    const ar = await extractPage(arabic, "https://ar-x3.example/", "ar-x3.example");
    expect(ar.personNames).toEqual(["أحمد حداد"]);
    expect(ar.addresses.map((a) => a.email)).toEqual(["sales@ar-x3.example"]);
  });

  it("reads a Thai page's own words as no one's name, แอท/ดอท as at and dot, and ตัวอย่าง's address as an example (wider-web guard site 16)", async () => {
    // Thai writes a compound as one word, phrases apart: "ผู้อำนวยการ ฝ่ายการเงิน" (director, finance)
    // is two words in one script, as a name written in Thai only is, and was stored as a person.
    const html = `<html lang="th"><body><nav><a href="/">หน้าแรก</a> <a href="/th/contact">ติดต่อเรา</a></nav><h1>ทีมงานของเรา</h1><p>สมชาย บุญมี</p><p>ผู้อำนวยการ ฝ่ายการเงิน</p><p>เจ้าหน้าที่ ธุรการ</p><p>บริษัท สยามเทค จำกัด</p><p>sales แอท th-x1 ดอท example</p><p>ติดต่อพนักงานทุกคนได้ที่อีเมล firstname@th-x1.example (ตัวอย่าง somchai@th-x1.example)</p></body></html>`;
    const page = await extractPage(html, "https://th-x1.example/", "th-x1.example");
    expect(page.personNames).toEqual(["สมชาย บุญมี"]);
    expect(page.addresses.map((a) => a.email)).toEqual(["sales@th-x1.example"]);
  });

  it("reads a Thai or Arabic name's rendering given name first on a page written family name first, in its text or its data", async () => {
    // A Hungarian page (family name first) with foreign staff: the rendering follows the native name's order.
    const hu = `<html lang="hu"><body>${card("สมศักดิ์ ศรีสุข (Somsak Srisuk)", "srisuk.somsak@hu-x1.example")}${card("أحمد حداد (Ahmed Haddad)", "haddad.ahmed@hu-x1.example")}</body></html>`;
    expect(named(await read(hu, "hu-x1.example"))).toEqual({
      "srisuk.somsak@hu-x1.example": "Somsak / Srisuk",
      "haddad.ahmed@hu-x1.example": "Ahmed / Haddad",
    });
    const json = JSON.stringify({
      people: [{ name: "สมศักดิ์ ศรีสุข (Somsak Srisuk)", email: "srisuk.somsak@hu-x2.example", position: "Tanácsadó" }],
    });
    const data = await extractPage(json, "https://hu-x2.example/api/team", "hu-x2.example", "application/json", "hu");
    expect(named(data.addresses)).toEqual({ "srisuk.somsak@hu-x2.example": "Somsak / Srisuk" });
  });
});

describe("messy markup", () => {
  it("reads upper-case, unclosed tags and unquoted attributes in a layout table", async () => {
    const html = `<HTML><BODY BGCOLOR=#ffffff><TABLE WIDTH=600><TR><TD VALIGN=top><B>Mia Lorenz</B><BR>Partner<BR><A HREF=mailto:mlorenz@messy-x1.de>E-Mail</A><TD VALIGN=top><B>Jonas Weber</B><BR>Partner<BR><A HREF=mailto:jweber@messy-x1.de>E-Mail</A></TABLE>`;
    expect(named(await read(html, "messy-x1.de"))).toEqual({
      "mlorenz@messy-x1.de": "Mia / Lorenz",
      "jweber@messy-x1.de": "Jonas / Weber",
    });
  });

  it("reads a BOM, CRLF line ends and a <br>-separated list", async () => {
    const html =
      "\uFEFF<html>\r\n<body>\r\n<p>Mia Lorenz, Partner<br>\r\nmia.lorenz@messy-x2.de<br>\r\nJonas Weber, Associate<br>\r\njonas.weber@messy-x2.de</p>\r\n</body></html>";
    expect(named(await read(html, "messy-x2.de"))).toEqual({
      "mia.lorenz@messy-x2.de": "Mia / Lorenz",
      "jonas.weber@messy-x2.de": "Jonas / Weber",
    });
  });

  it("reads a table written row by row: names, titles, then addresses", async () => {
    const row = (cells: string[]) => `<tr>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`;
    const html = `<html><body><table>${row(["Mia Lorenz", "Jonas Weber", "Lea Hoffmann"])}${row(["Partner", "Partner", "Counsel"])}${row(["mlorenz@messy-x3.de", "jweber@messy-x3.de", "lhoffmann@messy-x3.de"])}</table></body></html>`;
    expect(named(await read(html, "messy-x3.de"))).toEqual({
      "mlorenz@messy-x3.de": "Mia / Lorenz",
      "jweber@messy-x3.de": "Jonas / Weber",
      "lhoffmann@messy-x3.de": "Lea / Hoffmann",
    });
  });
});

describe("obfuscations in words", () => {
  const one = async (text: string, domain: string, lang = "en") =>
    (await read(`<html lang="${lang}"><body><p>${text}</p></body></html>`, domain, "/contact")).map((a) => a.email);

  it("reads a spelled-out address whose local part spells its dots too", async () => {
    expect(await one("mia dot lorenz at obf-x1 dot com", "obf-x1.com")).toEqual(["mia.lorenz@obf-x1.com"]);
    expect(await one("Mia Lorenz: mia.lorenz at obf-x1.com", "obf-x1.com")).toEqual(["mia.lorenz@obf-x1.com"]);
  });

  it("reads the at and dot words of the page's language", async () => {
    expect(await one("jan.kowalski [małpa] obf-x2 [kropka] pl", "obf-x2.pl", "pl")).toEqual(["jan.kowalski@obf-x2.pl"]);
    expect(await one("jean.dupont arobase obf-x3 point fr", "obf-x3.fr", "fr")).toEqual(["jean.dupont@obf-x3.fr"]);
    expect(await one("mario.rossi (chiocciola) obf-x4 (punto) it", "obf-x4.it", "it")).toEqual([
      "mario.rossi@obf-x4.it",
    ]);
    expect(await one("jan.jansen [apenstaartje] obf-x5 [punt] nl", "obf-x5.nl", "nl")).toEqual([
      "jan.jansen@obf-x5.nl",
    ]);
    expect(await one("tanaka（アットマーク）obf-x6.co.jp", "obf-x6.co.jp", "ja")).toEqual(["tanaka@obf-x6.co.jp"]);
    expect(await one("wang.wei#obf-x7.cn（请把#换成@）", "obf-x7.cn", "zh")).toEqual(["wang.wei@obf-x7.cn"]);
    expect(await one("ali nokta yilmaz (at) obf-x10 nokta com nokta tr", "obf-x10.com.tr", "tr")).toEqual([
      "ali.yilmaz@obf-x10.com.tr",
    ]);
    expect(await one("max punkt muster (at) obf-x11 punkt de", "obf-x11.de", "de")).toEqual(["max.muster@obf-x11.de"]);
    expect(await one("ola.nordmann krøllalfa obf-x12 punktum no", "obf-x12.no", "nb")).toEqual([
      "ola.nordmann@obf-x12.no",
    ]);
    expect(await one("minh chấm tran (a còng) obf-x13 chấm vn", "obf-x13.vn", "vi")).toEqual(["minh.tran@obf-x13.vn"]);
  });

  it("does not take a Russian or Korean example or placeholder for a mailbox", async () => {
    expect(
      await one(
        "Адреса сотрудников имеют вид imya.familiya@obf-x14.ru, например ivanov.ivan@obf-x14.ru",
        "obf-x14.ru",
        "ru",
      ),
    ).toEqual([]);
    expect(
      await one(
        "직원 이메일 주소는 firstname.lastname@obf-x15.kr 형식입니다. 예: gildong.hong@obf-x15.kr",
        "obf-x15.kr",
        "ko",
      ),
    ).toEqual([]);
  });

  it("does not read ordinary prose as an address", async () => {
    expect(await one("Find us at obf-x8.com or meet us at the fair; Tickets @ shop.obf-x8.com", "obf-x8.com")).toEqual(
      [],
    );
    expect(await one("Call #1 at obf-x8.com", "obf-x8.com")).toEqual([]);
  });

  it("does not take an address only an image shows; reads what CSS reverses and what a script joins from literals and data attributes", async () => {
    const html = `<html><body>
      <p><span style="unicode-bidi:bidi-override;direction:rtl">moc.9x-fbo@znerol.aim</span></p>
      <p><script>document.write('jonas.weber' + '@' + 'obf-x9.com')</script><span class="js-mail" data-user="lea" data-domain="obf-x9.com"></span></p>
      <p><img src="/img/kontakt-mail.png" alt="E-Mail-Adresse als Bild"></p>
      <p>info@obf-x9.com</p></body></html>`;
    expect((await read(html, "obf-x9.com", "/contact")).map((a) => a.email).sort()).toEqual([
      "info@obf-x9.com",
      "jonas.weber@obf-x9.com",
      "lea@obf-x9.com",
      "mia.lorenz@obf-x9.com",
    ]);
  });
});

describe("the finder uses the people it read", () => {
  const card = (n: string, e: string) => `<div><h3>${n}</h3><p>Designer</p><p><a href="mailto:${e}">${e}</a></p></div>`;

  it("answers a first-and-last-name query with the address of the person shown with a middle name", async () => {
    const { rows, formats } = await crawl("mid-x9.com", [
      [
        "/team",
        `<html><body>${card("Sarah Anne Miller", "samiller@mid-x9.com")}${card("David J. Brown", "djbrown@mid-x9.com")}</body></html>`,
      ],
    ]);
    expect(formats.shares[0]?.pattern).toBe("{f}{m}{last}");
    expect(proposeAddress(rows, { first: "Sarah", last: "Miller" }, "mid-x9.com", formats)).toMatchObject({
      email: "samiller@mid-x9.com",
      pattern: "{f}{m}{last}",
    });
  });

  it("reads Indian staff shown by their initials, whose initials vote only for formats written with initials", async () => {
    const { rows, formats } = await crawl("in-x1.in", [
      [
        "/team",
        `<html lang="en"><body>${card("K. Srinivasan", "ksrinivasan@in-x1.in")}${card("R. K. Narayan", "rnarayan@in-x1.in")}${card("Priya Sharma", "psharma@in-x1.in")}${card("Lakshmi", "lakshmi@in-x1.in")}</body></html>`,
      ],
    ]);
    expect(formats.shares[0]?.pattern).toBe("{f}{last}");
    const names = Object.fromEntries(rows.map((r) => [r.email, r.lastName]));
    expect(names).toEqual({
      "ksrinivasan@in-x1.in": "Srinivasan",
      "rnarayan@in-x1.in": "Narayan",
      "psharma@in-x1.in": "Sharma",
      "lakshmi@in-x1.in": null,
    });
    // On a {first}.{last} domain the address spells out what the page abbreviates: K. Srinivasan at
    // karthik.srinivasan@ is Karthik Srinivasan, and votes for the domain's own format.
    const whole = await crawl("in-x2.in", [
      [
        "/team",
        `<html><body>${card("K. Srinivasan", "karthik.srinivasan@in-x2.in")}${card("Priya Sharma", "priya.sharma@in-x2.in")}${card("Arjun Mehta", "arjun.mehta@in-x2.in")}</body></html>`,
      ],
    ]);
    expect(whole.formats.shares[0]?.pattern).toBe("{first}.{last}");
    expect(whole.rows.find((r) => r.email.startsWith("karthik"))).toMatchObject({
      firstName: "Karthik",
      lastName: "Srinivasan",
    });
  });

  it("reads a domain whose only readable people are shown by initials, their addresses spelling the given names (wider-web seed 3318620457)", async () => {
    // orion-muhendislik: robots.txt forbids the team; the contact page shows "D. Banerjee" at
    // divya.banerjee@, a news item "L. Sharma" at lakshmi.sharma@. No reading fitted either
    // address, so no format was read and three finder queries had no answer.
    const { rows, formats } = await crawl("in-x3.com.tr", [
      ["/iletisim", `<html lang="tr"><body>${card("D. Banerjee", "divya.banerjee@in-x3.com.tr")}</body></html>`],
      [
        "/haberler/yeni-ofis",
        `<html lang="tr"><body>${card("L. Sharma", "lakshmi.sharma@in-x3.com.tr")}</body></html>`,
      ],
    ]);
    expect(formats.shares[0]?.pattern).toBe("{first}.{last}");
    expect(rows.map((r) => [r.firstName, r.lastName])).toEqual([
      ["Divya", "Banerjee"],
      ["Lakshmi", "Sharma"],
    ]);
    expect(proposeAddress(rows, { first: "Arjun", last: "Sharma" }, "in-x3.com.tr", formats)?.email).toBe(
      "arjun.sharma@in-x3.com.tr",
    );
  });

  it("keeps every name a team page shows without an address, of two words too (the SMTP search's colleagues)", async () => {
    const card = (n: string) => `<div class="member"><h3>${n}</h3><p class="role">Project Manager</p></div>`;
    await crawl("quiet-x7.de", [
      [
        "/team",
        `<html lang="en"><body><section class="team">${["Malte Hölzl", "Heike Köhler", "Sarah Anne Miller"].map(card).join("")}</section></body></html>`,
      ],
    ]);
    const shown = (await shownNamesOf(await indexFor(env, "quiet-x7.de"), "quiet-x7.de")).map((r) => r.fullName);
    expect(shown).toEqual(expect.arrayContaining(["Malte Hölzl", "Heike Köhler", "Sarah Anne Miller"]));
  });

  it("answers a query in another romanization than the domain's for a person shown without an address, spelled as the domain spells", async () => {
    const { findEmail } = await import("../../src/engine/finder/email-finder.js");
    const ctx = { env, now: () => Date.now() };
    const person = (n: string, e: string | null) =>
      `<div><h3>${n}</h3><p>Менеджер</p>${e ? `<p><a href="mailto:${e}">${e}</a></p>` : ""}</div>`;
    // Addresses in ICAO (passport) spelling; Ксения shown without an address; the query in BGN.
    await crawl("ru-x7.ru", [
      [
        "/team",
        `<html lang="ru"><body>${person("Алексей Петрович Кузнецов", "aleksei.kuznetsov@ru-x7.ru")}${person("Юлия Сергеевна Орлова", "iuliia.orlova@ru-x7.ru")}${person("Наталья Ивановна Жукова", "natalia.zhukova@ru-x7.ru")}${person("Яна Олеговна Белова", "iana.belova@ru-x7.ru")}${person("Ксения Алексеевна Яковлева", null)}</body></html>`,
      ],
    ]);
    const find = async (domain: string, first: string, last: string) =>
      (await findEmail(ctx, domain, { first, last }, { verify: false })).email;
    expect(await find("ru-x7.ru", "Kseniya", "Yakovleva")).toBe("kseniia.iakovleva@ru-x7.ru");
    expect(await find("ru-x7.ru", "Xenia", "Jakowlewa"), "German").toBe("kseniia.iakovleva@ru-x7.ru");
    expect(await find("ru-x7.ru", "Kira", "Yakovleva"), "someone else is built from the query").toBe(
      "kira.yakovleva@ru-x7.ru",
    );
    // Shown in Latin with a patronymic (BGN addresses); the query in ICAO.
    await crawl("ru-x6.ru", [
      [
        "/team",
        `<html lang="ru"><body>${person("Yuliya Sergeyevna Orlova", "yuliya.orlova@ru-x6.ru")}${person("Pyotr Ivanovich Smirnov", "pyotr.smirnov@ru-x6.ru")}${person("Kseniya Alekseyevna Yakovleva", null)}</body></html>`,
      ],
    ]);
    expect(await find("ru-x6.ru", "Kseniia", "Iakovleva")).toBe("kseniya.yakovleva@ru-x6.ru");
    expect(await find("ru-x6.ru", "Anna", "Iakovleva"), "someone else is built from the query").toBe(
      "anna.iakovleva@ru-x6.ru",
    );
    // A letter none of the domain's addresses spells (й) keeps the query's spelling.
    await crawl("ru-x5.ru", [
      [
        "/team",
        `<html lang="ru"><body>${person("Олег Петрович Орлов", "oleg.orlov@ru-x5.ru")}${person("Анна Ивановна Попова", "anna.popova@ru-x5.ru")}${person("Андрей Сергеевич Щукин", null)}</body></html>`,
      ],
    ]);
    expect(await find("ru-x5.ru", "Andrei", "Shchukin")).toBe("andrei.shchukin@ru-x5.ru");
    // Given names only ({first}): a family name the address does not spell teaches nothing (Йорданова
    // at radoslava@), a given name it spells does (Йордан at yordan@: й is y at a word's start).
    await crawl("bg-x5.bg", [
      [
        "/team",
        `<html lang="bg"><body>${person("Йордан Иванов Щерев", "yordan@bg-x5.bg")}${person("Радослава Стоянова Йорданова", "radoslava@bg-x5.bg")}${person("Йорданка Петрова Йорданова", null)}</body></html>`,
      ],
    ]);
    expect(await find("bg-x5.bg", "Iordanka", "Iordanowa")).toBe("yordanka@bg-x5.bg");
    // Russian and Ukrainian staff on one domain (wider-web seed 907512339, tarasov-petrov): Russian г
    // is g (Виноградова), Ukrainian г is h (Гнатюк Андрій at ahnatiuk@). The habits are counted per
    // language: Гнатюк Григорій is hhnatiuk@, not ggnatiuk@ by the Russian names' g.
    await crawl("ru-x4.ru", [
      [
        "/team",
        `<html lang="ru"><body>${person("Виноградова Марина Владимировна", "mvinogradova@ru-x4.ru")}${person("Гусев Игорь Петрович", "igusev@ru-x4.ru")}${person("Гнатюк Андрій Іванович", "ahnatiuk@ru-x4.ru")}${person("Гнатюк Григорій Миколайович", null)}</body></html>`,
      ],
    ]);
    expect(await find("ru-x4.ru", "Hryhorii", "Hnatiuk")).toBe("hhnatiuk@ru-x4.ru");
    expect(await find("ru-x4.ru", "Grigorii", "Gnatiuk"), "another romanization of the same person").toBe(
      "hhnatiuk@ru-x4.ru",
    );
  });

  it("reads a Cyrillic card above an address that romanizes the name otherwise than the plain fold", async () => {
    const ru = (n: string, e: string) => `<div><h3>${n}</h3><p>Менеджер</p><p><a href="mailto:${e}">${e}</a></p></div>`;
    const html = (cards: string) => `<html lang="ru"><body>${cards}</body></html>`;
    // ё as e, кс as x, я as a, х as h (Bulgarian), the Ukrainian и as y; GOST's iu in an initial.
    const page = html(
      ru("Пётр Смирнов", "petr.smirnov@ru-x8.ru") +
        ru("Алексей Кузнецов", "alexey.kuznetsov@ru-x8.ru") +
        ru("Юлия Иванова", "julia.ivanova@ru-x8.ru") +
        ru("Христо Стоичков", "hristo.stoichkov@ru-x8.ru") +
        ru("Микола Шевченко", "mykola.shevchenko@ru-x8.ru") +
        ru("Юлия Орлова", "iorlova@ru-x8.ru"),
    );
    expect(named(await read(page, "ru-x8.ru"))).toEqual({
      "petr.smirnov@ru-x8.ru": "Пётр / Смирнов",
      "alexey.kuznetsov@ru-x8.ru": "Алексей / Кузнецов",
      "julia.ivanova@ru-x8.ru": "Юлия / Иванова",
      "hristo.stoichkov@ru-x8.ru": "Христо / Стоичков",
      "mykola.shevchenko@ru-x8.ru": "Микола / Шевченко",
      "iorlova@ru-x8.ru": "Юлия / Орлова",
    });
    // Another person's address beside the card is still not given the card's name.
    expect(named(await read(html(ru("Пётр Смирнов", "ivan.petrov@ru-x8.ru")), "ru-x8.ru"))).toEqual({
      "ivan.petrov@ru-x8.ru": null,
    });
  });

  it("answers a query in any romanization of a name the site lists in Cyrillic with the listed address", async () => {
    const ru = (n: string, e: string) => `<div><h3>${n}</h3><p>Менеджер</p><p><a href="mailto:${e}">${e}</a></p></div>`;
    const { rows, formats } = await crawl("ru-x9.ru", [
      [
        "/team",
        `<html lang="ru"><body>${ru("Юлия Иванова", "yuliya.ivanova@ru-x9.ru")}${ru("Пётр Смирнов", "petr.smirnov@ru-x9.ru")}${ru("Олег Козлов", "oleg.kozlov@ru-x9.ru")}</body></html>`,
      ],
    ]);
    // GOST/ICAO, simplified, German/Polish, BGN and the Cyrillic itself: one person, one address.
    for (const first of ["Iuliia", "Yulia", "Julija", "Yuliya", "Юлия"])
      expect(proposeAddress(rows, { first, last: "Ivanova" }, "ru-x9.ru", formats)?.email, first).toBe(
        "yuliya.ivanova@ru-x9.ru",
      );
    // Someone else is still built from the format, not taken for a listed person.
    expect(proposeAddress(rows, { first: "Yuri", last: "Ivanov" }, "ru-x9.ru", formats)?.email).toBe(
      "yuri.ivanov@ru-x9.ru",
    );
  });

  it("gives a studio whose people publish given-name-only addresses beside their full names the {first} format", async () => {
    const { formats } = await crawl("studio-x9.com", [
      [
        "/team",
        `<html><body>${card("Mia Lorenz", "mia@studio-x9.com")}${card("Jonas Weber", "jonas@studio-x9.com")}</body></html>`,
      ],
    ]);
    expect(formats.shares[0]?.pattern).toBe("{first}");
  });
});

describe("the finder completes a query from the names the site shows", () => {
  it("takes a one-letter word after the given name for an initial, and a title glued to a name for a title", async () => {
    const { parseName } = await import("../../src/engine/people/names.js");
    const { readLine } = await import("../../src/engine/web/extract/people.js");
    expect(parseName("Hélène M. Dupré").tokens).toEqual(["Hélène", "M.", "Dupré"]);
    expect(parseName("M. Jean Dupont").tokens).toEqual(["Jean", "Dupont"]);
    expect(readLine("Inês M. das Neves Diretor-geral")).toMatchObject({
      name: "Inês M. das Neves",
      position: "Diretor-geral",
    });
    expect(readLine("Светлана Богданова, директор")).toMatchObject({
      name: "Светлана Богданова",
      position: "директор",
    });
    expect(readLine("Alpha Consultores S.A.").name).toBeNull();
    expect(readLine("Leclerc, François Louis, Segreteria")).toMatchObject({
      name: "Leclerc, François Louis",
      position: "Segreteria",
    });
    expect(readLine("Lindgren Øyvind K., Kontorleder")).toMatchObject({
      name: "Lindgren Øyvind K.",
      position: "Kontorleder",
    });
    expect(readLine("Anna Berg, Clara Wolf, Tom Lee").name).toBe("Anna Berg");
    expect(readLine("田中 太郎 営業部長")).toMatchObject({ native: "田中 太郎", position: "営業部長" });
    const { namesOnLine } = await import("../../src/engine/web/extract/people.js");
    expect(
      namesOnLine(
        "Directeur de la publication : Anaïs C. Tessier (actessier [at] x.fr), Daniel J. Sullivan, Lisa-Marie A. Strauß",
      ),
    ).toEqual(["Anaïs C. Tessier", "Daniel J. Sullivan", "Lisa-Marie A. Strauß"]);
  });

  it("reads a middle name only beside the given name: not a byline word before it or a title after it", async () => {
    const names = ["Par Jean-Baptiste Claude Dupré", "Dahl, Solveig Johan Kontorschef", "Jean-Baptiste Claude Dupré"];
    const card = (n: string, e: string) => `<div><h3>${n}</h3><p>${e}</p></div>`;
    const html = `<html><body>${names.map((n) => `<p>${n}</p>`).join("")}${card("Anna Maria Kowal", "amkowal@mid-x7.fr")}${card("Piotr K. Nowak", "pknowak@mid-x7.fr")}</body></html>`;
    await crawl("mid-x7.fr", [["/equipe", html]]);
    const { findEmail } = await import("../../src/engine/finder/email-finder.js");
    const ctx = { env, now: () => Date.now() };
    expect(
      (await findEmail(ctx, "mid-x7.fr", { first: "Jean-Baptiste", last: "Dupré" }, { verify: false })).email,
    ).toBe("jcdupre@mid-x7.fr");
    expect((await findEmail(ctx, "mid-x7.fr", { first: "Solveig", last: "Dahl" }, { verify: false })).email).toBe(
      "sjdahl@mid-x7.fr",
    );
  });

  it("reads a four-word full name as given, middle and two family names where the domain's people have two", async () => {
    const card = (n: string, e: string) => `<div><h3>${n}</h3><p>${e}</p></div>`;
    const html = `<html lang="es"><body>${card("Ana Belén García López", "abgarcia@mid-x5.es")}${card("Luis Miguel Pérez Sanz", "lmperez@mid-x5.es")}${card("Carmen Isabel Ruiz Moreno", "ciruiz@mid-x5.es")}</body></html>`;
    await crawl("mid-x5.es", [["/equipo", html]]);
    const { findEmail } = await import("../../src/engine/finder/email-finder.js");
    const { nameSplits, splitFullName } = await import("../../src/engine/people/names.js");
    const ctx = { env, now: () => Date.now() };
    const full = "Inés José Torres Vázquez";
    const readings = nameSplits(full).filter((r) => !r.reversed);
    // The usual split (family name = the last word) builds ijvazquez@; the domain writes the first family name.
    expect((await findEmail(ctx, "mid-x5.es", splitFullName(full)!, { verify: false })).email).toBe(
      "ijvazquez@mid-x5.es",
    );
    expect((await findEmail(ctx, "mid-x5.es", splitFullName(full)!, { verify: false, readings })).email).toBe(
      "ijtorres@mid-x5.es",
    );
    // A listed person is found under the reading the page gave them.
    expect(
      (
        await findEmail(ctx, "mid-x5.es", splitFullName("Luis Miguel Pérez Sanz")!, {
          verify: false,
          readings: nameSplits("Luis Miguel Pérez Sanz").filter((r) => !r.reversed),
        })
      ).email,
    ).toBe("lmperez@mid-x5.es");
  });

  it("reads 'Family Given Middle' when the domain's addresses say so", async () => {
    const card = (n: string, e: string) => `<div><h3>${n}</h3><p>${e}</p></div>`;
    const html = `<html lang="de"><body>${card("Dr. Dekker Bram Cornelis", "bcdekker@mid-x6.de")}${card("Neumann Günter E.", "geneumann@mid-x6.de")}${card("Fonseca Luís Maria", "lmfonseca@mid-x6.de")}</body></html>`;
    const { rows, formats } = await crawl("mid-x6.de", [["/team", html]]);
    expect(formats.shares[0]?.pattern).toBe("{f}{m}{last}");
    expect(rows.map((r) => [r.firstName, r.middleName, r.lastName])).toEqual([
      ["Bram", "Cornelis", "Dekker"],
      ["Günter", "E.", "Neumann"],
      ["Luís", "Maria", "Fonseca"],
    ]);
  });

  it("reads the middle initial a {f}{m}{last} site shows for a person whose address it does not publish", async () => {
    const card = (n: string, e: string | null) => `<div><h3>${n}</h3><p>Partner</p>${e ? `<p>${e}</p>` : ""}</div>`;
    const html = `<html><body>${card("Stanisław J. Pawłowski", null)}${card("MUÑOZ GIL Jesús L.", null)}${card("LÊ Ngọc Trang", null)}${card("Anna Maria Kowal", "amkowal@mid-x8.pl")}${card("Piotr K. Nowak", "pknowak@mid-x8.pl")}</body></html>`;
    const { rows, formats } = await crawl("mid-x8.pl", [["/zespol", html]]);
    expect(formats.shares[0]?.pattern).toBe("{f}{m}{last}");
    const { findEmail } = await import("../../src/engine/finder/email-finder.js");
    const ctx = { env, now: () => Date.now() };
    expect(
      (await findEmail(ctx, "mid-x8.pl", { first: "Stanisław", last: "Pawłowski" }, { verify: false })).email,
    ).toBe("sjpawlowski@mid-x8.pl");
    expect((await findEmail(ctx, "mid-x8.pl", { first: "Jesús", last: "Muñoz Gil" }, { verify: false })).email).toBe(
      "jlmunozgil@mid-x8.pl",
    );
    // Family name first, the middle name between it and the given name.
    expect((await findEmail(ctx, "mid-x8.pl", { first: "Trang", last: "Lê" }, { verify: false })).email).toBe(
      "tnle@mid-x8.pl",
    );
    // Nobody of that name is shown: no middle initial to guess.
    expect((await findEmail(ctx, "mid-x8.pl", { first: "Ewa", last: "Lis" }, { verify: false })).email).toBeNull();
    expect(rows.filter((r) => r.email.startsWith("sj"))).toEqual([]);
  });
});

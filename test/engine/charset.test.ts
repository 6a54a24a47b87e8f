import { describe, expect, it } from "vitest";
import { decideEncoding, decodeBody, prescanEncoding } from "../../src/engine/web/charset.js";
import { extractPage } from "../../src/engine/web/extract/page.js";
import { encodeAs } from "../fixtures/web/legacy-encode.js";

const page = (head: string, body: string) =>
  `<!doctype html><html><head>${head}<title>Team</title></head><body>${body}</body></html>`;

describe("legacy charsets", () => {
  it("are all known to workerd's TextDecoder, so pages in them decode without a library", () => {
    const samples: [string, string][] = [
      ["windows-1252", "Zoë Müller – “Geschäftsführerin” €"],
      ["iso-8859-1", "François Lefèvre"],
      ["windows-1251", "Иван Петров"],
      ["shift_jis", "山田 太郎（やまだ たろう）"],
      ["euc-jp", "佐藤 花子"],
      ["gb2312", "王 小明"],
      ["gbk", "张 伟"],
      ["euc-kr", "김 민준"],
      ["big5", "陳 大文"],
    ];
    for (const [label, text] of samples) expect(new TextDecoder(label).decode(encodeAs(text, label)), label).toBe(text);
    expect(new TextDecoder("iso-8859-1").encoding, "ISO-8859-1 is read as windows-1252, as browsers do").toBe(
      "windows-1252",
    );
    expect(new TextDecoder("gb2312").encoding).toBe("gbk");
  });

  it("take the HTTP Content-Type charset over a <meta charset> that says otherwise", () => {
    const bytes = encodeAs(page('<meta charset="utf-8">', "<p>Иван Петров</p>"), "windows-1251");
    expect(decideEncoding(bytes, "text/html; charset=windows-1251")).toEqual({
      encoding: "windows-1251",
      source: "header",
    });
    expect(decodeBody(bytes, "text/html; charset=windows-1251")).toContain("Иван Петров");
  });

  it("do not believe a header saying UTF-8 over windows-1252 bytes: the page's meta decides, else windows-1252", () => {
    // A server's default Content-Type laid over a CMS's windows-1252 pages: read as UTF-8, every
    // accented letter of a name became U+FFFD.
    const withMeta = encodeAs(
      page('<meta charset="windows-1252">', "<p>Zoë Müller, Geschäftsführerin</p>"),
      "windows-1252",
    );
    expect(decideEncoding(withMeta, "text/html; charset=utf-8")).toEqual({ encoding: "windows-1252", source: "meta" });
    const bare = encodeAs(page('<meta charset="utf-8">', "<p>François Lefèvre</p>"), "windows-1252");
    expect(decideEncoding(bare, "text/html; charset=UTF-8")).toEqual({ encoding: "windows-1252", source: "default" });
    expect(decodeBody(bare, "text/html; charset=UTF-8")).toContain("François Lefèvre");
    // Bytes that are UTF-8 keep the header's word.
    const utf8 = new TextEncoder().encode(page("", "<p>François Lefèvre</p>"));
    expect(decideEncoding(utf8, "text/html; charset=utf-8")).toEqual({ encoding: "utf-8", source: "header" });
  });

  it("use a charset named only in <meta charset> or only in <meta http-equiv>", () => {
    const sjis = encodeAs(page("<meta charset=Shift_JIS>", "<p>山田 太郎</p>"), "shift_jis");
    expect(decideEncoding(sjis, "text/html")).toEqual({ encoding: "shift_jis", source: "meta" });
    expect(decodeBody(sjis, "text/html")).toContain("山田 太郎");
    const kr = encodeAs(
      page('<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=euc-kr">', "<p>김민준</p>"),
      "euc-kr",
    );
    expect(decodeBody(kr, "text/html")).toContain("김민준");
    const gb = encodeAs(
      page("<meta http-equiv='content-type' content='text/html;charset=gb2312'>", "<p>王小明</p>"),
      "gbk",
    );
    expect(decodeBody(gb, "text/html")).toContain("王小明");
  });

  it("fall through an unknown header label to the page's meta", () => {
    const bytes = encodeAs(page('<meta charset="windows-1252">', "<p>Zoë Müller</p>"), "windows-1252");
    expect(decideEncoding(bytes, "text/html; charset=none")).toEqual({ encoding: "windows-1252", source: "meta" });
  });

  it("let a byte order mark win over the header", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(page("", "<p>Zoë</p>"))]);
    expect(decideEncoding(bytes, "text/html; charset=windows-1252").source).toBe("bom");
    expect(decodeBody(bytes, "text/html; charset=windows-1252")).toMatch(/^<!doctype html>.*Zoë/);
  });

  it("see a meta only in the first 1,024 bytes and outside comments, as browsers do", () => {
    const late = encodeAs(
      page(`<!-- ${"x".repeat(1100)} --><meta charset="windows-1251">`, "<p>Иван</p>"),
      "windows-1251",
    );
    expect(prescanEncoding(late)).toBeNull();
    const commented = encodeAs(
      page('<!-- <meta charset="shift_jis"> --><meta charset="windows-1251">', ""),
      "windows-1251",
    );
    expect(prescanEncoding(commented)).toBe("windows-1251");
  });

  it("read undeclared bytes as UTF-8 when they are valid UTF-8, else as windows-1252", () => {
    expect(decideEncoding(new TextEncoder().encode(page("", "<p>Zoë</p>")), "text/html")).toEqual({
      encoding: "utf-8",
      source: "utf-8 by content",
    });
    const cp1252 = encodeAs(page("", "<p>Zoë Müller</p>"), "windows-1252");
    expect(decideEncoding(cp1252, "text/html")).toEqual({ encoding: "windows-1252", source: "default" });
    expect(decodeBody(cp1252, "text/html")).toContain("Zoë Müller");
    // A body cut at the byte limit inside a character is still UTF-8.
    const cut = new TextEncoder().encode("Zoë Müller ü").slice(0, -1);
    expect(decideEncoding(cut, "text/html", true).encoding).toBe("utf-8");
  });

  it("once decoded, are not decoded again by the extraction because the page still names its charset", async () => {
    const html = page('<meta charset="windows-1251">', "<p>Иван Петров ivan.petrov@acme.ru</p>");
    const x = await extractPage(html, "https://acme.ru/team", "acme.ru");
    expect(x.addresses.map((a) => [a.email, a.name])).toEqual([
      ["ivan.petrov@acme.ru", { first: "Иван", last: "Петров" }],
    ]);
  });
});

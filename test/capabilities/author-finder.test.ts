import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { claims } from "../../src/db/schema-index.js";
import { cleanAuthor, extractAuthor } from "../../src/engine/web/extract/author.js";
import { call, createAccount, json } from "../support/accounts.js";

async function get(path: string) {
  const { headers } = await createAccount();
  return call(path, { headers });
}

describe("author extraction rules", () => {
  it("cleans bylines: strips 'By', skips dates and URLs, caps the length", () => {
    expect(cleanAuthor("By Jane Doe | May 1, 2024")).toBe("Jane Doe");
    expect(cleanAuthor("March 3, 2024 · Sam Rivera")).toBe("Sam Rivera");
    expect(cleanAuthor("https://example.com/author/jane")).toBeNull();
    expect(cleanAuthor("Updated 12:30")).toBeNull();
    expect(cleanAuthor("A".repeat(300))!.length).toBe(128);
  });

  it("follows the rule order: JSON-LD (in @graph) before meta, meta before bylines", async () => {
    const html = `<html><head><meta name="author" content="Meta Person">
      <script type="application/ld+json">{"@graph":[{"@type":"BlogPosting","author":{"@type":"Person","name":"Graph Person"}}]}</script></head>
      <body><p class="byline">By Byline Person</p></body></html>`;
    expect((await extractAuthor(html)).name).toBe("Graph Person");
    expect((await extractAuthor(html.replace(/<script[\s\S]*<\/script>/, ""))).name).toBe("Meta Person");
    expect((await extractAuthor('<p class="byline">By Byline Person</p>')).name).toBe("Byline Person");
    expect(
      (
        await extractAuthor(
          '<meta property="article:author" content="https://fb.com/x"><a rel="author" href="/a">Rel Person</a>',
        )
      ).name,
    ).toBe("Rel Person");
  });
});

describe("GET /v1/author-finder", () => {
  it("reads the JSON-LD author, then proposes the address from the site's format (URL without a scheme)", async () => {
    const res = await get("/v1/author-finder?url=daily-news.test/2024/big-story");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({
      email: "maria.garcia@daily-news.test",
      first_name: "María",
      last_name: "García",
      website_url: "daily-news.test",
      pattern: "{first}.{last}",
      phone_number: false,
      twitter: "https://twitter.com/mgarcia",
    });
    expect(Number.isInteger(data.score)).toBe(true);
    expect(data.info).toMatchObject({
      url: "https://daily-news.test/2024/big-story",
      title: "City council approves new park",
      og_image: "https://daily-news.test/img/park.jpg",
      full_name: "María García",
      article_domain: "daily-news.test",
      email: "maria.garcia@daily-news.test",
      gravatar: false,
      author_score: 100,
    });
  });

  it("finds an author published verbatim on the site (itemprop author) with the top score", async () => {
    const { data } = await json(await get("/v1/author-finder?url=https://daily-news.test/opinion/seen"));
    expect(data.email).toBe("lena.fischer@daily-news.test");
    expect(data.score).toBe(95);
    expect(data.info.author_score).toBe(85);
  });

  it("uses meta author (stripping 'By') and /author/ links", async () => {
    expect(
      (await json(await get("/v1/author-finder?url=https://daily-news.test/opinion/meta-author"))).data.info.full_name,
    ).toBe("Tom Hardy");
    expect((await json(await get("/v1/author-finder?url=https://daily-news.test/opinion/byline"))).data.email).toBe(
      "sam.rivera@daily-news.test",
    );
  });

  it("answers 200 with email null when the page names no author", async () => {
    const res = await get("/v1/author-finder?url=https://daily-news.test/opinion/no-author");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.email).toBeNull();
    expect(data.info.full_name).toBeNull();
  });

  it("answers 451 when the author's address is claimed", async () => {
    await db(env.DB).insert(claims).values({ kind: "email", value: "tom.hardy@daily-news.test", reason: null });
    const res = await get("/v1/author-finder?url=https://daily-news.test/opinion/meta-author");
    expect(res.status).toBe(451);
    expect((await json(res)).errors.type).toBe("claimed_email");
  });

  it("answers bad URLs with 4xx and unreachable articles with 502", async () => {
    expect((await get("/v1/author-finder?url=ftp://daily-news.test/x")).status).toBe(422);
    expect((await get("/v1/author-finder?url=not%20a%20url")).status).toBe(400);
    expect((await get("/v1/author-finder?url=https://daily-news.test/missing-page")).status).toBe(422);
    expect((await get("/v1/author-finder?url=https://down-site.test/post")).status).toBe(502);
  });
});

import { describe, expect, it } from "vitest";
import type { PageFetch } from "../../src/engine/web/fetch-page.js";
import { ROBOTS_AGENT, readRobots } from "../../src/engine/web/robots.js";

const robotsUrl = "https://acme.test/robots.txt";
const file = (body: string): PageFetch => ({
  kind: "ok",
  url: robotsUrl,
  status: 200,
  contentType: "text/plain",
  body,
  truncated: false,
});

describe("readRobots (the one robots.txt reader of the crawler and the technology lookup)", () => {
  it("follows the group for this service's agent over the wildcard group, and lists the sitemaps", () => {
    const robots = readRobots(
      robotsUrl,
      file(
        `User-agent: *\nDisallow: /\n\nUser-agent: ${ROBOTS_AGENT}\nDisallow: /private/\n\nSitemap: https://acme.test/sitemap.xml\n`,
      ),
    );
    expect(robots.isAllowed("https://acme.test/team")).toBe(true);
    expect(robots.isAllowed("https://acme.test/private/people")).toBe(false);
    expect(robots.sitemaps).toEqual(["https://acme.test/sitemap.xml"]);
  });

  it("obeys the wildcard group when no group names this service", () => {
    const robots = readRobots(robotsUrl, file("User-agent: *\nDisallow: /\n"));
    expect(robots.isAllowed("https://acme.test/")).toBe(false);
  });

  it("sets no rules when robots.txt is missing (a 4xx answer)", () => {
    const missing: PageFetch = { kind: "unusable", url: robotsUrl, status: 404, reason: "HTTP 404" };
    const robots = readRobots(robotsUrl, missing);
    expect(robots.isAllowed("https://acme.test/anything")).toBe(true);
    expect(robots.sitemaps).toEqual([]);
  });
});

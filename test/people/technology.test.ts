import { beforeAll, describe, expect, it } from "vitest";
import { matchFingerprints, spfIncludes } from "../../src/engine/company/technology.js";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";
import { indexD1Of } from "../support/index-db.js";

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount({ plan: "scale" }); // no rate limits: these tests call in bursts
});
const get = (path: string) => call(path, { headers: account.headers });

describe("GET /v1/technology", () => {
  it("lists technologies from the site's HTML and scripts and from MX, SPF and verification records", async () => {
    const res = await get("/v1/technology?domain=globex.test");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.domain).toBe("globex.test");
    const slugs = body.data.map((t: any) => t.slug);
    // Site: generator meta + /wp-content/, gtag.js, js.stripe.com, js.hs-scripts.com.
    // DNS: Google MX, SPF include:_spf.google.com / sendgrid.net / mail.zendesk.com, atlassian-domain-verification.
    expect(slugs.sort()).toEqual(
      [
        "atlassian",
        "google-analytics",
        "google-workspace",
        "hubspot",
        "sendgrid",
        "stripe",
        "wordpress",
        "zendesk",
      ].sort(),
    );
    const workspace = body.data.find((t: any) => t.slug === "google-workspace");
    expect(workspace).toEqual({
      slug: "google-workspace",
      name: "Google Workspace",
      icon: null,
      website: "https://workspace.google.com",
      categories: [
        { id: 5, slug: "email", name: "Email hosting" },
        { id: 13, slug: "collaboration", name: "Collaboration" },
      ],
    });
    const stored = await (await indexD1Of("globex.test"))
      .prepare("SELECT technologies FROM companies WHERE domain = 'globex.test'")
      .first<{
        technologies: string;
      }>();
    expect(JSON.parse(stored!.technologies)).toContain("wordpress");
  });

  it("recognises Microsoft 365 from MX, SPF and the MS= token even when the site says little", async () => {
    const { data } = await json(await get("/v1/technology?domain=initech.test"));
    expect(data.map((t: any) => t.slug).sort()).toEqual(["facebook-pixel", "microsoft-365"]);
  });

  it("does not read a home page robots.txt disallows: only DNS evidence counts then", async () => {
    const { data } = await json(await get("/v1/technology?domain=private-people.test"));
    // The page carries WordPress, Stripe and HubSpot fingerprints; none may show up.
    expect(data.map((t: any) => t.slug)).toEqual(["google-workspace"]);
  });

  it("answers 502 when the site cannot be reached, 503 when DNS fails, empty for a domain that does not exist", async () => {
    // DNS answers but the site does not: 502, never a DNS-only answer that looks complete.
    const unreachable = await get("/v1/technology?domain=offline-people.test");
    expect(unreachable.status).toBe(502);
    expect((await json(unreachable)).errors.type).toBe("site_unreachable");
    expect((await get("/v1/technology?domain=brokendns-people.test")).status).toBe(503);
    const gone = await get("/v1/technology?domain=nowhere-people.test");
    expect(gone.status).toBe(200);
    expect(await json(gone)).toEqual({ domain: "nowhere-people.test", data: [] });
    expect((await get("/v1/technology?domain=%20")).status).toBe(400);
  });
});

describe("fingerprints", () => {
  it("reads headers, meta generators and script sources", () => {
    const found = matchFingerprints({
      headers: new Headers({ server: "cloudflare", "x-powered-by": "Next.js" }),
      html: '<meta content="Drupal 10 (https://www.drupal.org)" name="generator"><script src="/js/jquery-3.7.1.min.js"></script>',
      mxProvider: "Microsoft 365",
      txt: ["MS=ms12345678", "v=spf1 include:spf.protection.outlook.com include:servers.mcsv.net -all"],
    }).map((f) => f.slug);
    expect(found.sort()).toEqual(["cloudflare", "drupal", "jquery", "mailchimp", "microsoft-365", "next-js"].sort());
  });

  it("does not match on absent evidence or look-alike text", () => {
    expect(
      matchFingerprints({
        headers: new Headers(),
        html: "<p>We love WordPress and Stripe!</p>",
        mxProvider: null,
        txt: ["v=spf1 -all"],
      }),
    ).toEqual([]);
    expect(spfIncludes(["v=spf1 include:_spf.google.com ~all", "google-site-verification=x include:nothing"])).toEqual([
      "_spf.google.com",
    ]);
  });
});

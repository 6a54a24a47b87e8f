import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { socialFields } from "../../src/capabilities/shapes/social-fields.js";
import { people, phones } from "../../src/db/schema-index.js";
import { limiterFor } from "../../src/limits/admission.js";
import { importRows } from "../people/support.js";
import { call, createAccount, json } from "../support/accounts.js";
import { indexOf } from "../support/index-db.js";
import { settleOn } from "../support/limiter.js";
import { settle } from "../support/settle.js";

const SOCIAL = ["microblog", "professional_network", "twitter", "linkedin"] as const;

/** Both names present, and each older name carries the neutral name's value. */
function expectBothNames(person: Record<string, unknown>, label: string) {
  for (const k of SOCIAL) expect(person, `${label}: ${k}`).toHaveProperty(k);
  expect(person.twitter, label).toBe(person.microblog);
  expect(person.linkedin, label).toBe(person.professional_network);
}

const JANE = "jane.cooper@acme-widgets.test";
const JANE_PROFILE = "https://www.linkedin.com/in/jane-cooper-acme";
const JANE_MICROBLOG = "https://twitter.com/janecooper";

async function giveJaneProfiles() {
  await (await indexOf("acme-widgets.test"))
    .insert(people)
    .values({
      domain: "acme-widgets.test",
      email: JANE,
      firstName: "Jane",
      lastName: "Cooper",
      professionalNetworkUrl: JANE_PROFILE,
      microblog: JANE_MICROBLOG,
    })
    .onConflictDoUpdate({
      target: people.email,
      set: { professionalNetworkUrl: JANE_PROFILE, microblog: JANE_MICROBLOG },
    });
}

describe("social fields: neutral and older names everywhere a person has them (one helper)", () => {
  it("the helper sends the same value under both names", () => {
    expect(socialFields({ microblog: "https://twitter.com/x", professionalNetwork: null })).toEqual({
      microblog: "https://twitter.com/x",
      professional_network: null,
      twitter: "https://twitter.com/x",
      linkedin: null,
    });
  });

  it("domain-search emails[] carry the people index's profiles under both names", async () => {
    const a = await createAccount();
    expect((await call("/v1/domain-search?domain=acme-widgets.test&limit=50", { headers: a.headers })).status).toBe(
      200,
    );
    await giveJaneProfiles();
    const body = await json(
      await call("/v1/domain-search?domain=acme-widgets.test&limit=50&type=personal", { headers: a.headers }),
    );
    for (const e of body.data.emails) expectBothNames(e, e.email);
    const jane = body.data.emails.find((e: { email: string }) => e.email === JANE);
    expect(jane).toMatchObject({
      professional_network: JANE_PROFILE,
      linkedin: JANE_PROFILE,
      microblog: JANE_MICROBLOG,
      twitter: JANE_MICROBLOG,
    });
  });

  it("email-finder and author-finder send both names", async () => {
    const a = await createAccount();
    const finder = await json(
      await call("/v1/email-finder?domain=acme-widgets.test&first_name=Jane&last_name=Cooper", { headers: a.headers }),
    );
    expectBothNames(finder.data, "email-finder");
    const author = await json(
      await call("/v1/author-finder?url=daily-news.test/2024/big-story", { headers: a.headers }),
    );
    expectBothNames(author.data, "author-finder");
    expectBothNames(author.data.info, "author-finder info");
  });

  it("enrich, people/find, combined/find and professional-network send both names with the stored values", async () => {
    await importRows([
      { kind: "company", domain: "socialco.test", name: "SocialCo", industry: "Computer Software" },
      {
        kind: "person",
        email: "ann.lee@socialco.test",
        first_name: "Ann",
        last_name: "Lee",
        linkedin: "https://www.linkedin.com/in/ann-lee-socialco",
        twitter: "https://twitter.com/annlee",
      },
    ]);
    const a = await createAccount();
    const bodies = {
      enrich: (await json(await call("/v1/enrich?email=ann.lee@socialco.test", { headers: a.headers }))).data,
      people: (await json(await call("/v1/people/find?email=ann.lee@socialco.test", { headers: a.headers }))).data,
      combined: (await json(await call("/v1/combined/find?email=ann.lee@socialco.test", { headers: a.headers }))).data
        .person,
      network: (
        await json(
          await call("/v1/professional-network?url=https://www.linkedin.com/in/ann-lee-socialco", {
            headers: a.headers,
          }),
        )
      ).data,
    };
    for (const [label, data] of Object.entries(bodies)) {
      expectBothNames(data, label);
      expect(data.linkedin, label).toBe("https://www.linkedin.com/in/ann-lee-socialco");
      expect(data.microblog, label).toBe("https://twitter.com/annlee");
    }
  });

  it("the OpenAPI schemas declare both names", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    for (const k of SOCIAL) expect(doc.components.schemas.FinderData.properties, k).toHaveProperty(k);
    const email = doc.paths["/domain-search"].get.responses["200"].content["application/json"].schema;
    const resolved = email.$ref ? doc.components.schemas[email.$ref.split("/").pop()] : email;
    for (const k of SOCIAL) expect(resolved.properties.data.properties.emails.items.properties, k).toHaveProperty(k);
  });
});

describe("docs/wire-contract.md §5.4: enrich_mobile on domain-search and email-finder", () => {
  async function janeHasAPhone() {
    const now = Date.now();
    await (await indexOf("acme-widgets.test"))
      .insert(phones)
      .values({
        domain: "acme-widgets.test",
        email: JANE,
        e164: "+14155552671",
        source: "import",
        firstSeenAt: now,
        lastSeenAt: now,
      })
      .onConflictDoNothing();
  }

  it("domain-search?enrich_mobile=true adds phone_data and sets phone_number: true where a number is found, one phone credit per number", async () => {
    const a = await createAccount({ plan: "pro" });
    await janeHasAPhone();
    const plain = await json(await call("/v1/domain-search?domain=acme-widgets.test&limit=50", { headers: a.headers }));
    expect(
      plain.data.emails.every((e: Record<string, unknown>) => e.phone_number === false && !("phone_data" in e)),
    ).toBe(true);

    const res = await call("/v1/domain-search?domain=acme-widgets.test&limit=50&enrich_mobile=true", {
      headers: a.headers,
    });
    expect(res.status).toBe(200);
    const emails = (await json(res)).data.emails as Record<string, any>[];
    const jane = emails.find((e) => e.email === JANE)!;
    expect(jane.phone_number).toBe(true);
    expect(jane.phone_data).toMatchObject({ e164_format: "+14155552671", country_code: "US", email: JANE });
    const others = emails.filter((e) => e.email !== JANE);
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((e) => e.phone_number === false && e.phone_data === null)).toBe(true);
    await settle(async () => (await limiterFor(env, a.accountId).balances("pro")).phone.used === 1);
  });

  it("domain-search?enrich_mobile=true needs a phone credit (402 with an empty phone balance)", async () => {
    const a = await createAccount({ plan: "free" });
    const limiter = limiterFor(env, a.accountId);
    // Spend the whole phone allowance (as phone lookups would), then ask for mobiles.
    const { phone } = await limiter.balances("free");
    const spent = await limiter.admit({ plan: "free", group: null, cost: { phone: phone.available } });
    expect(spent.admitted).toBe(true);
    if (spent.admitted) await settleOn(limiter, spent.reservationIds, true, {}, "free");
    expect((await limiter.balances("free")).phone.available).toBe(0);
    const res = await call("/v1/domain-search?domain=acme-widgets.test&enrich_mobile=true", { headers: a.headers });
    expect(res.status).toBe(402);
    expect((await json(res)).errors.type).toBe("quota_exceeded");
  });

  it("email-finder?enrich_mobile=true sets phone_number: true beside phone_data", async () => {
    const a = await createAccount();
    await janeHasAPhone();
    const data = (
      await json(
        await call("/v1/email-finder?domain=acme-widgets.test&first_name=Jane&last_name=Cooper&enrich_mobile=true", {
          headers: a.headers,
        }),
      )
    ).data;
    expect(data.email).toBe(JANE);
    expect(data.phone_number).toBe(true);
    expect(data.phone_data.e164_format).toBe("+14155552671");
  });
});

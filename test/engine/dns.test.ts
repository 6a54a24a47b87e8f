import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  DnsUnavailableError,
  DohResolver,
  detectMailProvider,
  hasAddress,
  parseMx,
  parseTxt,
  resolveA,
  resolveMx,
  resolveTxt,
} from "../../src/engine/dns/resolver.js";
import { apiErrorOf } from "../../src/http/errors.js";

type Answer = {
  Status: number;
  Answer?: { name: string; type: number; TTL: number; data: string }[];
  Authority?: unknown[];
};

/** A resolver backed by a scripted DoH server and a hand-moved clock. */
function scripted(reply: (name: string, type: string) => Answer | Response | Promise<never>) {
  let now = 1_000_000;
  const calls: { name: string; type: string; accept: string | null }[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const name = url.searchParams.get("name")!;
    const type = url.searchParams.get("type")!;
    calls.push({ name, type, accept: new Headers(init?.headers).get("accept") });
    const r = reply(name, type);
    if (r instanceof Promise) {
      // Never answers on its own; honours the abort signal like a real fetch.
      return new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    }
    return r instanceof Response ? r : Response.json(r);
  }) as typeof fetch;
  const resolver = new DohResolver({
    url: "https://doh.example/dns-query",
    fetch: fetcher,
    now: () => now,
    timeoutMs: 50,
  });
  return { resolver, calls, advance: (ms: number) => (now += ms) };
}

const mx = (ttl: number, ...data: string[]): Answer => ({
  Status: 0,
  Answer: data.map((d) => ({ name: "x.test.", type: 15, TTL: ttl, data: d })),
});

describe("DohResolver cache", () => {
  it("serves a cached answer until its TTL runs out, then asks again", async () => {
    const { resolver, calls, advance } = scripted(() => mx(120, "10 mx.x.test."));
    await resolver.lookup("x.test", "MX");
    await resolver.lookup("X.test.", "MX"); // same name, other spelling
    expect(calls).toHaveLength(1);
    expect(calls[0]!.accept).toBe("application/dns-json");
    advance(119_000);
    await resolver.lookup("x.test", "MX");
    expect(calls).toHaveLength(1);
    advance(2_000);
    await resolver.lookup("x.test", "MX");
    expect(calls).toHaveLength(2);
  });

  it("uses the shortest TTL of the answer and never caches TTL 0", async () => {
    const { resolver, calls, advance } = scripted((_, type) =>
      type === "MX"
        ? {
            Status: 0,
            Answer: [
              { name: "x.test.", type: 15, TTL: 600, data: "10 a.x.test." },
              { name: "x.test.", type: 15, TTL: 30, data: "20 b.x.test." },
            ],
          }
        : { Status: 0, Answer: [{ name: "x.test.", type: 1, TTL: 0, data: "192.0.2.1" }] },
    );
    await resolver.lookup("x.test", "MX");
    advance(31_000);
    await resolver.lookup("x.test", "MX");
    expect(calls.filter((c) => c.type === "MX")).toHaveLength(2);
    await resolver.lookup("x.test", "A");
    await resolver.lookup("x.test", "A");
    expect(calls.filter((c) => c.type === "A")).toHaveLength(2);
  });

  it("caches NXDOMAIN for the SOA negative TTL", async () => {
    const { resolver, calls, advance } = scripted(() => ({
      Status: 3,
      Authority: [{ name: "test.", type: 6, TTL: 900, data: "ns.test. admin.test. 1 7200 3600 1209600 300" }],
    }));
    expect(await resolver.lookup("gone.test", "MX")).toEqual({ nxdomain: true, records: [], ttl: 300 });
    advance(299_000);
    await resolver.lookup("gone.test", "MX");
    expect(calls).toHaveLength(1);
    advance(2_000);
    await resolver.lookup("gone.test", "MX");
    expect(calls).toHaveLength(2);
  });

  it("shares one round trip between concurrent lookups of the same name", async () => {
    const { resolver, calls } = scripted(() => mx(60, "10 mx.x.test."));
    await Promise.all([
      resolver.lookup("x.test", "MX"),
      resolver.lookup("x.test", "MX"),
      resolver.lookup("x.test", "MX"),
    ]);
    expect(calls).toHaveLength(1);
  });

  it("keeps only records of the asked type (drops the CNAME chain)", async () => {
    const { resolver } = scripted(() => ({
      Status: 0,
      Answer: [
        { name: "www.x.test.", type: 5, TTL: 60, data: "x.test." },
        { name: "x.test.", type: 1, TTL: 60, data: "192.0.2.9" },
      ],
    }));
    expect((await resolver.lookup("www.x.test", "A")).records).toEqual(["192.0.2.9"]);
  });
});

describe("DohResolver failures are not answers", () => {
  it.each([
    ["SERVFAIL", () => ({ Status: 2 }) as Answer, /SERVFAIL/],
    ["REFUSED", () => ({ Status: 5 }) as Answer, /REFUSED/],
    ["HTTP 500", () => new Response("oops", { status: 500 }), /HTTP 500/],
    ["not JSON", () => new Response("<html>", { status: 200 }), /unreadable/],
    ["a timeout", () => new Promise<never>(() => {}), /timed out/],
  ])("%s throws DnsUnavailableError (503) and is not cached", async (_, reply, message) => {
    const { resolver, calls } = scripted(reply as never);
    const err = await resolver.lookup("x.test", "MX").catch((e) => e);
    expect(err).toBeInstanceOf(DnsUnavailableError);
    expect(apiErrorOf(err)!.status).toBe(503);
    expect(apiErrorOf(err)!.type).toBe("dns_unavailable");
    expect(err.message).toMatch(message);
    await resolver.lookup("x.test", "MX").catch(() => {});
    expect(calls).toHaveLength(2);
    expect(resolver.size).toBe(0);
  });

  it("an unreachable resolver is a failure too", async () => {
    const resolver = new DohResolver({
      url: "https://doh.example/",
      fetch: (async () => {
        throw new TypeError("network down");
      }) as typeof fetch,
    });
    await expect(resolver.lookup("x.test", "A")).rejects.toThrow(/could not be reached/);
  });
});

describe("record helpers against the fixture zones", () => {
  it("resolveMx sorts by preference and names the provider", async () => {
    const r = await resolveMx(env, "acme-verify.test");
    expect(r).toEqual({
      nxdomain: false,
      nullMx: false,
      records: [
        { preference: 10, exchange: "mx1.acme-verify.test" },
        { preference: 20, exchange: "mx2.acme-verify.test" },
      ],
    });
  });

  it("detects a null MX and NXDOMAIN", async () => {
    expect(await resolveMx(env, "nullmx-verify.test")).toEqual({ nxdomain: false, nullMx: true, records: [] });
    expect(await resolveMx(env, "gone-verify.test")).toEqual({ nxdomain: true, nullMx: false, records: [] });
  });

  it("SERVFAIL and an unreachable resolver throw", async () => {
    await expect(resolveMx(env, "servfail-verify.test")).rejects.toBeInstanceOf(DnsUnavailableError);
    await expect(resolveMx(env, "timeout-verify.test")).rejects.toBeInstanceOf(DnsUnavailableError);
  });

  it("hasAddress finds A-only and AAAA-only hosts and says no for a mail-less name", async () => {
    expect(await hasAddress(env, "implicit-verify.test")).toBe(true);
    expect(await hasAddress(env, "implicit6-verify.test")).toBe(true);
    expect(await hasAddress(env, "nomail-verify.test")).toBe(false);
    await expect(hasAddress(env, "servfail-verify.test")).rejects.toBeInstanceOf(DnsUnavailableError);
    expect((await resolveA(env, "implicit-verify.test")).records).toEqual(["192.0.2.22"]);
  });

  it("resolveTxt unquotes character-strings", async () => {
    expect((await resolveTxt(env, "gws-verify.test")).records).toEqual(["v=spf1 include:_spf.google.com ~all"]);
    expect(parseTxt('"v=spf1 " "include:spf.protection.outlook.com -all"')).toBe(
      "v=spf1 include:spf.protection.outlook.com -all",
    );
    expect(parseTxt('"say \\"hi\\"\\059 ok"')).toBe('say "hi"; ok');
  });

  it("parseMx reads the null MX target as an empty exchange", () => {
    expect(parseMx("0 .")).toEqual({ preference: 0, exchange: "" });
    expect(parseMx("10 MX.Example.com.")).toEqual({ preference: 10, exchange: "mx.example.com" });
    expect(parseMx("garbage")).toBeNull();
  });
});

describe("detectMailProvider", () => {
  it.each([
    [["aspmx.l.google.com", "alt1.aspmx.l.google.com"], "Google Workspace"],
    [["gmail-smtp-in.l.google.com"], "Gmail"],
    [["contoso-com.mail.protection.outlook.com."], "Microsoft 365"],
    [["mx0a-001234.pphosted.com"], "Proofpoint"],
    [["eu-smtp-inbound-1.mimecast.com"], "Mimecast"],
    [["mx.zoho.eu"], "Zoho Mail"],
    [["in1-smtp.messagingengine.com"], "Fastmail"],
    [["mx1.acme-verify.test"], null],
    // Suffix matching must respect label boundaries.
    [["mx.notgoogle.com"], null],
  ])("%j -> %s", (hosts, provider) => {
    expect(detectMailProvider(hosts)).toBe(provider);
  });
});

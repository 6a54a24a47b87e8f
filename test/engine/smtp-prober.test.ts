import { describe, expect, it } from "vitest";
import {
  mapReacherOutput,
  NoSmtpProber,
  proberFor,
  ReacherProber,
  SmtpProberThrottledError,
  SmtpProberUnavailableError,
} from "../../src/engine/verify/smtp-prober.js";
import { apiErrorOf } from "../../src/http/errors.js";
import { REACHER_SECRET } from "../fixtures/handlers/reacher.js";

describe("proberFor", () => {
  it("selects Reacher only when REACHER_URL is set", () => {
    expect(proberFor({})).toBeInstanceOf(NoSmtpProber);
    expect(proberFor({ REACHER_URL: "https://reacher.test" })).toBeInstanceOf(ReacherProber);
  });

  it("NoSmtpProber says it did not run", async () => {
    expect(await new NoSmtpProber().probe()).toMatchObject({
      ran: false,
      prober: null,
      deliverable: null,
      catchAll: null,
    });
  });
});

describe("ReacherProber against the fixture backend", () => {
  const prober = new ReacherProber("https://reacher.test", REACHER_SECRET);

  it("maps a safe, deliverable mailbox", async () => {
    expect(await prober.probe("valid@probe-verify.test")).toEqual({
      ran: true,
      prober: "reacher",
      reachability: "safe",
      canConnect: true,
      deliverable: true,
      catchAll: false,
      disabled: false,
      fullInbox: false,
      blocked: false,
      greylisted: false,
      error: null,
    });
  });

  it("maps catch-all, disabled and full inbox", async () => {
    expect(await prober.probe("x@catchall-verify.test")).toMatchObject({ reachability: "risky", catchAll: true });
    expect(await prober.probe("disabled@probe-verify.test")).toMatchObject({
      reachability: "invalid",
      disabled: true,
      deliverable: false,
    });
    // Reacher's connect.rs: a "mailbox full" RCPT reply gives has_full_inbox true and is_deliverable false.
    expect(await prober.probe("full@probe-verify.test")).toMatchObject({
      reachability: "risky",
      fullInbox: true,
      deliverable: false,
    });
  });

  it("maps an SMTP error to unknown with the blocked / greylisted flags", async () => {
    const blocked = await prober.probe("blocked@probe-verify.test");
    expect(blocked).toMatchObject({
      reachability: "unknown",
      canConnect: false,
      blocked: true,
      greylisted: false,
      deliverable: null,
    });
    expect(blocked.error).toMatch(/Spamhaus/);
    expect(await prober.probe("greylist@probe-verify.test")).toMatchObject({ greylisted: true, blocked: false });
  });

  it("reads Reacher's description of a refusal (IpBlacklisted, NeedsRDNS) as a refused prober", () => {
    const rdns = mapReacherOutput({
      is_reachable: "unknown",
      smtp: {
        error: { type: "AsyncSmtpError", message: "transient: 4.7.1 Client host rejected: cannot find your hostname" },
        description: "NeedsRDNS",
      },
    });
    expect(rdns).toMatchObject({ blocked: true, greylisted: false });
  });

  it("a Timeout error (its message is a Duration object) is neither refused nor greylisted", () => {
    expect(
      mapReacherOutput({
        is_reachable: "unknown",
        smtp: { error: { type: "Timeout", message: { secs: 10, nanos: 0 } } },
      }),
    ).toMatchObject({ blocked: false, greylisted: false, error: 'Timeout: {"secs":10,"nanos":0}' });
  });

  it("Reacher's own throttle (429) is a 503 with its wait as Retry-After, never a verdict", async () => {
    const err = await prober.probe("throttled@probe-verify.test").catch((e) => e);
    expect(err).toBeInstanceOf(SmtpProberThrottledError);
    expect(err.waitSeconds).toBe(13);
    expect(apiErrorOf(err)!.status).toBe(503);
  });

  it("sends the secret header; without it the backend refuses and that is a 503", async () => {
    const err = await new ReacherProber("https://reacher.test").probe("valid@probe-verify.test").catch((e) => e);
    expect(err).toBeInstanceOf(SmtpProberUnavailableError);
    expect(apiErrorOf(err)!.status).toBe(503);
  });

  it("a backend error or an unreachable backend is a 503", async () => {
    await expect(prober.probe("crash@probe-verify.test")).rejects.toThrow(/HTTP 500/);
    await expect(
      new ReacherProber("https://reacher-down.test", REACHER_SECRET).probe("a@probe-verify.test"),
    ).rejects.toBeInstanceOf(SmtpProberUnavailableError);
  });

  it("unknown is_reachable values fall back to unknown", () => {
    expect(mapReacherOutput({ is_reachable: "maybe", smtp: {} }).reachability).toBe("unknown");
  });
});

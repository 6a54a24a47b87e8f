import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { assertDeliverableUrl } from "../../src/delivery/index.js";
import { isAllowedAddress } from "../../src/engine/web/ip-ranges.js";
import { ApiError } from "../../src/http/errors.js";

const production = { ...env, ENVIRONMENT: "production" };

async function refusal(url: string, e: typeof env = env): Promise<ApiError> {
  const err = await assertDeliverableUrl(e, url, "webhook_url").then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe("assertDeliverableUrl", () => {
  it("accepts an https URL whose host resolves only to public addresses", async () => {
    const url = await assertDeliverableUrl(production, "https://receiver.test/hooks/1", "webhook_url");
    expect(url.href).toBe("https://receiver.test/hooks/1");
  });

  it("refuses plain http with 400 params_invalid naming the field", async () => {
    const err = await refusal("http://receiver.test/hook");
    expect(err.status).toBe(400);
    expect(err.type).toBe("params_invalid");
    expect(err.message).toContain("'webhook_url'");
    expect(err.message).toContain("https");
  });

  it("allows http to a loopback receiver outside production only", async () => {
    await expect(assertDeliverableUrl(env, "http://localhost:3000/hook", "webhook_url")).resolves.toBeInstanceOf(URL);
    expect((await refusal("http://localhost:3000/hook", production)).status).toBe(400);
  });

  it.each([
    ["https://intranet-hook.test/x", "private"],
    ["https://loopback-hook.test/x", "private"],
    ["https://metadata-hook.test/latest/meta-data", "private"],
    ["https://v6-private-hook.test/x", "private"],
    ["https://mapped-hook.test/x", "private"],
    ["https://nowhere-hook.test/x", "does not resolve"],
    ["https://10.1.2.3/x", "private"],
    ["https://[::1]/x", "private"],
    ["https://[fe80::1]/x", "private"],
    ["https://user:pw@receiver.test/x", "credentials"],
    ["ftp://receiver.test/x", "https"],
    ["not a url", "https"],
  ])("refuses %s", async (url, words) => {
    const err = await refusal(url, production);
    expect(err.status).toBe(400);
    expect(err.type).toBe("params_invalid");
    expect(err.message).toContain(words);
  });

  it.each([env, production])(
    "refuses an https URL on a port other than 443 with 422 url_not_allowed naming the rule, in every environment",
    async (e) => {
      const err = await refusal("https://receiver.test:8443/hook", e);
      expect(err.status).toBe(422);
      expect(err.type).toBe("url_not_allowed");
      expect(err.message).toContain("'webhook_url'");
      expect(err.message).toMatch(/port 443 only.*port 8443/);
      // The default port written out is the same URL.
      await expect(assertDeliverableUrl(e, "https://receiver.test:443/hook", "webhook_url")).resolves.toBeInstanceOf(
        URL,
      );
    },
  );

  it("judges IPv6 addresses by range, with the one egress guard's table", () => {
    expect(isAllowedAddress("2606:4700::1111", true)).toBe(true);
    for (const ip of [
      "::",
      "::1",
      "fc00::1",
      "fd12:3456::1",
      "fe80::abcd",
      "ff02::1",
      "2001:db8::1",
      "::ffff:10.0.0.1",
      "64:ff9b::192.168.0.1",
      "2002:c0a8:0101::1",
      "nonsense",
    ]) {
      expect(isAllowedAddress(ip, true), ip).toBe(false);
    }
  });
});

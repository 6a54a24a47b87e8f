import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { chosenMethod, paymentProviderFor } from "../../src/agent/payment-config.js";
import { assertDeliverableUrl } from "../../src/delivery/index.js";
import { urlRefusal } from "../../src/engine/web/egress.js";
import { isProduction } from "../../src/env.js";

describe("ENVIRONMENT fails closed: anything but exactly 'development' is production", () => {
  it("reads an unset, empty, misspelled or unknown ENVIRONMENT as production", () => {
    for (const value of [
      undefined,
      "",
      "production",
      "prod",
      "Production",
      "Development",
      "dev",
      " development",
      "staging",
    ]) {
      expect(isProduction({ ENVIRONMENT: value }), JSON.stringify(value)).toBe(true);
    }
    expect(isProduction({ ENVIRONMENT: "development" })).toBe(false);
  });

  it("keeps every production guard when a deploy forgets ENVIRONMENT: real-money payments, public hosts only", async () => {
    const forgotten = { ...env, ENVIRONMENT: undefined };
    // Payments: Tempo by default, and the play-money development method refused even when asked for.
    expect(chosenMethod(forgotten)).toBe("tempo");
    await expect(paymentProviderFor({ ...forgotten, MPP_METHOD: "evm-dev" })).rejects.toThrow(/refused in production/);
    // The egress guard: no fetch of an IP literal or a loopback host.
    expect(urlRefusal(new URL("http://127.0.0.1:8080/"), forgotten)).not.toBeNull();
    expect(urlRefusal(new URL("https://localhost/"), forgotten)).not.toBeNull();
    // Webhook and callback URLs: no plain-http loopback receiver.
    await expect(assertDeliverableUrl(forgotten, "http://localhost:3000/hook", "webhook_url")).rejects.toMatchObject({
      status: 400,
    });
    // The local tooling's value relaxes exactly those.
    const development = { ...env, ENVIRONMENT: "development" };
    expect(chosenMethod(development)).toBe("evm-dev");
    await expect(
      assertDeliverableUrl(development, "http://localhost:3000/hook", "webhook_url"),
    ).resolves.toBeInstanceOf(URL);
  });
});

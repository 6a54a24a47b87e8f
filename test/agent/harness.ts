import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { createAgentApp, productionGate } from "../../src/agent/app.js";
import type { Ledger } from "../../src/agent/ledger-client.js";
import type { GateDeps } from "../../src/agent/payment-gate.js";
import type { PaymentProvider } from "../../src/agent/provider.js";
import { type Capability, defineCapability } from "../../src/capabilities/core/registry.js";
import type { Env } from "../../src/env.js";
import { ApiError } from "../../src/http/errors.js";

/**
 * Test-only capabilities sold at priced paths, so the gate's every branch (422, 429, other upstream
 * failures) can be reached on purpose. They count calls so a test can tell whether upstream ran.
 */
export const upstreamCalls = { count: 0 };

/**
 * Upstream calls asked with `hold=1` wait until the test releases them: a use of a credential kept
 * in flight for as long as the test needs, whatever the machine's load (a delay would be a guess).
 */
export const heldUpstream = {
  release: () => {},
  gate: Promise.resolve(),
  /** Holds the next `hold=1` calls until release(). */
  hold() {
    this.gate = new Promise<void>((resolve) => (this.release = resolve));
  },
};

export const echoCapability = defineCapability({
  name: "email-count",
  label: "Test Echo",
  summary: "Echoes its input (test only)",
  tag: "Test",
  paths: ["/test-echo"],
  agentPath: "/email-count",
  params: z.object({
    domain: z.string().min(1),
    fail: z.enum(["422", "429", "451", "503"]).optional(),
    delay_ms: z.string().regex(/^\d+$/).optional(),
    hold: z.literal("1").optional(),
  }),
  rateGroup: null,
  cost: null,
  usageCategory: "email_count",
  async handler(params) {
    upstreamCalls.count++;
    if (params.delay_ms) await new Promise((r) => setTimeout(r, Number(params.delay_ms)));
    if (params.hold) await heldUpstream.gate;
    if (params.fail === "422")
      throw new ApiError(422, "unprocessable_entity", "Upstream cannot answer for this domain.");
    if (params.fail === "429")
      throw new ApiError(429, "rate_limit", "Too many requests (rpm).", { "Retry-After": "7" });
    if (params.fail === "451") throw new ApiError(451, "claimed_email", "Removed at its owner's request.");
    if (params.fail === "503") throw new ApiError(503, "service_unavailable", "DNS could not be reached.");
    return {
      body: { data: { domain: params.domain, total: 3 } },
      found: true,
      headers: { "x-internal-debug": "not forwarded" },
    };
  },
});

/** Same price tier as the echo, different path: a credential for one must not pay for the other. */
export const otherCapability = defineCapability({
  ...echoCapability,
  name: "email-format",
  agentPath: "/email-format",
  paths: ["/test-other"],
});

export const TEST_CAPABILITIES: Capability[] = [
  echoCapability as unknown as Capability,
  otherCapability as unknown as Capability,
];

export interface Harness {
  fetch: typeof fetch;
}

/** The agent app in-process with its own capability list, env and gate dependencies. */
export function harness(
  opts: { env?: Partial<Env>; gate?: Partial<GateDeps>; capabilities?: Capability[] } = {},
): Harness {
  const app = createAgentApp({ capabilities: opts.capabilities ?? TEST_CAPABILITIES, gate: opts.gate });
  const testEnv = { ...env, ...opts.env } as Env;
  return {
    fetch: async (input, init) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(input instanceof Request ? input : String(input), init), testEnv, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    },
  };
}

/** The real provider with faults injected at one step. */
export function faultyProvider(faults: {
  validate?: () => unknown;
  settle?: () => unknown;
  challenge?: () => unknown;
}): GateDeps["provider"] {
  return async (e, host) => {
    const real: PaymentProvider = await productionGate.provider(e, host);
    return {
      ...real,
      currencies: real.currencies,
      method: real.method,
      label: real.label,
      challenge: async (o, c) => {
        if (faults.challenge) throw faults.challenge();
        return real.challenge(o, c);
      },
      validate: async (cred, o, c) => {
        if (faults.validate) throw faults.validate();
        return real.validate(cred, o, c);
      },
      settle: async (cred, o, c) => {
        if (faults.settle) throw faults.settle();
        return real.settle(cred, o, c);
      },
    };
  };
}

export function failingLedger(): GateDeps["ledger"] {
  const broken: Ledger = {
    hold: async () => {
      throw new Error("Durable Object storage unavailable");
    },
    release: async () => {},
    settle: async () => ({ settled: false, settledAt: 0 }),
  };
  return () => broken;
}

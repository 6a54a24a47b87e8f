import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { Challenge, Credential, type Receipt } from "mppx";
import { evm } from "mppx/client";
import { McpClient } from "mppx/mcp/client";
import { describe, expect, it } from "vitest";
import { DEV_AUTHORIZATION, DEV_CHAIN_ID, DEV_TOKENS } from "../../src/agent/dev-chain.js";
import { soldCapabilities } from "../../src/agent/discovery.js";
import { CAPABILITIES } from "../../src/capabilities/index.js";
import { ERROR_META_KEY, toolName } from "../../src/mcp/tools.js";
import { TEST_CAPABILITIES, upstreamCalls } from "../agent/harness.js";
import { payingAgent, settlementOf } from "../agent/support.js";
import { appFetch, connect } from "./support.js";

const CREDENTIAL = "org.paymentauth/credential";
const RECEIPT = "org.paymentauth/receipt";
const FIND_JANE = { domain: "acme-widgets.test", first_name: "Jane", last_name: "Cooper" };

type Client = Awaited<ReturnType<typeof connect>>["client"];

/** The -32042 error of an unpaid call. */
async function paymentRequired(client: Client, name: string, args: Record<string, unknown>): Promise<McpError> {
  const err = await client.callTool({ name, arguments: args }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

/** Pays one of the challenges of a -32042 error and returns the credential as `_meta` carries it. */
async function credentialFrom(err: McpError, agent = payingAgent()): Promise<Credential.Credential> {
  const { challenges } = err.data as { challenges: Challenge.Challenge[] };
  const offer = new Response(null, {
    status: 402,
    headers: { "www-authenticate": Challenge.serialize(challenges[0]!) },
  });
  return Credential.deserialize(await agent.client.createCredential(offer));
}

const paidCall = (client: Client, name: string, args: Record<string, unknown>, credential: Credential.Credential) =>
  client.callTool({ name, arguments: args, _meta: { [CREDENTIAL]: credential } });

describe("POST /mcp: the agent surface over MCP, paid per call with MPP", () => {
  it("needs no credential to connect and lists exactly the capabilities sold on the agent surface, with their prices", async () => {
    const { client } = await connect("/mcp");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(soldCapabilities(CAPABILITIES).map(toolName));
    expect(tools.find((t) => t.name === "email-finder")!.description).toContain("Price: $0.03 per answer");
    expect(client.getInstructions()).toMatch(/-32042/);
  });

  it("answers an unpaid call with JSON-RPC error -32042 carrying one challenge per currency", async () => {
    const { client } = await connect("/mcp");
    const err = await paymentRequired(client, "email-finder", FIND_JANE);
    expect(err.code).toBe(-32042);
    const data = err.data as { httpStatus: number; challenges: Challenge.Challenge[]; problem: { type: string } };
    expect(data.httpStatus).toBe(402);
    expect(data.problem.type).toBe("https://paymentauth.org/problems/payment-required");
    expect(data.challenges.map((c) => (c.request as { currency: string }).currency.toLowerCase()).sort()).toEqual(
      [DEV_TOKENS.USDC, DEV_TOKENS.USDT].sort(),
    );
    // The credential pays for this tool's agent path only, at its price (0.03 USD in 6-decimal base units).
    expect(data.challenges.every((c) => (c.request as { amount: string }).amount === "30000")).toBe(true);
  });

  it("is paid through mppx's MCP client with the dev method: the answer, and the receipt in _meta", async () => {
    const agent = payingAgent();
    const { client } = await connect("/mcp");
    McpClient.wrap(client, {
      methods: [
        evm({
          account: agent.account,
          authorization: DEV_AUTHORIZATION,
          networks: [DEV_CHAIN_ID],
          currencies: [DEV_TOKENS.USDC, DEV_TOKENS.USDT],
        }),
      ],
    } as never);
    const result = (await client.callTool({ name: "email-finder", arguments: FIND_JANE })) as Awaited<
      ReturnType<Client["callTool"]>
    > & { receipt?: Receipt.Receipt & { challengeId: string } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ data: { email: "jane.cooper@acme-widgets.test" } });
    expect(result.receipt).toMatchObject({ status: "success", method: "evm", challengeId: expect.any(String) });
    expect(result._meta?.[RECEIPT]).toEqual(result.receipt);
    // Settled once, in the same ledger as the HTTP agent surface.
    expect(await settlementOf(result.receipt!.challengeId)).toMatchObject({
      endpoint: "/email-finder",
      amount: "30000",
      payer: agent.account.address,
      reference: result.receipt!.reference,
    });
  });

  it("does not charge an upstream 422, and the same credential then pays once for a real answer", async () => {
    const { client } = await connect("/mcp");
    const credential = await credentialFrom(await paymentRequired(client, "email-finder", FIND_JANE));
    const unknown = await paidCall(
      client,
      "email-finder",
      { company: "No Such Company Anywhere", full_name: "Jane Cooper" },
      credential,
    );
    expect(unknown.isError).toBe(true);
    expect(unknown._meta?.[ERROR_META_KEY]).toMatchObject({ type: "unknown_company", code: 422 });
    expect(unknown._meta?.[RECEIPT]).toBeUndefined();
    expect(await settlementOf(credential.challenge.id)).toBeNull();

    const paid = await paidCall(client, "email-finder", FIND_JANE, credential);
    expect(paid.isError).toBeFalsy();
    expect(paid._meta?.[RECEIPT]).toMatchObject({ status: "success", challengeId: credential.challenge.id });
    expect(await settlementOf(credential.challenge.id)).toMatchObject({ endpoint: "/email-finder" });
  });

  it("refuses a spent credential with -32043 and fresh challenges (replay-safe like the HTTP surface)", async () => {
    const { client } = await connect("/mcp");
    const credential = await credentialFrom(await paymentRequired(client, "email-finder", FIND_JANE));
    expect((await paidCall(client, "email-finder", FIND_JANE, credential)).isError).toBeFalsy();
    const replay = await paidCall(client, "email-finder", FIND_JANE, credential).catch((e: unknown) => e);
    expect(replay).toBeInstanceOf(McpError);
    expect(replay).toMatchObject({ code: -32043, message: expect.stringContaining("already paid for an answer") });
    expect((replay as McpError).data).toMatchObject({
      httpStatus: 402,
      challenges: [expect.any(Object), expect.any(Object)],
    });
  });

  it("refuses a credential bought for another tool", async () => {
    const { client } = await connect("/mcp");
    const forVerifier = await credentialFrom(
      await paymentRequired(client, "email-verifier", { email: "jane@acme-widgets.test" }),
    );
    const err = await paidCall(client, "email-finder", FIND_JANE, forVerifier).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: -32043 });
    expect(await settlementOf(forVerifier.challenge.id)).toBeNull();
  });

  it("answers a credential that is not one with -32602 and fresh challenges", async () => {
    const { client } = await connect("/mcp");
    const err = await client
      .callTool({ name: "email-finder", arguments: FIND_JANE, _meta: { [CREDENTIAL]: { nonsense: true } } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: -32602 });
    expect((err as McpError).data).toMatchObject({
      problem: { type: "https://paymentauth.org/problems/malformed-credential" },
      challenges: [expect.any(Object), expect.any(Object)],
    });
  });

  it("refuses bad parameters before asking for a payment", async () => {
    const { client } = await connect("/mcp");
    const result = await client.callTool({ name: "email-verifier", arguments: {} });
    expect(result.isError).toBe(true);
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({
      type: "params_invalid",
      code: 422,
      message: "The parameter 'email' is required.",
    });
  });

  it("refuses a tool the agent surface does not sell as unknown", async () => {
    const { client } = await connect("/mcp");
    await expect(
      client.callTool({ name: "technology", arguments: { domain: "acme-widgets.test" } }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});

describe("POST /mcp with upstream failures", () => {
  it("passes an upstream 429 on unbilled with its Retry-After, and the credential stays spendable", async () => {
    const fetch = appFetch({ capabilities: TEST_CAPABILITIES });
    const { client } = await connect("/mcp", { fetch });
    const credential = await credentialFrom(await paymentRequired(client, "email-count", { domain: "acme.test" }));
    const before = upstreamCalls.count;
    const limited = await paidCall(client, "email-count", { domain: "acme.test", fail: "429" }, credential);
    expect(upstreamCalls.count).toBe(before + 1);
    expect(limited.isError).toBe(true);
    expect(limited._meta?.[ERROR_META_KEY]).toMatchObject({ type: "rate_limit", code: 429, retry_after_seconds: 7 });
    expect((limited.content as { text: string }[])[0]!.text).toMatch(/Retry after 7 s\.$/);
    const paid = await paidCall(client, "email-count", { domain: "acme.test" }, credential);
    expect(paid.structuredContent).toEqual({ data: { domain: "acme.test", total: 3 } });
    expect(paid._meta?.[RECEIPT]).toMatchObject({ status: "success" });
  });

  it("passes an upstream 503 on unbilled", async () => {
    const { client } = await connect("/mcp");
    const credential = await credentialFrom(
      await paymentRequired(client, "email-verifier", { email: "jane@servfail-verify.test" }),
    );
    const result = await paidCall(client, "email-verifier", { email: "jane@servfail-verify.test" }, credential);
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ type: "dns_unavailable", code: 503 });
    expect(await settlementOf(credential.challenge.id)).toBeNull();
  });
});

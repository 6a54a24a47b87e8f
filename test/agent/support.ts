import { env, exports } from "cloudflare:workers";
import { evm, Mppx } from "mppx/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { DEV_AUTHORIZATION, DEV_CHAIN_ID, DEV_TOKENS } from "../../src/agent/dev-chain.js";
import { ledgerFor } from "../../src/agent/ledger.js";

export const BASE = "https://api.test";

/** The Worker itself, as the fetch the mppx client pays through. */
export const workerFetch: typeof fetch = (input, init) =>
  exports.default.fetch(new Request(input instanceof Request ? input : String(input), init));

/** A paying agent: the real mppx client with the dev method and a fresh key. */
export function payingAgent(opts: { fetch?: typeof fetch; prefer?: "USDC" | "USDT" } = {}) {
  const account = privateKeyToAccount(generatePrivateKey());
  const preferred = opts.prefer ? DEV_TOKENS[opts.prefer].toLowerCase() : undefined;
  const client = Mppx.create({
    polyfill: false,
    fetch: opts.fetch ?? workerFetch,
    methods: [
      evm({
        account,
        authorization: DEV_AUTHORIZATION,
        networks: [DEV_CHAIN_ID],
        currencies: [DEV_TOKENS.USDC, DEV_TOKENS.USDT],
      }),
    ],
    ...(preferred
      ? {
          orderChallenges: (candidates: readonly { challenge: { request: { currency?: string } } }[]) =>
            [...candidates].sort(
              (a, b) =>
                Number(b.challenge.request.currency?.toLowerCase() === preferred) -
                Number(a.challenge.request.currency?.toLowerCase() === preferred),
            ),
        }
      : {}),
  } as never) as unknown as {
    fetch: typeof fetch;
    createCredential(response: Response): Promise<string>;
  };
  return { account, client };
}

/** Gets a 402 for `path` and turns it into an `Authorization` header value, without spending it. */
export async function credentialFor(
  path: string,
  agent = payingAgent(),
  fetcher: typeof fetch = workerFetch,
): Promise<string> {
  const unpaid = await fetcher(`${BASE}${path}`);
  if (unpaid.status !== 402) throw new Error(`expected 402 from ${path}, got ${unpaid.status}`);
  return agent.client.createCredential(unpaid);
}

export function challengeIdOf(authorization: string): string {
  const b64 = authorization.replace(/^Payment\s+/i, "");
  const json = JSON.parse(
    atob(
      b64
        .replace(/-/g, "+")
        .replace(/_/g, "/")
        .padEnd(Math.ceil(b64.length / 4) * 4, "="),
    ),
  );
  return json.challenge.id;
}

export async function settlementOf(holdId: string) {
  return ledgerFor(env.PAYMENT_LEDGER!, holdId).settlement(holdId);
}

// `npm run agent -- "/email-verifier?email=someone@example.com"`: pays the local Worker for one call
// with the mppx client and the development payment method (EIP-3009 authorizations signed by a
// local key, on dev chain 31337: no real funds), then prints status, receipt and body.
//   BASE_URL           server to pay (default http://localhost:$PORT, PORT default 8787; AGENT_BASE_URL is its older name)
//   AGENT_PRIVATE_KEY  0x-prefixed key to sign with (default: a fresh random key per run)
//   AGENT_CURRENCY     USDC (default) or USDT: which of the two challenges to pay
import { Receipt } from "mppx";
import { evm, Mppx } from "mppx/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { DEV_AUTHORIZATION, DEV_CHAIN_ID, DEV_TOKENS } from "../src/agent/dev-chain.ts";
import { localConfigOrExit } from "./lib/config.mjs";

const path = process.argv[2];
if (!path?.startsWith("/")) {
  console.error('usage: npm run agent -- "/email-verifier?email=someone@example.com"');
  process.exit(2);
}
const base = localConfigOrExit().baseUrl;
const currency = (process.env.AGENT_CURRENCY ?? "USDC").toUpperCase();
if (!(currency in DEV_TOKENS)) {
  console.error("AGENT_CURRENCY must be USDC or USDT");
  process.exit(2);
}
const account = privateKeyToAccount(process.env.AGENT_PRIVATE_KEY ?? generatePrivateKey());
const wanted = DEV_TOKENS[currency].toLowerCase();

const mppx = Mppx.create({
  polyfill: false,
  methods: [
    evm({
      account,
      authorization: DEV_AUTHORIZATION,
      networks: [DEV_CHAIN_ID],
      currencies: [DEV_TOKENS.USDC, DEV_TOKENS.USDT],
    }),
  ],
  orderChallenges: (candidates) =>
    [...candidates].sort(
      (a, b) =>
        Number(b.challenge.request.currency?.toLowerCase() === wanted) -
        Number(a.challenge.request.currency?.toLowerCase() === wanted),
    ),
});

const url = `${base}${path}`;
console.log(`payer   ${account.address} (dev chain ${DEV_CHAIN_ID}, ${currency})`);
console.log(`GET     ${url}`);
let res;
try {
  res = await mppx.fetch(url);
} catch (err) {
  console.error(`request failed: ${err.message}${err.cause ? ` (${err.cause.message ?? err.cause})` : ""}`);
  console.error(`Is the server running? Start it with \`npm start\` (or set BASE_URL).`);
  process.exit(1);
}
console.log(`status  ${res.status}`);
console.log(`charged ${res.headers.get("x-payment-charged") ?? "(no header)"}`);
const receiptHeader = res.headers.get("payment-receipt");
if (receiptHeader) console.log(`receipt ${JSON.stringify(Receipt.deserialize(receiptHeader))}`);
// A window without a limit sends 0 as its limit and 0 as what is left: say so rather than "0 left".
for (const window of ["daily", "minute"]) {
  const left = res.headers.get(`x-${window}-request-left`);
  if (left === null) continue;
  const unlimited = res.headers.get(`x-${window}-rate-limit`) === "0";
  console.log(`x-${window}-request-left ${left}${unlimited ? ` (x-${window}-rate-limit 0: no ${window} limit)` : ""}`);
}
const retryAfter = res.headers.get("retry-after");
if (retryAfter !== null) console.log(`retry-after ${retryAfter}`);
const text = await res.text();
let body = text;
try {
  body = JSON.stringify(JSON.parse(text), null, 2);
} catch {}
console.log(body);
process.exit(res.ok ? 0 : 1);

// npm run bench -- oauth — latency of /v1/me with an OAuth bearer token against the same call with
// X-Service-Key + X-Service-Secret, side by side in one run, over real HTTP against `wrangler dev`
// (its own free port, or BENCH_PORT, and a throwaway state directory). The token comes from the real
// flow: registration, sign-in, consent, code exchange with PKCE.
//   BENCH_ROUNDS  paired rounds, alternating which goes first (default 200)
import { createHash, randomBytes } from "node:crypto";
import { median, p90, withBenchServer } from "./lib/dev-server.mjs";

const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const REDIRECT = "http://127.0.0.1:9/callback";

/** Just enough of a browser: keeps cookies, never follows redirects. */
function browser(base) {
  const jar = new Map();
  return async (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("Cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    headers.set("Origin", base);
    const res = await fetch(`${base}${path}`, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair.indexOf("=");
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
}
const field = (html, name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)[1];
const formBody = (o) => ({
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(o),
});

await withBenchServer("oauth", {}, async ({ base, headers }) => {
  const client = await (
    await fetch(`${base}/v1/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: "Bench", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
    })
  ).json();
  const go = browser(base);
  const signIn = await (await go("/app/sign-in?next=%2Fdevice")).text();
  const signedIn = await go(
    "/app/sign-in",
    formBody({ csrf: field(signIn, "csrf"), next: "/device", email: "bench@example.com", password: "bench" }),
  );
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const q = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope: "api",
    state: "s",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  const consent = await (await go(`/oauth/authorize?${q}`)).text();
  const allowed = await go(
    "/oauth/authorize",
    formBody({ csrf: field(consent, "csrf"), handle: field(consent, "handle"), decision: "approve" }),
  );
  const code = new URL(allowed.headers.get("location")).searchParams.get("code");
  const tokens = await (
    await fetch(
      `${base}/oauth/token`,
      formBody({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: client.client_id,
        code_verifier: verifier,
      }),
    )
  ).json();
  const bearer = { Authorization: `Bearer ${tokens.access_token}` };

  const time = async (h) => {
    const t = performance.now();
    const res = await fetch(`${base}/v1/me`, { headers: h });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/v1/me answered ${res.status}`);
    return performance.now() - t;
  };
  for (let i = 0; i < 20; i++) await Promise.all([time(headers), time(bearer)]); // warm both paths
  const key = [];
  const tok = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2) {
      key.push(await time(headers));
      tok.push(await time(bearer));
    } else {
      tok.push(await time(bearer));
      key.push(await time(headers));
    }
  }
  const row = (name, xs) => `${name.padEnd(22)} median ${median(xs).toFixed(2)} ms   p90 ${p90(xs).toFixed(2)} ms`;
  console.log(`/v1/me, ${rounds} paired rounds`);
  console.log(row("key + secret (baseline)", key));
  console.log(row("OAuth bearer token", tok));
  console.log(
    `bearer / key: median ×${(median(tok) / median(key)).toFixed(2)}, p90 ×${(p90(tok) / p90(key)).toFixed(2)}`,
  );
});

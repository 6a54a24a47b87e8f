// What `npm start` says when this machine cannot reach the internet: one line per upstream it
// cannot reach, instead of the stack traces wrangler and workerd print. Pure (no Node built-ins):
// the test suite imports it inside workerd; start.mjs gives it a DNS lookup.

/** The services a local server reaches out to, and what works without each. */
export function upstreams(dohUrl) {
  const doh = (() => {
    try {
      return new URL(dohUrl || "https://cloudflare-dns.com/dns-query").hostname;
    } catch {
      return "cloudflare-dns.com";
    }
  })();
  return [
    {
      host: "workers.cloudflare.com",
      what: "wrangler's Request.cf data",
      without: "requests carry wrangler's placeholder request.cf (every log row's country is US)",
      env: { CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    },
    {
      host: doh,
      what: "DNS over HTTPS (DOH_URL)",
      without:
        "lookups that need DNS or a website (verifier, finders, domain search, enrichment crawls) answer 503 dns_unavailable or 502 site_unreachable, unbilled; the phone validator, domain status, the account routes, OAuth, bulk phone jobs and the agent payment flow work",
    },
  ];
}

/** Resolves each upstream's host; the ones that did not resolve (within `timeoutMs`). */
export async function missingUpstreams(list, lookup, timeoutMs = 2_000) {
  const results = await Promise.all(
    list.map(async (u) => {
      const timer = new Promise((resolve) => setTimeout(() => resolve(false), timeoutMs));
      const resolved = lookup(u.host).then(
        () => true,
        () => false,
      );
      return (await Promise.race([resolved, timer])) ? null : u;
    }),
  );
  return results.filter(Boolean);
}

export const offlineLine = (u) => `offline: ${u.host} (${u.what}) cannot be reached: ${u.without}.`;

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes start with ESC.
const ANSI = /\x1b\[[0-9;]*m/g;
const plain = (line) => line.replace(ANSI, "");

/**
 * A line filter for `wrangler dev` output. Passes everything through except two multi-line
 * reports that only say "no internet": miniflare's Request.cf warning with its Node stack, and
 * workerd's "failed to lookup address information" error with its native stack. Each becomes one
 * line, printed once per run. `push(chunk)` returns the text to print; `end()` the rest.
 */
export function createOutputFilter() {
  let pending = "";
  let skipping = null; // "cf" | "lookup" | null
  const said = new Set();
  const once = (key, text) => {
    if (said.has(key)) return "";
    said.add(key);
    return `${text}\n`;
  };

  function line(raw) {
    const text = plain(raw);
    if (skipping === "cf") {
      if (/^\s*(Error: |at )/.test(text)) return "";
      skipping = null;
    }
    if (skipping === "lookup") {
      if (/^\s*$/.test(text) || /^\s*stack: /.test(text)) return "";
      skipping = null;
    }
    if (text.includes("Unable to fetch the `Request.cf` object")) {
      skipping = "cf";
      return once("cf", "offline: workers.cloudflare.com cannot be reached: requests carry a placeholder request.cf.");
    }
    if (text.includes("failed to lookup address information")) {
      skipping = "lookup";
      return once(
        "lookup",
        "offline: an outbound request could not resolve its host name (no internet): such lookups answer 503/502, unbilled; further ones are not shown.",
      );
    }
    if (text.includes("Your types might be out of date")) {
      // wrangler dev regenerates the types with .dev.vars' local secrets, which
      // worker-configuration.d.ts leaves out on purpose (`npm run types`, --env-file=/dev/null).
      return once(
        "types",
        "(wrangler's notice about types counts the local secrets in .dev.vars, which the committed types leave out on purpose; `npm run typecheck` says whether they are current.)",
      );
    }
    return `${raw}\n`;
  }

  return {
    push(chunk) {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop();
      return lines.map(line).join("");
    },
    end() {
      const rest = pending ? line(pending) : "";
      pending = "";
      return rest;
    },
  };
}

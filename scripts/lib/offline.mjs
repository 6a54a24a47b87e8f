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
 * A line filter for `wrangler dev` output, so what a person needs stands out:
 * - the dashboard's `[mail]` lines (a confirmation or reset link) become a framed block, bold on a
 *   terminal;
 * - request lines (`[wrangler:info] GET /app 200 OK (12ms)`) lose their prefix and are dimmed on a
 *   terminal; static files (the dashboard's stylesheet and script, the favicon) answered 2xx or 304
 *   are not shown;
 * - the bindings table is printed once (wrangler prints it again when the server is ready);
 * - a wrangler warning that asks for a `wrangler.jsonc` becomes one line (this project's
 *   configuration is wrangler.toml);
 * - two multi-line reports that only say "no internet" (miniflare's Request.cf warning with its
 *   Node stack, workerd's "failed to lookup address information" with its native stack) become one
 *   line each, printed once per run.
 * `push(chunk)` returns the text to print; `end()` the rest. `color`: ANSI styles (a terminal).
 */
export function createOutputFilter({ color = false } = {}) {
  let pending = "";
  let skipping = null; // "cf" | "lookup" | "bindings" | "jsonc" | null
  let bindingsShown = false;
  const said = new Set();
  const style = (code, text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const once = (key, text) => {
    if (said.has(key)) return "";
    said.add(key);
    return `${text}\n`;
  };

  function line(raw) {
    const text = plain(raw);
    if (skipping === "bindings") {
      if (text.trim() !== "") return "";
      skipping = null;
      return "";
    }
    if (skipping === "jsonc") {
      if (/^\s/.test(text) || text.trim() === "") return "";
      skipping = null;
    }
    if (text.startsWith("Your Worker has access to the following bindings")) {
      if (bindingsShown) {
        skipping = "bindings";
        return "";
      }
      bindingsShown = true;
    }
    if (text.includes("wrangler.jsonc")) {
      skipping = "jsonc";
      return once(
        "jsonc",
        "(wrangler's mention of a wrangler.jsonc does not apply: this project's configuration is wrangler.toml; nothing to do.)",
      );
    }
    const mail = /^\[mail\]\s+(.*)$/.exec(text);
    if (mail) {
      const body = mail[1];
      // "[mail] to x: Subject" opens the block; "[mail]   http://…" is its link.
      return /^to /.test(body) ? `\n${style("1", `  ✉  ${body}`)}\n` : `${style("1;4", `     ${body.trim()}`)}\n\n`;
    }
    const request = /^\[wrangler:info\] ((GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (\S+) (\d{3}) .*)$/.exec(text);
    if (request) {
      const [, rest, , path, status] = request;
      if (/^(\/app\/assets\/|\/favicon\.ico|\/assets\/)/.test(path) && (status.startsWith("2") || status === "304"))
        return "";
      return `${style("2", `  ${rest}`)}\n`;
    }
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

import { describe, expect, it, vi } from "vitest";
import agentSource from "../../scripts/agent.mjs?raw";
import bulkSource from "../../scripts/bulk.mjs?raw";
import { DEFAULT_PORT, localConfig } from "../../scripts/lib/config.mjs";
import { createOutputFilter, missingUpstreams, offlineLine, upstreams } from "../../scripts/lib/offline.mjs";
import { stepper } from "../../scripts/lib/progress.mjs";
import startSource from "../../scripts/start.mjs?raw";
import offlineOutput from "../fixtures/wrangler/offline-dev-output.txt?raw";

describe("one set of environment variables for the local scripts", () => {
  it("serves on PORT (default 8787) and points the client scripts at the same server unless BASE_URL says otherwise", () => {
    expect(localConfig({})).toEqual({ port: DEFAULT_PORT, baseUrl: "http://localhost:8787" });
    expect(localConfig({ PORT: "8899" })).toEqual({ port: 8899, baseUrl: "http://localhost:8899" });
    expect(localConfig({ PORT: "8899", BASE_URL: "https://api.example.com/" }).baseUrl).toBe("https://api.example.com");
    // The older name still works for `npm run agent`; BASE_URL wins when both are set.
    expect(localConfig({ AGENT_BASE_URL: "http://127.0.0.1:9000" }).baseUrl).toBe("http://127.0.0.1:9000");
    expect(localConfig({ AGENT_BASE_URL: "http://a.test", BASE_URL: "http://b.test" }).baseUrl).toBe("http://b.test");
  });

  it("refuses a PORT or BASE_URL that is not one, with a message naming the variable", () => {
    expect(() => localConfig({ PORT: "eighty" })).toThrow(/PORT must be a port number/);
    expect(() => localConfig({ PORT: "70000" })).toThrow(/PORT/);
    expect(() => localConfig({ BASE_URL: "localhost:8787" })).toThrow(
      /BASE_URL must be an http\(s\) URL|BASE_URL must be an absolute/,
    );
  });

  it("is what start, agent and bulk read: no script hard-codes the port", () => {
    for (const [name, source] of Object.entries({ startSource, agentSource, bulkSource })) {
      expect(source, name).toContain("localConfigOrExit()");
      expect(source.replace(/^\/\/.*$/gm, ""), name).not.toMatch(/8787|process\.env\.(PORT|BASE_URL|AGENT_BASE_URL)\b/);
    }
  });
});

describe("npm start without internet", () => {
  it("names each upstream it cannot reach in one line, saying what still works", async () => {
    const list = upstreams("https://dns.example/dns-query");
    expect(list.map((u) => u.host)).toEqual(["workers.cloudflare.com", "dns.example"]);
    const missing = await missingUpstreams(list, async (host) => {
      if (host === "dns.example") throw new Error("ENOTFOUND");
      return { address: "192.0.2.1" };
    });
    expect(missing.map((u) => u.host)).toEqual(["dns.example"]);
    const line = offlineLine(missing[0]!);
    expect(line).toMatch(
      /^offline: dns\.example \(DNS over HTTPS \(DOH_URL\)\) cannot be reached: .*503 dns_unavailable.*phone validator.*\.$/,
    );
    expect(line).not.toContain("\n");
    // A lookup that hangs counts as missing after the timeout.
    const hung = await missingUpstreams(list.slice(0, 1), () => new Promise(() => {}), 20);
    expect(hung).toHaveLength(1);
    // wrangler is told not to fetch Request.cf when its host is missing.
    expect(list[0]!.env).toEqual({ CLOUDFLARE_CF_FETCH_ENABLED: "false" });
  });

  it("turns wrangler's and workerd's offline stack traces into one line each, and keeps every other line", () => {
    const filter = createOutputFilter();
    // Fed in awkward chunks, as a pipe delivers it.
    let out = "";
    for (let i = 0; i < offlineOutput.length; i += 37) out += filter.push(offlineOutput.slice(i, i + 37));
    out += filter.end();
    expect(offlineOutput).toMatch(/at GetAddrInfoReqWrap|stack: /);
    expect(out).not.toMatch(/at GetAddrInfoReqWrap|getaddrinfo ENOTFOUND|stack: |ffi\.rs|failed to lookup address/);
    const offline = out.split("\n").filter((l) => l.startsWith("offline: "));
    expect(offline).toEqual([
      "offline: workers.cloudflare.com cannot be reached: requests carry a placeholder request.cf.",
      "offline: an outbound request could not resolve its host name (no internet): such lookups answer 503/502, unbilled; further ones are not shown.",
    ]);
    for (const kept of [
      "Ready on http://127.0.0.1:",
      "GET /v1/email-verifier 503 Service Unavailable",
      "GET /v1/author-finder 502 Bad Gateway",
      "Scheduled Workers are not automatically triggered",
    ]) {
      expect(out).toContain(kept);
    }
  });

  it("explains wrangler's notice about types instead of asking for a `wrangler types` that would add local secrets", () => {
    const filter = createOutputFilter();
    const out =
      filter.push(
        "Ready\n❓ Your types might be out of date. Re-run `wrangler types` to ensure your types are correct.\n",
      ) + filter.end();
    expect(out).not.toContain("Re-run `wrangler types`");
    expect(out).toMatch(
      /^Ready\n\(wrangler's notice about types counts the local secrets in \.dev\.vars.*npm run typecheck/,
    );
  });
});

describe("npm start's output reads for a person", () => {
  const run = (text: string, color = false) => {
    const filter = createOutputFilter({ color });
    return filter.push(text) + filter.end();
  };

  it("frames a mailed link so it stands out, bold on a terminal", () => {
    const mail =
      "[mail] to jane@example.com: Confirm your email address\n[mail]   http://localhost:8787/app/confirm?token=abc\n";
    expect(run(mail)).toBe(
      "\n  ✉  to jane@example.com: Confirm your email address\n     http://localhost:8787/app/confirm?token=abc\n\n",
    );
    expect(run(mail, true)).toContain("\x1b[1m  ✉  to jane@example.com");
  });

  it("shows request lines without wrangler's prefix, dimmed on a terminal, and leaves out static files", () => {
    const out = run(
      "[wrangler:info] GET /app 200 OK (12ms)\n[wrangler:info] GET /app/assets/app.css 200 OK (3ms)\n[wrangler:info] GET /favicon.ico 304 Not Modified (1ms)\n[wrangler:info] GET /app/assets/missing.css 404 Not Found (1ms)\n",
    );
    expect(out).toBe("  GET /app 200 OK (12ms)\n  GET /app/assets/missing.css 404 Not Found (1ms)\n");
    expect(run("[wrangler:info] GET /app 200 OK (12ms)\n", true)).toBe("\x1b[2m  GET /app 200 OK (12ms)\x1b[0m\n");
  });

  it("prints the bindings table once, and answers a mention of wrangler.jsonc with one line", () => {
    const table = "Your Worker has access to the following bindings:\nBinding  Resource\nenv.DB   D1 Database\n\n";
    const out = run(`${table}Starting\n${table}▲ [WARNING] Create a wrangler.jsonc file\n  to define it\n\nReady\n`);
    expect(out.match(/following bindings/g)).toHaveLength(1);
    expect(out).toContain("Starting\n(wrangler's mention of a wrangler.jsonc does not apply");
    expect(out).not.toContain("Create a wrangler.jsonc");
    expect(out.endsWith("Ready\n")).toBe(true);
  });
});

describe("npm run seed shows progress", () => {
  it("writes each step's name before it runs and its time after, or that it failed", () => {
    const lines: string[] = [];
    let t = 0;
    const step = stepper(
      (text) => lines.push(text),
      () => (t += 1500),
    );
    const seen = vi.fn(() => {
      expect(lines.join("")).toBe("Applying database migrations…");
      return 42;
    });
    expect(step("Applying database migrations", seen)).toBe(42);
    expect(lines.join("")).toBe("Applying database migrations… done (1.5 s)\n");
    expect(() =>
      step("Issuing a demo key", () => {
        throw new Error("wrangler failed");
      }),
    ).toThrow("wrangler failed");
    expect(lines.join("")).toMatch(/Issuing a demo key… failed\n$/);
  });
});

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Hono } from "hono";
import { mergePath } from "hono/utils/url";
import { describe, expect, it } from "vitest";
import type { V1Frame } from "../../src/account/v1.js";
import { type App, createApp, FAMILIES } from "../../src/app.js";
import { type Family, FamilyIndex, FamilyLoader } from "../../src/http/families.js";

/** Every route of every family, as the complete app mounts it, with the family it belongs to. */
async function familyRoutes() {
  const routes: { family: string; method: string; path: string }[] = [];
  const deps = { mcp: {}, appFetch: () => new Response(null, { status: 500 }) };
  for (const family of FAMILIES.all) {
    const built = (await family.build(deps)) as Hono | V1Frame;
    const app = "assemble" in built ? built.assemble([]) : built;
    for (const r of app.routes)
      routes.push({ family: family.name, method: r.method, path: mergePath(family.at, r.path) });
  }
  return routes;
}

/** A concrete path the route matches: parameters and wildcards filled in. */
const concrete = (path: string) => path.replace(/:[^/]+/g, "x").replace(/\*/g, "x");

async function answer(app: App, method: string, path: string) {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`https://api.test${path}`, { method }), env, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  const type = /"type":"([^"]+)"/.exec(text)?.[1] ?? null;
  return `${res.status} allow=${res.headers.get("allow")} ${res.headers.get("content-type")} ${type}`;
}

describe("route families (the app builds each on the first request that needs it)", () => {
  it("keeps every route of every family under a prefix that brings its family", async () => {
    const routes = await familyRoutes();
    expect(routes.length).toBeGreaterThan(400);
    // The families a path needs depend on its first two segments, and of those only on whether they
    // are one of the segments named by a prefix or a route: trying each of these (and one other) in
    // place of a parameter or a wildcard covers every path the route matches.
    const named = [0, 1].map((depth) => [
      "x",
      ...new Set(
        [...FAMILIES.all.flatMap((f) => f.prefixes), ...routes.map((r) => r.path)].map(
          (p) => p.split("/")[depth + 1] ?? "",
        ),
      ),
    ]);
    const misplaced: string[] = [];
    for (const r of routes) {
      const [, ...segments] = r.path.split("/");
      const choices = segments
        .slice(0, 2)
        .map((s, depth) => (s.startsWith(":") || s.includes("*") ? named[depth]! : [s]));
      const candidates = (choices[1] ?? [undefined]).flatMap((second) =>
        choices[0]!.map((first) => [first, ...(second === undefined ? [] : [second])]),
      );
      for (const head of candidates) {
        const path = concrete(["", ...head, ...segments.slice(2)].join("/"));
        if (!FAMILIES.familiesFor(path).some((f) => f.name === r.family))
          misplaced.push(`${r.family}: ${r.method} ${r.path} (as ${path})`);
      }
    }
    expect(misplaced).toEqual([]);
  });

  it("answers every method on every route of a cold app exactly as the complete app does", {
    timeout: 120_000,
  }, async () => {
    const complete = createApp();
    await complete.loadAll();
    const paths = new Set((await familyRoutes()).map((r) => concrete(r.path)));
    for (const extra of [
      "/",
      "/v1",
      "/v1/",
      "/nowhere",
      "/v1/nowhere",
      "/v1/openapi.json",
      "/v1/bulk",
      "/v1/%62ulk/types",
      "/V1/me",
      "/v1//me",
      "/operator",
      "/device/x/y",
      "/.well-known",
      "/.well-known/x",
      "/.well-known/oauth-protected-resource/x",
    ]) {
      paths.add(extra);
    }
    const differences: string[] = [];
    for (const path of paths) {
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
        const [cold, full] = [await answer(createApp(), method, path), await answer(complete, method, path)];
        if (cold !== full) differences.push(`${method} ${path}: cold ${cold}, complete ${full}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it("builds only the families a request's path needs", async () => {
    const app = createApp();
    await answer(app, "GET", "/");
    expect(app.built()).toEqual([]);
    await answer(app, "GET", "/v1/me");
    expect(app.built().sort()).toEqual(["account", "v1"]);
    await answer(app, "DELETE", "/v1/bulk/types");
    expect(app.built().sort()).toEqual(["account", "bulk", "v1"]);
    await answer(app, "GET", "/v1/domain-search?domain=acme-widgets.test");
    expect(app.built().sort()).toEqual(["account", "bulk", "capabilities", "v1"]);
    await answer(app, "GET", "/sign-in");
    await answer(app, "GET", "/.well-known/oauth-authorization-server");
    expect(app.built()).toContain("oauth");
    expect(app.built()).not.toContain("mcp");
    expect(app.built()).not.toContain("agent");
    await answer(app, "GET", "/robots.txt");
    expect(app.built()).toContain("agent");
  });

  it("builds every /v1 family for the /v1 OpenAPI document, which lists their routes", async () => {
    const app = createApp();
    const res = await app.fetch(new Request("https://api.test/v1/openapi.json"), env, createExecutionContext());
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(app.built().sort()).toEqual([
      "account",
      "bulk",
      "capabilities",
      "keys",
      "leads",
      "logs",
      "purchases",
      "reveal",
      "team",
      "v1",
    ]);
    for (const path of [
      "/me",
      "/logs",
      "/keys/{id}",
      "/reveal/search",
      "/leads/{id}",
      "/bulk/{type}",
      "/domain-search",
      "/oauth/register",
      "/team/members/{id}",
      "/credit-packs/{pack}",
    ])
      expect(doc.paths).toHaveProperty([path]);
  });
});

describe("FamilyIndex", () => {
  const family = (name: string, prefixes: string[]): Family<string, void> => ({
    name,
    at: "/",
    prefixes,
    build: async () => name,
  });
  const pages = family("pages", ["/docs", "/.well-known"]);
  const wellKnown = family("well-known", ["/.well-known", "/v1/mcp"]);
  const v1 = family("v1", ["/v1"]);
  const bulk = family("bulk", ["/v1/bulk"]);
  const rest = family("rest", []);
  const paid = family("paid", []);
  const index = new FamilyIndex([pages, wellKnown, v1, bulk, rest, paid], { "": paid, "/v1": rest }, ["/"]);
  const names = (path: string) => index.familiesFor(path).map((f) => f.name);

  it("gives a path the families claiming its first segment, and under /v1 its first two", () => {
    expect(names("/docs")).toEqual(["pages"]);
    expect(names("/.well-known/anything")).toEqual(["pages", "well-known"]);
    expect(names("/v1/bulk/emails/3")).toEqual(["v1", "bulk"]);
    expect(names("/v1/mcp")).toEqual(["v1", "well-known"]);
  });

  it("gives an unclaimed path its parent's fallback, and the frame's own paths nothing", () => {
    expect(names("/v1/domain-search")).toEqual(["v1", "rest"]);
    expect(names("/v1/")).toEqual(["v1", "rest"]);
    expect(names("/email-finder")).toEqual(["paid"]);
    expect(names("/docsx")).toEqual(["paid"]);
    expect(names("/")).toEqual([]);
    expect(names("/v1")).toEqual(["v1"]);
  });

  it("refuses a prefix deeper than two segments", () => {
    expect(() => new FamilyIndex([family("deep", ["/v1/bulk/types"])], {})).toThrow(/one or two path segments/);
  });
});

describe("FamilyLoader", () => {
  it("builds a family once, however many requests wait for it", async () => {
    let builds = 0;
    const counted: Family<string, void> = {
      name: "counted",
      at: "/",
      prefixes: ["/c"],
      build: async () => `built ${++builds}`,
    };
    const loader = new FamilyLoader<void>(undefined);
    await Promise.all([loader.load([counted]), loader.load([counted]), loader.load([counted])]);
    expect(builds).toBe(1);
    expect(loader.get(counted)).toBe("built 1");
    expect(loader.built).toBe(1);
  });

  it("keeps failing a family whose build failed, without building it again", async () => {
    let builds = 0;
    const broken: Family<string, void> = {
      name: "broken",
      at: "/",
      prefixes: ["/b"],
      build: async () => {
        builds++;
        throw new Error("module failed to evaluate");
      },
    };
    const loader = new FamilyLoader<void>(undefined);
    await expect(loader.load([broken])).rejects.toThrow("module failed to evaluate");
    await expect(loader.load([broken])).rejects.toThrow("module failed to evaluate");
    expect(builds).toBe(1);
    expect(loader.get(broken)).toBeUndefined();
    expect(loader.built).toBe(0);
  });
});

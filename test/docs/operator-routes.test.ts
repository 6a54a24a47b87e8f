import { describe, expect, it } from "vitest";
import operatorDoc from "../../docs/operator.md?raw";
import { createOperatorApp } from "../../src/operator/app.js";

// docs/operator.md's table is the operator's list of routes: every route the operator app serves
// is a row of it, and every row is a route it serves.
const documented = (doc: string) =>
  [...doc.matchAll(/^\| `(GET|POST|PUT|PATCH|DELETE) (\/operator\/[^`?\s]*)[^`]*` \|/gm)].map(
    ([, method, path]) => `${method} ${path}`,
  );

describe("docs/operator.md", () => {
  it("lists every operator route, and no route the operator app does not serve", () => {
    const served = createOperatorApp()
      .routes.filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} /operator${r.path.replace(/:(\w+)/g, "{$1}")}`);
    expect(new Set(documented(operatorDoc))).toEqual(new Set(served));
  });
});

// `npm run check:startup` reads the build's metafile; these feed it small graphs of the same shape.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startupProblems } from "../../scripts/check-startup.mjs";

const imports = (...edges) => edges.map(([path, kind = "import-statement"]) => ({ path, kind }));

/** A metafile: `graph` maps each input to its imports; the entry output bundles every input. */
function metafile(graph) {
  const inputs = Object.fromEntries(
    Object.entries(graph).map(([file, edges]) => [file, { bytes: 1, imports: imports(...edges) }]),
  );
  return {
    inputs,
    outputs: {
      "out/index.js": { inputs: Object.fromEntries(Object.keys(graph).map((f) => [f, { bytesInOutput: 1 }])) },
    },
  };
}

const lazyApp = {
  "src/index.ts": [["src/app.ts"], ["src/bulk/consumer.ts", "dynamic-import"]],
  "src/app.ts": [["node_modules/hono/dist/index.js"], ["src/bulk/routes/index.ts", "dynamic-import"]],
  "src/bulk/routes/index.ts": [["src/bulk/routes/create-job.ts"]],
  "src/bulk/routes/create-job.ts": [["node_modules/zod/index.js"]],
  "src/bulk/consumer.ts": [["node_modules/drizzle-orm/index.js"]],
  "node_modules/hono/dist/index.js": [],
  "node_modules/zod/index.js": [],
  "node_modules/drizzle-orm/index.js": [],
};

describe("check:startup", () => {
  it("passes a graph whose route families and consumers are only imported lazily", () => {
    const { problems, staticModules } = startupProblems(metafile(lazyApp));
    assert.deepEqual(problems, []);
    assert.equal(staticModules, 3);
  });

  it("fails when a lazily imported module is also reached by static imports, naming the chain", () => {
    const { problems } = startupProblems(
      metafile({ ...lazyApp, "src/app.ts": [...lazyApp["src/app.ts"], ["src/bulk/routes/index.ts"]] }),
    );
    assert.ok(
      problems.some(
        (p) =>
          p.startsWith("src/bulk/routes/index.ts is imported lazily, but also statically") &&
          p.includes("src/index.ts -> src/app.ts -> src/bulk/routes/index.ts"),
      ),
      problems.join("\n"),
    );
  });

  it("fails when a route family's module is reached by static imports without its lazy entry", () => {
    const { problems } = startupProblems(
      metafile({ ...lazyApp, "src/app.ts": [...lazyApp["src/app.ts"], ["src/bulk/routes/create-job.ts"]] }),
    );
    assert.ok(
      problems.some((p) => p.startsWith("src/bulk/routes/create-job.ts is evaluated at startup")),
      problems.join("\n"),
    );
  });

  it("fails when a heavy library is evaluated at startup", () => {
    const { problems } = startupProblems(
      metafile({ ...lazyApp, "src/app.ts": [...lazyApp["src/app.ts"], ["node_modules/zod/index.js"]] }),
    );
    assert.deepEqual(problems, [
      "zod is evaluated at startup: src/index.ts -> src/app.ts -> node_modules/zod/index.js",
    ]);
  });

  it("fails when the payment stack is bundled into the entry module", () => {
    const { problems } = startupProblems(metafile({ ...lazyApp, "node_modules/viem/_esm/index.js": [] }));
    assert.ok(
      problems.some((p) => p.includes("files of viem")),
      problems.join("\n"),
    );
  });

  it("passes a PDF reader loaded lazily by the crawler, and fails when anything else reaches it statically", () => {
    const pdf = {
      ...lazyApp,
      "src/bulk/consumer.ts": [["node_modules/drizzle-orm/index.js"], ["src/engine/web/pdf-text.ts", "dynamic-import"]],
      "src/engine/web/pdf-text.ts": [["src/pdf-vendor.ts"]],
      "src/pdf-vendor.ts": [["./vendor/pdf.mjs", "dynamic-import"]],
    };
    const clean = startupProblems(metafile(pdf));
    assert.deepEqual(
      clean.problems.filter((p) => /pdf/i.test(p)),
      [],
    );
    const eager = startupProblems(
      metafile({ ...pdf, "src/app.ts": [...pdf["src/app.ts"], ["src/engine/web/pdf-text.ts"]] }),
    );
    assert.ok(
      eager.problems.some((p) => p.startsWith("src/app.ts imports src/engine/web/pdf-text.ts statically")),
      eager.problems.join("\n"),
    );
    const bundled = startupProblems(metafile({ ...pdf, "node_modules/unpdf/dist/index.mjs": [] }));
    assert.ok(
      bundled.problems.some((p) => p.startsWith("the entry module bundles the PDF reader")),
      bundled.problems.join("\n"),
    );
  });
});

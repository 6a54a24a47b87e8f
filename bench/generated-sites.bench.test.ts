// npm run bench -- quality --seed N --sites 60 [--profile real-web]: the engine on randomized company
// sites nobody tuned it against (test/fixtures/generator), measured through the /v1 routes
// as a customer meets it. The wrapper bench/quality.mjs sets QUALITY_SEED / QUALITY_SITES /
// QUALITY_PROFILE; the fixture network serves the same seed's sites (test/fixtures/handlers/
// generated.ts). Prints every miss with its likely cause, the totals against the goals, format/finder
// top-1 by format and by culture and, for the real-web profile, every figure per feature.
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { benchSelection, generateSites } from "../test/fixtures/generator/index.js";
import { measureSites, realWebGoalProblems, report } from "../test/support/generated-quality.js";

const selection = benchSelection(env);

it.skipIf(!selection)(
  "engine quality on generated sites",
  async () => {
    const { seed, sites: count, profile } = selection!;
    const t0 = Date.now();
    const sites = generateSites(seed, count, { profile });
    const generatedMs = Date.now() - t0;
    const measures = await measureSites(sites, Number(env.QUALITY_CONCURRENCY || 1));
    const goals = profile !== "classic" ? realWebGoalProblems(measures) : [];
    const replay = `npm run bench -- quality --seed ${seed} --sites ${count}${profile === "classic" ? "" : ` --profile ${profile}`}`;
    console.log(
      `${report(`seed ${seed} (${profile})`, measures)}${profile !== "classic" ? `\n${profile} goals: ${goals.length ? `NOT met: ${goals.join("; ")}` : "met"}` : ""}` +
        `\nwall time ${((Date.now() - t0) / 1000).toFixed(1)} s for ${count} sites (generation ${generatedMs} ms); replay: ${replay}`,
    );
    expect(measures).toHaveLength(count);
  },
  3_600_000,
);

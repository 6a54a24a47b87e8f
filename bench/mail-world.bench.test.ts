// npm run bench -- mail-world --seed S --domains 24: see bench/mail-world.mjs. The fixture network
// serves the same seed's world (MAIL_WORLD_SEED reaches its node process too).
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { mailWorldSelection } from "../test/fixtures/mail-world/world.js";
import { mailWorldReport, measureMailWorld } from "../test/support/mail-world-measure.js";

const vars = env as { MAIL_WORLD_SEED?: string; MAIL_WORLD_DOMAINS?: string; MAIL_WORLD_CONCURRENCY?: string };
const selection = mailWorldSelection(vars);

it.skipIf(!selection)(
  "finder and verifier on a fresh mail world",
  async () => {
    const t0 = Date.now();
    const m = await measureMailWorld(selection!.seed, selection!.domains, Number(vars.MAIL_WORLD_CONCURRENCY || 4));
    console.log(
      `${mailWorldReport(m)}\nwall time ${((Date.now() - t0) / 1000).toFixed(1)} s; replay: npm run bench -- mail-world --seed ${m.seed} --domains ${m.domains.length}`,
    );
    expect(m.finder.length).toBeGreaterThan(0);
  },
  3_600_000,
);

import { createRoute, z } from "@hono/zod-openapi";
import { indexRowCounts } from "../../db/shard-moves.js";
import { indexD1, layoutOf } from "../../db/shards.js";
import { ApiError } from "../../http/errors.js";
import { jsonBodyOr400 } from "../../http/json-body.js";
import type { ApiApp } from "../../http/openapi.js";

const Body = z.object({
  shards: z.number().int().min(1).max(64),
  page_size: z.number().int().min(1).max(1000).optional(),
  /** Outside production only: the wait after each phase change (ms; default: the layout's lifetime + 30 s). */
  settle_ms: z.number().int().min(0).max(600_000).optional(),
  /** Outside production only: fails the first attempt of one copy page mid-way (the crash test). */
  crash: z.object({ page: z.number().int().min(0), after_domains: z.number().int().min(0) }).optional(),
});

const start = createRoute({
  method: "post",
  path: "/index/reshard",
  middleware: [jsonBodyOr400('Send a JSON body like {"shards": 4}.')],
  request: { body: { required: true, content: { "application/json": { schema: Body } } } },
  responses: { 202: { description: "The reshard workflow started" } },
});

const progress = createRoute({
  method: "get",
  path: "/index/reshard/{id}",
  request: { params: z.object({ id: z.string().min(1).max(100) }) },
  responses: { 200: { description: "The reshard's progress" } },
});

const layout = createRoute({
  method: "get",
  path: "/index/layout",
  responses: { 200: { description: "Which databases hold the index, and their rows" } },
});

/**
 * POST /operator/index/reshard {shards}: moves the contact index to `shards` databases (1: the
 * main database) with the IndexReshard workflow; GET /operator/index/reshard/{id}: its progress;
 * GET /operator/index/layout: the layout in force and each database's rows.
 */
export function registerReshardRoutes(app: ApiApp) {
  app.openapi(start, async (c) => {
    const body = c.req.valid("json");
    const id = `reshard-${Date.now()}-${crypto.randomUUID().slice(0, 8)}`;
    const now = Date.now();
    // Its progress row exists from the start (the workflow fills in the layouts at its first step).
    await c.env.DB.prepare(
      "INSERT INTO index_moves (id, from_layout, to_layout, status, started_at, updated_at) VALUES (?1, '', '', 'planned', ?2, ?2)",
    )
      .bind(id, now)
      .run();
    await c.env.INDEX_RESHARD.create({
      id,
      params: {
        shards: body.shards,
        ...(body.page_size ? { pageSize: body.page_size } : {}),
        ...(body.settle_ms !== undefined ? { settleMs: body.settle_ms } : {}),
        ...(body.crash ? { crash: { page: body.crash.page, afterDomains: body.crash.after_domains } } : {}),
      },
    });
    return c.json({ data: { id, progress: `/operator/index/reshard/${id}` } }, 202);
  });

  app.openapi(progress, async (c) => {
    const { id } = c.req.valid("param");
    const row = await c.env.DB.prepare("SELECT * FROM index_moves WHERE id = ?").bind(id).first();
    let workflow: InstanceStatus | null = null;
    try {
      workflow = await (await c.env.INDEX_RESHARD.get(id)).status();
    } catch {
      // an unknown instance: answered from the table, or 404 below
    }
    if (!row && !workflow) throw new ApiError(404, "unknown_record", `No reshard with id ${id}.`);
    return c.json(
      { data: { id, move: row, workflow: workflow && { status: workflow.status, error: workflow.error ?? null } } },
      200,
    );
  });

  app.openapi(layout, async (c) => {
    const current = await layoutOf(c.env, { fresh: true });
    const names = [...new Set([...current.current, ...(current.target ?? [])])];
    const rows = await Promise.all(
      names.map(async (name) => [name, await indexRowCounts(indexD1(c.env, name))] as const),
    );
    return c.json({ data: { ...current, rows: Object.fromEntries(rows) } }, 200);
  });
}

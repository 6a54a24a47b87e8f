import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { jobStub, onJob } from "../jobs.js";
import { assertOwnJob, JobErrors, JobParams, JobSchema, security, TAG } from "./shared.js";

const route = createRoute({
  method: "get",
  path: "/bulk/{type}/{id}",
  tags: [TAG],
  security,
  summary: "A bulk job (an object in data, with config and metrics; preview once billed)",
  request: { params: JobParams },
  responses: {
    200: { description: "The job", content: { "application/json": { schema: z.object({ data: JobSchema }) } } },
    ...JobErrors,
  },
});

export function registerGetJob(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { type, id } = c.req.valid("param");
    await assertOwnJob(c, type, id);
    return c.json({ data: await onJob(jobStub(c.env, id).read(Date.now())) }, 200);
  });
}

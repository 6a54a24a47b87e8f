import { createRoute } from "@hono/zod-openapi";
import type { Env } from "../../env.js";
import type { ApiApp } from "../../http/openapi.js";
import type { JobView } from "../job-view.js";
import { ActionSchema, action, assertOwnJob, auth, JobErrors, JobParams, security, TAG } from "./shared.js";

export interface ActionRoute {
  method: "put" | "post" | "delete";
  path: string;
  summary: string;
  done: string;
  run(env: Env, job: { type: string; id: number }, who: ReturnType<typeof auth>, now: number): Promise<JobView>;
}

/**
 * One state action on a job, answered with {data: {status, message, code}}. The job's object
 * decides whether its current status allows it (409 invalid_state otherwise).
 */
export function registerAction(app: ApiApp, a: ActionRoute) {
  const route = createRoute({
    method: a.method,
    path: a.path,
    tags: [TAG],
    security,
    summary: a.summary,
    request: { params: JobParams },
    responses: {
      200: { description: a.done, content: { "application/json": { schema: ActionSchema } } },
      ...JobErrors,
    },
  });
  app.openapi(route, async (c) => {
    const { type, id } = c.req.valid("param");
    await assertOwnJob(c, type, id);
    const view = await a.run(c.env, { type, id }, auth(c), Date.now());
    return c.json(action(view.status, a.done), 200);
  });
}

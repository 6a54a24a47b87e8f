import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { CALLBACK_PARAM, checkCallbackUrl, scheduleCallback, WebhookUrlParam } from "../../delivery/index.js";
import type { ApiApp, Ctx } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { flushOwed } from "../../limits/admission.js";
import { rateLimitHeadersOnEveryAnswer } from "../../limits/middleware.js";
import { executeCapability } from "./execute.js";
import type { AnyCapability } from "./registry.js";

const pathParamNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);

/** Serves every capability under /v1 at each of its paths, from its one declaration. */
export function mountCapabilities(v1: ApiApp, capabilities: AnyCapability[]) {
  for (const cap of capabilities) {
    /** One call, whatever path it came by: `input` is the validated query and path parameters. */
    const serve = async (c: Ctx, input: Record<string, unknown>) => {
      const { [CALLBACK_PARAM]: webhookUrl, ...params } = input;
      const auth = c.get("auth");
      const callbackUrl = cap.acceptsCallback ? await checkCallbackUrl(c.env, webhookUrl) : undefined;
      c.set("logType", cap.label);
      c.set("usageCategory", cap.usageCategory);
      const { response, result, billing, charged } = await executeCapability(cap, params, {
        env: c.env,
        waitUntil: (p) => c.executionCtx.waitUntil(p),
        accountId: auth.account.id,
        plan: auth.account.plan,
        surface: "v1",
        fromDashboard: auth.session !== undefined,
        // The log row can wait for the billing decision (logRequests), so the answer need not; the
        // dashboard shows the call's cost with its answer, so its calls are decided up front.
        chargeLater: auth.session === undefined,
        // Answered 504 at the deadline while the handler ran: the answer was never given.
        answerDropped: () => c.get("pastDeadline") === true,
      });
      // Nothing below is for a caller that already has its 504: no charge shown, no callback.
      if (c.get("pastDeadline")) return response;
      // The log row's cost is the limiter's decision (a repeat, a not-found answer or a free
      // capability: not billed).
      c.set("billing", billing);
      if (auth.session) {
        // The "Try it" page shows what the call cost with its answer: the decision is taken (its
        // report) and sent now, within this request.
        let billed = false;
        void billing.whenDecided(async (decided) => {
          billed = decided;
        });
        await flushOwed(c.env, auth.account.id);
        auth.session.charge = { found: result?.found ?? false, billed, charged: billed ? (charged ?? {}) : {} };
      }
      if (callbackUrl && result && response.status === 200) {
        scheduleCallback(c.env, (p) => c.executionCtx.waitUntil(p), {
          accountId: auth.account.id,
          url: callbackUrl,
          endpoint: c.req.path,
          body: result.body,
        });
      }
      return response;
    };

    // Declared as the general RouteConfig type: the answer is the executor's ready Response (the
    // same for every surface, errors included), not a value for `c.json`.
    const responses: RouteConfig["responses"] = {
      200: {
        description: cap.label,
        content: { "application/json": { schema: cap.response ?? z.record(z.string(), z.unknown()) } },
      },
      402: { description: "Not enough credits (quota_exceeded); do not retry", content: ErrorResponses[400].content },
      ...ErrorResponses,
    };
    const documented = new Set(cap.paths);
    for (const path of [...cap.paths, ...(cap.aliases ?? [])]) {
      const inPath = pathParamNames(path);
      const shape: Record<string, z.ZodType> = cap.params.shape;
      const queryShape = Object.fromEntries(Object.entries(shape).filter(([k]) => !inPath.includes(k)));
      const query = z.object(cap.acceptsCallback ? { ...queryShape, [CALLBACK_PARAM]: WebhookUrlParam } : queryShape);
      // A value in the path gets the same rules (length, format) as the same parameter in the query.
      const params = z.object(
        Object.fromEntries(
          inPath.map((k) => [k, (shape[k] ?? z.string().min(1)).openapi({ param: { name: k, in: "path" } })]),
        ),
      );
      const doc = {
        method: "get" as const,
        path,
        middleware: [rateLimitHeadersOnEveryAnswer(cap.rateGroup)],
        tags: [cap.tag],
        security,
        summary: cap.summary,
        hide: !documented.has(path),
        responses,
        // Which capability the operation runs and its price: the dashboard's "Try it" forms are built from these.
        "x-capability": cap.name,
        "x-credit-cost": cap.cost ? { balance: cap.cost.balance, amount: cap.cost.amount } : null,
      };
      if (inPath.length) {
        v1.openapi(createRoute({ ...doc, request: { query, params } }), (c) =>
          serve(c, { ...c.req.valid("query"), ...c.req.valid("param") }),
        );
      } else {
        v1.openapi(createRoute({ ...doc, request: { query } }), (c) => serve(c, c.req.valid("query")));
      }
    }
  }
}

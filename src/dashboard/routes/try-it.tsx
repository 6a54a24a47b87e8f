import type { FC } from "hono/jsx";
import type { CallCharge } from "../../auth/session-calls.js";
import { isolateValue } from "../../platform/isolate-state.js";
import { PATHS } from "../config.js";
import { type DashApp, type DashCtx, formOf, render } from "../http.js";
import type { V1Answer, V1Client } from "../v1-client.js";
import { AppPage, Csrf, Notice } from "../views/layout.js";

/** A capability as the /v1 OpenAPI document describes it: one "Try it" form each. */
interface Capability {
  name: string;
  path: string;
  summary: string;
  tag: string;
  cost: { balance: string; amount: number } | null;
  params: Param[];
}
interface Param {
  name: string;
  in: "query" | "path";
  required: boolean;
  description: string;
  example: string;
  kind: "text" | "integer" | "boolean" | "enum";
  choices: string[];
}

interface OpenApiParam {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  example?: unknown;
  schema?: {
    type?: string;
    enum?: unknown[];
    example?: unknown;
    description?: string;
    anyOf?: { type?: string; enum?: unknown[] }[];
  };
}

/**
 * The forms are built from the /v1 OpenAPI document, the description every client reads (each
 * capability operation carries x-capability and x-credit-cost). Built once per isolate: the
 * document changes only with a deploy. The per-request callback parameter has no place here.
 */
const catalog = isolateValue<Promise<Capability[]>>("tryItCatalog");

function catalogOf(v1: V1Client): Promise<Capability[]> {
  const known = catalog.get();
  if (known) return known;
  const built = v1.read("/v1/openapi.json").then((doc) => {
    if (!doc.ok) throw new Error(`the /v1 OpenAPI document answered ${doc.status}`);
    const out: Capability[] = [];
    for (const [path, ops] of Object.entries(
      doc.body.paths as Record<string, Record<string, Record<string, unknown>>>,
    )) {
      const op = ops.get;
      if (!op || typeof op["x-capability"] !== "string") continue;
      const params = ((op.parameters ?? []) as OpenApiParam[])
        .filter((p) => (p.in === "query" || p.in === "path") && p.name !== "webhook_url")
        .map((p): Param => {
          const s = p.schema ?? {};
          const choices = (s.enum ?? s.anyOf?.find((a) => a.enum)?.enum ?? []).map(String);
          const type = s.type ?? s.anyOf?.find((a) => a.type)?.type;
          return {
            name: p.name,
            in: p.in as Param["in"],
            required: p.required ?? false,
            description: p.description ?? s.description ?? "",
            example: p.example !== undefined ? String(p.example) : s.example !== undefined ? String(s.example) : "",
            kind: choices.length
              ? "enum"
              : type === "boolean"
                ? "boolean"
                : type === "integer" || type === "number"
                  ? "integer"
                  : "text",
            choices,
          };
        });
      out.push({
        name: op["x-capability"],
        path: path.replace(/^\/v1/, ""),
        summary: String(op.summary ?? ""),
        tag: String((op.tags as string[])?.[0] ?? ""),
        cost: (op["x-credit-cost"] as Capability["cost"]) ?? null,
        params,
      });
    }
    return out;
  });
  built.catch(() => catalog.reset());
  return catalog.set(built);
}

const BALANCE_NAMES: Record<string, [string, string]> = {
  search: ["search credit", "search credits"],
  verification: ["verification credit", "verification credits"],
  phone: ["phone credit", "phone credits"],
};
const credits = (balance: string, n: number) =>
  `${n.toLocaleString("en")} ${BALANCE_NAMES[balance]?.[n === 1 ? 0 : 1] ?? `${balance} credits`}`;
const priceOf = (cap: Capability) =>
  cap.cost ? `${credits(cap.cost.balance, cap.cost.amount)} when something is found` : "free";

/** What the call cost, in words. */
function costLine(cap: Capability, answer: V1Answer, charge: CallCharge | undefined): string {
  if (charge?.billed) {
    const parts = Object.entries(charge.charged).filter((part): part is [string, number] => Boolean(part[1]));
    return `Billed: ${parts.map(([b, n]) => credits(b, n)).join(" + ")}.`;
  }
  if (!answer.ok) return "Not billed: the call did not succeed.";
  if (!cap.cost) return "Free: this capability costs nothing.";
  if (charge && !charge.found) return "Not billed: nothing was found.";
  return "Not billed: the same request was billed in the last 30 days (repeats are free).";
}

const Field: FC<{ p: Param; value: string }> = ({ p, value }) => {
  const id = `p-${p.name}`;
  const hint = p.description ? (
    <p class="hint" id={`${id}-hint`}>
      {p.description}
    </p>
  ) : null;
  const described = p.description ? `${id}-hint` : undefined;
  return (
    <div>
      <label for={id}>
        {p.name}
        {p.required ? " (required)" : ""}
      </label>
      {p.kind === "enum" || p.kind === "boolean" ? (
        <select id={id} name={p.name} aria-describedby={described}>
          <option value="">–</option>
          {(p.kind === "boolean" ? ["true", "false"] : p.choices).map((v) => (
            <option value={v} selected={v === value}>
              {v}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          name={p.name}
          type={p.kind === "integer" ? "number" : "text"}
          value={value}
          placeholder={p.example}
          required={p.required}
          aria-describedby={described}
        />
      )}
      {hint}
    </div>
  );
};

async function page(
  c: DashCtx,
  chosen: string | undefined,
  values: Record<string, string>,
  result?: { answer: V1Answer; charge?: CallCharge; url: string },
) {
  const session = c.get("session");
  const caps = await catalogOf(c.get("v1"));
  const cap = caps.find((x) => x.name === chosen) ?? caps.find((x) => x.name === "email-finder") ?? caps[0];
  if (!cap) throw new Error("the /v1 OpenAPI document lists no capability");
  const tags = [...new Set(caps.map((x) => x.tag))];
  const leftHeader = result?.answer.headers.get("x-daily-request-left");
  return render(
    c,
    <AppPage title="Try it" session={session} active="try">
      <p>
        Every form runs a real <code>/v1</code> call for your account: billed like any call, and counted under the{" "}
        <code>searches</code> rate limit (dashboard searches).
      </p>
      <form method="get" action={PATHS.tryIt} class="card">
        <div class="row">
          <div>
            <label for="capability">Capability</label>
            <select id="capability" name="capability">
              {tags.map((t) => (
                <optgroup label={t}>
                  {caps
                    .filter((x) => x.tag === t)
                    .map((x) => (
                      <option value={x.name} selected={x.name === cap.name}>
                        {x.name} ({priceOf(x)})
                      </option>
                    ))}
                </optgroup>
              ))}
            </select>
          </div>
          <div class="shrink">
            <button type="submit">Choose</button>
          </div>
        </div>
      </form>
      <section class="card" aria-labelledby="form-h">
        <h2 id="form-h">
          <code>GET /v1{cap.path}</code>
        </h2>
        <p>
          {cap.summary} <span class="muted">Price: {priceOf(cap)}.</span>
        </p>
        <form method="post" action={PATHS.tryIt}>
          <Csrf token={session.csrf} />
          <input type="hidden" name="capability" value={cap.name} />
          <div class="grid">
            {cap.params.map((p) => (
              <Field p={p} value={values[p.name] ?? ""} />
            ))}
          </div>
          <div class="actions">
            <button class="primary" type="submit">
              Run the call
            </button>
          </div>
        </form>
      </section>
      {result ? (
        <section class="card" aria-labelledby="result-h">
          <h2 id="result-h">Answer</h2>
          <Notice kind={result.answer.ok ? "success" : "error"}>
            <strong>{result.answer.status}</strong> · {costLine(cap, result.answer, result.charge)}
            {leftHeader !== undefined && leftHeader !== null
              ? ` Dashboard searches left today: ${leftHeader === "0" && result.answer.headers.get("x-daily-rate-limit") === "0" ? "no limit" : leftHeader}.`
              : ""}
          </Notice>
          <p class="hint">
            <code>{result.url}</code>
          </p>
          <pre>
            <code>{JSON.stringify(result.answer.body, null, 2)}</code>
          </pre>
        </section>
      ) : null}
    </AppPage>,
    result && !result.answer.ok && result.answer.status < 500 ? (result.answer.status as 400) : 200,
  );
}

export function registerTryRoutes(app: DashApp) {
  app.get(PATHS.tryIt, (c) => page(c, c.req.query("capability"), {}));

  app.post(PATHS.tryIt, async (c) => {
    const form = await formOf(c);
    const caps = await catalogOf(c.get("v1"));
    const cap = caps.find((x) => x.name === form.capability);
    if (!cap) return page(c, undefined, {});
    const values: Record<string, string> = {};
    let path = cap.path;
    const query: Record<string, string> = {};
    for (const p of cap.params) {
      const v = (form[p.name] ?? "").trim();
      values[p.name] = v;
      if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(v));
      else if (v) query[p.name] = v;
    }
    const answer = await c.get("v1").act("GET", `/v1${path}`, { query });
    const url = `/v1${path}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ""}`;
    return page(c, cap.name, values, { answer, charge: answer.charge, url });
  });
}

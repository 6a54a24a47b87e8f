import type { FC } from "hono/jsx";
import type { MeData } from "../../account/routes/me.js";
import type { RateLimits } from "../../account/routes/rate-limits.js";
import type { CallCharge } from "../../auth/session-calls.js";
import type { CreditBalance } from "../../limits/groups.js";
import { isolateValue } from "../../platform/isolate-state.js";
import { PATHS } from "../config.js";
import { type DashApp, type DashCtx, formOf, render } from "../http.js";
import type { V1Answer, V1Client } from "../v1-client.js";
import { CAPABILITY_COPY, DEFAULT_CAPABILITY, fieldLabel } from "../views/capability-copy.js";
import { AppPage, Csrf, Notice } from "../views/layout.js";
import { ResultCards } from "../views/result-cards.js";

/** A capability as the /v1 OpenAPI document describes it: one "Try it" form each. */
interface Capability {
  name: string;
  title: string;
  pitch: string;
  offline: boolean;
  path: string;
  summary: string;
  tag: string;
  cost: { balance: CreditBalance; amount: number } | null;
  params: Param[];
}
interface Param {
  name: string;
  label: string;
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
 * document changes only with a deploy. Each capability is listed once (its first path), in the
 * order and words of capability-copy.ts; one not named there (a path kept for existing clients) is left out, and so are
 * the per-request callback and parameter aliases.
 */
const catalog = isolateValue<Promise<Capability[]>>("tryItCatalog");

function catalogOf(v1: V1Client): Promise<Capability[]> {
  const known = catalog.get();
  if (known) return known;
  const built = v1.read("/v1/openapi.json").then((doc) => {
    if (!doc.ok) throw new Error(`the /v1 OpenAPI document answered ${doc.status}`);
    const byName = new Map<string, Capability>();
    for (const [path, ops] of Object.entries(
      doc.body.paths as Record<string, Record<string, Record<string, unknown>>>,
    )) {
      const op = ops.get;
      const name = op?.["x-capability"];
      const copy = typeof name === "string" ? CAPABILITY_COPY[name] : undefined;
      if (!op || typeof name !== "string" || !copy || byName.has(name)) continue;
      const params = ((op.parameters ?? []) as OpenApiParam[])
        .filter((p) => p.in === "query" || p.in === "path")
        .flatMap((p): Param[] => {
          const label = fieldLabel(name, p.name);
          if (label === null) return [];
          const s = p.schema ?? {};
          const choices = (s.enum ?? s.anyOf?.find((a) => a.enum)?.enum ?? []).map(String);
          const type = s.type ?? s.anyOf?.find((a) => a.type)?.type;
          // A flag the API spells several ways (0, 1, true, false) is one checkbox here.
          const flag = type === "boolean" || (choices.length > 0 && choices.every((v) => /^(0|1|true|false)$/.test(v)));
          return [
            {
              name: p.name,
              label,
              in: p.in as Param["in"],
              required: p.required ?? false,
              description: p.description ?? s.description ?? "",
              example: p.example !== undefined ? String(p.example) : s.example !== undefined ? String(s.example) : "",
              kind: flag
                ? "boolean"
                : choices.length
                  ? "enum"
                  : type === "integer" || type === "number"
                    ? "integer"
                    : "text",
              choices,
            },
          ];
        });
      byName.set(name, {
        name,
        title: copy.title,
        pitch: copy.pitch,
        offline: copy.offline ?? false,
        path: path.replace(/^\/v1/, ""),
        summary: String(op.summary ?? ""),
        tag: String((op.tags as string[])?.[0] ?? ""),
        cost: (op["x-credit-cost"] as Capability["cost"]) ?? null,
        params,
      });
    }
    const out = Object.keys(CAPABILITY_COPY).flatMap((name) => byName.get(name) ?? []);
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
  if (!answer.ok) return "Not billed.";
  if (!cap.cost) return "Free: this capability costs nothing.";
  if (charge && !charge.found) return "Not billed: nothing was found.";
  return "Not billed: the same request was billed in the last 30 days (repeats are free).";
}

const inSeconds = (s: number) =>
  s < 90
    ? `${s} second${s === 1 ? "" : "s"}`
    : s < 5400
      ? `${Math.ceil(s / 60)} minutes`
      : `${Math.ceil(s / 3600)} hours`;

/**
 * A failed try, said to a person: what happened and what to do next. The API's own message and type
 * stay in the JSON under the card.
 */
function personError(answer: V1Answer, cap: Capability): string {
  if (answer.ok) return "";
  const retry = Number(answer.headers.get("retry-after") ?? "");
  const wait = Number.isFinite(retry) && retry > 0 ? ` Try again in ${inSeconds(retry)}.` : "";
  switch (answer.status) {
    case 400:
    case 422:
      return `Check the form: ${answer.error.message}`;
    case 401:
      return "Confirm your email address first: open the link we sent you, then try again.";
    case 402:
      return `You have no ${cap.cost ? BALANCE_NAMES[cap.cost.balance]?.[1] : "credits"} left for this. Buy a credit pack or change plan on the Plans page.`;
    case 429:
      if (/\(daily\)/.test(answer.error.message))
        return `You have used today's searches from the dashboard. They come back at midnight UTC.${wait}`;
      if (/\(rps\)|\(rpm\)/.test(answer.error.message))
        return `That was quicker than your plan allows from the dashboard (a few searches a minute).${wait || " Wait a minute and try again."}`;
      return `${answer.error.message}${wait}`;
    case 451:
      return "This address, phone or profile was removed at its owner's request: we no longer give it out.";
    default:
      return answer.status >= 500
        ? `The lookup could not finish (a source did not answer in time). Nothing was billed.${wait || " Try again in a minute."}`
        : answer.error.message;
  }
}

const Field: FC<{ p: Param; value: string }> = ({ p, value }) => {
  const id = `p-${p.name}`;
  if (p.kind === "boolean")
    return (
      <div class="check">
        <input id={id} name={p.name} type="checkbox" value="true" checked={value === "true"} />
        <label for={id}>{p.label}</label>
      </div>
    );
  return (
    <div>
      <label for={id}>
        {p.label}
        {p.required ? "" : <span class="muted"> (optional)</span>}
      </label>
      {p.kind === "enum" ? (
        <select id={id} name={p.name}>
          <option value="">Any</option>
          {p.choices.map((v) => (
            <option value={v} selected={v === value}>
              {v.replace(/[_-]+/g, " ")}
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
        />
      )}
    </div>
  );
};

interface Quota {
  /** Credits left in the balance the capability spends, null when it is free or unknown. */
  creditsLeft: number | null;
  /** Dashboard searches left today; null when the plan sets no daily limit. */
  searchesLeft: number | null;
}

/** What the account can still do, read before the try (the answer's headers update it after). */
async function quotaOf(v1: V1Client, cap: Capability): Promise<Quota> {
  const [me, limits] = await Promise.all([v1.read<{ data: MeData }>("/v1/me"), v1.read<RateLimits>("/v1/rate-limits")]);
  const balance = cap.cost ? me.body?.data?.credits?.[cap.cost.balance] : undefined;
  const daily = limits.ok ? limits.body.data.searches?.daily : undefined;
  return {
    creditsLeft: typeof balance?.available === "number" ? balance.available : null,
    searchesLeft: daily && daily.limit > 0 ? Math.max(0, daily.limit - daily.used) : null,
  };
}

const QuotaLine: FC<{ cap: Capability; quota: Quota }> = ({ cap, quota }) => (
  <p class="quota">
    <strong>Price:</strong> {priceOf(cap)}.
    {cap.cost && quota.creditsLeft !== null ? ` You have ${credits(cap.cost.balance, quota.creditsLeft)} left.` : ""}
    {quota.searchesLeft !== null
      ? ` ${quota.searchesLeft.toLocaleString("en")} dashboard ${quota.searchesLeft === 1 ? "search" : "searches"} left today.`
      : ""}
  </p>
);

async function page(
  c: DashCtx,
  chosen: string | undefined,
  values: Record<string, string>,
  result?: { answer: V1Answer; charge?: CallCharge; url: string },
) {
  const session = c.get("session");
  const caps = await catalogOf(c.get("v1"));
  const cap = caps.find((x) => x.name === chosen) ?? caps.find((x) => x.name === DEFAULT_CAPABILITY) ?? caps[0];
  if (!cap) throw new Error("the /v1 OpenAPI document lists no capability");
  const quota = await quotaOf(c.get("v1"), cap);
  const answer = result?.answer;
  return render(
    c,
    <AppPage title="Try it" session={session} active="try">
      <p>
        Each search here is a real call for your account: it spends credits only when something is found, and a repeat
        within 30 days is free.
      </p>
      <form method="get" action={PATHS.tryIt} class="card">
        <div class="row">
          <div>
            <label for="capability">What do you want to do?</label>
            <select id="capability" name="capability">
              {caps.map((x) => (
                <option value={x.name} selected={x.name === cap.name}>
                  {x.title}
                  {x.offline ? " (try this first)" : ""}
                </option>
              ))}
            </select>
          </div>
          <div class="shrink">
            <button type="submit">Choose</button>
          </div>
        </div>
      </form>
      <section class="card" aria-labelledby="form-h">
        <h2 id="form-h">{cap.title}</h2>
        <p>{cap.pitch}</p>
        <QuotaLine cap={cap} quota={quota} />
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
              Search
            </button>
          </div>
        </form>
        <p class="hint">
          API: <code>GET /v1{cap.path}</code>
        </p>
      </section>
      {result && answer ? (
        <section class="card" aria-labelledby="result-h">
          <h2 id="result-h">Result</h2>
          {answer.ok ? (
            <>
              <ResultCards body={answer.body} />
              <p class="muted">{costLine(cap, answer, result.charge)}</p>
            </>
          ) : (
            <Notice kind="error">
              {personError(answer, cap)} <span class="muted">{costLine(cap, answer, result.charge)}</span>
            </Notice>
          )}
          <details>
            <summary>Show the JSON</summary>
            <p class="hint">
              <code>{result.url}</code> answered <strong>{answer.status}</strong>
            </p>
            <pre>
              <code>{JSON.stringify(answer.body, null, 2)}</code>
            </pre>
          </details>
        </section>
      ) : null}
    </AppPage>,
    answer && !answer.ok && answer.status < 500 ? (answer.status as 400) : 200,
  );
}

export function registerTryPages(app: DashApp) {
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

import type { SigningSecret } from "../../leads/routes/webhook-secret.js";
import type { DeliveryAttempt as Attempt, Webhook } from "../../leads/webhooks.js";
import { PATHS } from "../config.js";
import { type DashApp, type DashCtx, entryOf, fmt, formOf, recordId, render, statusFor, when } from "../http.js";
import type { V1Answer } from "../v1-client.js";
import { AppPage, Csrf, Notice, Pager } from "../views/layout.js";
import { Copyable, DataTable, Done, PostButton, V1Error } from "../views/parts.js";

const EVENTS = [
  ["save_lead", "A lead is saved or updated (save_lead)"],
  ["bulk_job_ended", "A bulk job created with notify ends (bulk_job_ended)"],
] as const;

const DONE: Record<string, string> = {
  created: "The webhook was created.",
  enable: "The webhook is enabled.",
  disable: "The webhook is disabled: nothing is delivered to it.",
  test: "A test delivery was queued: it appears in the delivery log within seconds.",
  delete: "The webhook was deleted.",
};

/** Each button of a webhook and the /v1 route it calls. */
const ACTIONS: Record<string, { method: "POST" | "DELETE"; path: (id: string) => string }> = {
  enable: { method: "POST", path: (id) => `/v1/webhooks/${id}/enable` },
  disable: { method: "POST", path: (id) => `/v1/webhooks/${id}/disable` },
  test: { method: "POST", path: (id) => `/v1/webhooks/${id}/test` },
  delete: { method: "DELETE", path: (id) => `/v1/webhooks/${id}` },
};

/** "Name: value" lines into headers; a line without a colon is refused by name. */
function headersOf(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const line of text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)) {
    const at = line.indexOf(":");
    if (at <= 0) return `The header line "${line.slice(0, 60)}" is not "Name: value".`;
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

async function listPage(c: DashCtx, problem?: V1Answer | string, status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const v1 = c.get("v1");
  const [answer, secret] = await Promise.all([
    v1.read<{ data: { webhooks: Webhook[] } }>("/v1/webhooks"),
    v1.read<{ data: SigningSecret }>("/v1/webhooks/secret"),
  ]);
  return render(
    c,
    <AppPage title="Webhooks" session={session} active="webhooks" script>
      <Done messages={DONE} code={c.req.query("ok")} />
      {typeof problem === "string" ? (
        <Notice kind="error">{problem}</Notice>
      ) : (
        <V1Error answer={problem ?? (answer.ok ? null : answer)} />
      )}
      {answer.ok && answer.body.data.webhooks.length > 0 ? (
        <DataTable label="Webhooks" columns={["Name", "Event", "Sent to", "Status", "Actions"]}>
          {answer.body.data.webhooks.map((w) => (
            <tr>
              <td>
                <a href={`${PATHS.webhooks}/${w.id}`}>{w.name}</a>
              </td>
              <td>
                <code>{w.event}</code>
              </td>
              <td>
                <code>
                  {w.method} {w.url}
                </code>
              </td>
              <td>
                <span class={`badge ${w.status === "enabled" ? "ok" : "warn"}`}>{w.status}</span>
              </td>
              <td>
                <div class="actions">
                  {w.status === "enabled" ? (
                    <PostButton
                      csrf={session.csrf}
                      action={`${PATHS.webhooks}/${w.id}/disable`}
                      label="Disable"
                      small
                    />
                  ) : (
                    <PostButton csrf={session.csrf} action={`${PATHS.webhooks}/${w.id}/enable`} label="Enable" small />
                  )}
                  {w.status === "enabled" ? (
                    <PostButton csrf={session.csrf} action={`${PATHS.webhooks}/${w.id}/test`} label="Send test" small />
                  ) : null}
                  <a class="btn small" href={`${PATHS.webhooks}/${w.id}`}>
                    Delivery log
                  </a>
                  <PostButton
                    csrf={session.csrf}
                    action={`${PATHS.webhooks}/${w.id}/delete`}
                    label="Delete"
                    kind="danger"
                    small
                    confirm={`Delete the webhook "${w.name}"?`}
                  />
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <p class="muted">No webhooks yet.</p>
      )}
      <section class="card" aria-labelledby="create-h">
        <h2 id="create-h">Add a webhook</h2>
        <form method="post" action={PATHS.webhooks}>
          <Csrf token={session.csrf} />
          <div class="row">
            <div>
              <label for="wh-name">Name</label>
              <input id="wh-name" name="name" type="text" required maxlength={100} />
            </div>
            <div>
              <label for="wh-event">Event</label>
              <select id="wh-event" name="event">
                {EVENTS.map(([v, label]) => (
                  <option value={v}>{label}</option>
                ))}
              </select>
            </div>
          </div>
          <div class="row">
            <div>
              <label for="wh-url">HTTPS URL</label>
              <input id="wh-url" name="url" type="url" required placeholder="https://example.com/hooks/leads" />
            </div>
            <div class="shrink">
              <label for="wh-method">Method</label>
              <select id="wh-method" name="method">
                {["POST", "PUT", "PATCH"].map((m) => (
                  <option value={m}>{m}</option>
                ))}
              </select>
            </div>
          </div>
          <label for="wh-headers">Extra headers (optional)</label>
          <textarea
            id="wh-headers"
            name="headers"
            placeholder="Authorization: Bearer my-receiver-token"
            aria-describedby="wh-headers-hint"
          ></textarea>
          <p class="hint" id="wh-headers-hint">
            One "Name: value" per line, sent with every delivery.
          </p>
          <div class="actions">
            <button class="primary" type="submit">
              Add webhook
            </button>
          </div>
        </form>
      </section>
      {secret.ok ? (
        <details class="card">
          <summary>Signing secret</summary>
          <p>
            Every delivery is signed (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature headers) with
            this secret. Check the signature before trusting a delivery.
          </p>
          <Copyable id="signing-secret" value={secret.body.data.secret} what="signing secret" />
        </details>
      ) : null}
    </AppPage>,
    status,
  );
}

async function logPage(c: DashCtx, problem?: V1Answer, status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const v1 = c.get("v1");
  const id = recordId(c.req.param("id"));
  const page = Math.max(1, Number(c.req.query("page")) || 1);
  const [hook, log] = await Promise.all([
    v1.read<{ data: Webhook }>(`/v1/webhooks/${id}`),
    v1.read<{ data: { deliveries: Attempt[]; meta: { total: number; total_pages: number } } }>(
      `/v1/webhooks/${id}/deliveries`,
      { page, limit: 25 },
    ),
  ]);
  const w = hook.ok ? hook.body.data : null;
  return render(
    c,
    <AppPage title={w ? `Webhook "${w.name}"` : "Webhook"} session={session} active="webhooks">
      <p>
        <a href={PATHS.webhooks}>All webhooks</a>
      </p>
      <Done messages={DONE} code={c.req.query("ok")} />
      <V1Error answer={problem ?? (hook.ok ? (log.ok ? null : log) : hook)} />
      {w ? (
        <section class="card">
          <dl class="facts">
            <dt>Event</dt>
            <dd>
              <code>{w.event}</code>
            </dd>
            <dt>Sent to</dt>
            <dd>
              <code>
                {w.method} {w.url}
              </code>
            </dd>
            <dt>Status</dt>
            <dd>
              <span class={`badge ${w.status === "enabled" ? "ok" : "warn"}`}>{w.status}</span>
            </dd>
            <dt>Headers</dt>
            <dd>{Object.keys(w.headers).length ? Object.keys(w.headers).join(", ") : "none"}</dd>
          </dl>
          <div class="actions">
            {w.status === "enabled" ? (
              <PostButton csrf={session.csrf} action={`${PATHS.webhooks}/${w.id}/test`} label="Send test" small />
            ) : null}
            {w.status === "enabled" ? (
              <PostButton csrf={session.csrf} action={`${PATHS.webhooks}/${w.id}/disable`} label="Disable" small />
            ) : (
              <PostButton csrf={session.csrf} action={`${PATHS.webhooks}/${w.id}/enable`} label="Enable" small />
            )}
          </div>
        </section>
      ) : null}
      {log.ok ? (
        <section aria-labelledby="log-h">
          <h2 id="log-h">Delivery log</h2>
          {log.body.data.deliveries.length === 0 ? <p class="muted">No deliveries yet.</p> : null}
          {log.body.data.deliveries.length > 0 ? (
            <DataTable
              label="Delivery attempts"
              columns={["When", "Delivery", "Attempt #", "Outcome", "Response #", "Time #"]}
            >
              {log.body.data.deliveries.map((a) => (
                <tr>
                  <td class="nowrap">{when(a.created_at)}</td>
                  <td>
                    <code>{a.delivery_id}</code>
                  </td>
                  <td class="num">{a.attempt}</td>
                  <td>
                    <span class={`badge ${a.status === "delivered" ? "ok" : a.status === "skipped" ? "warn" : "bad"}`}>
                      {a.status}
                    </span>
                    {a.error ? <span class="muted"> {a.error}</span> : null}
                  </td>
                  <td class="num">{a.response_code ?? "–"}</td>
                  <td class="num">{fmt(a.duration_ms)} ms</td>
                </tr>
              ))}
            </DataTable>
          ) : null}
          <Pager
            page={page}
            pages={log.body.data.meta.total_pages}
            total={log.body.data.meta.total}
            href={(p) => `${PATHS.webhooks}/${id}?page=${p}`}
          />
        </section>
      ) : null}
    </AppPage>,
    hook.ok ? status : 404,
  );
}

export function registerWebhookPages(app: DashApp) {
  app.get(PATHS.webhooks, (c) => listPage(c));
  app.post(PATHS.webhooks, async (c) => {
    const form = await formOf(c);
    const headers = headersOf(form.headers ?? "");
    if (typeof headers === "string") return listPage(c, headers, 400);
    const body = { name: form.name ?? "", url: form.url ?? "", event: form.event, method: form.method, headers };
    const done = await c.get("v1").act("POST", "/v1/webhooks", { json: body });
    return done.ok ? c.redirect(`${PATHS.webhooks}?ok=created`, 303) : listPage(c, done, statusFor(done));
  });
  app.get(`${PATHS.webhooks}/:id`, (c) => logPage(c));
  app.post(`${PATHS.webhooks}/:id/:action`, async (c) => {
    const name = c.req.param("action");
    const action = entryOf(ACTIONS, name);
    if (!action) return c.notFound();
    const id = recordId(c.req.param("id"));
    const done = await c.get("v1").act(action.method, action.path(id));
    if (!done.ok) return listPage(c, done, statusFor(done));
    // Back where the button was: the webhook's own page for a test (its log shows it), else the list.
    const back =
      (c.req.header("referer") ?? "").includes(`${PATHS.webhooks}/${id}`) && name !== "delete"
        ? `${PATHS.webhooks}/${id}`
        : PATHS.webhooks;
    return c.redirect(`${back}?ok=${name}`, 303);
  });
}

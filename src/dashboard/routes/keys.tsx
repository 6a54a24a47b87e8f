import type { FC } from "hono/jsx";
import type { ApiKeyWithSecret, KeyList } from "../../account/routes/keys/shared.js";
import { PATHS } from "../config.js";
import { type DashApp, type DashCtx, entryOf, formOf, recordId, render, statusFor, when } from "../http.js";
import type { V1Answer } from "../v1-client.js";
import { AppPage, Csrf, Notice } from "../views/layout.js";
import { Copyable, DataTable, PostButton, RenameForm, V1Error } from "../views/parts.js";

const LIFETIMES = [30, 90, 180, 365, 730];

const DONE: Record<string, string> = {
  renamed: "The key was renamed.",
  revoked: "The key was revoked: it stopped working at once.",
};

/** A key and its secret, just created or rolled: shown this once, with copy buttons. */
const NewSecret: FC<{ origin: string; k: ApiKeyWithSecret; rolled: boolean }> = ({ origin, k, rolled }) => (
  <section class="card" aria-labelledby="secret-h">
    <h2 id="secret-h">{rolled ? `New secret for "${k.name}"` : `Your new key "${k.name}"`}</h2>
    <Notice kind="warning">
      Copy the secret now: it is shown this once and stored only as a hash.{" "}
      {rolled ? "The old secret no longer works." : ""}
    </Notice>
    <p>
      <strong>X-Service-Key</strong>
    </p>
    <Copyable id="new-key" value={k.key} what="key" />
    <p>
      <strong>X-Service-Secret</strong>
    </p>
    <Copyable id="new-secret" value={k.secret ?? ""} what="secret" />
    <p class="hint">Try it from a terminal:</p>
    <pre>
      <code>{`curl -s "${origin}/v1/me" -H "X-Service-Key: ${k.key}" -H "X-Service-Secret: ${k.secret}"`}</code>
    </pre>
  </section>
);

async function page(
  c: DashCtx,
  extra: { created?: ApiKeyWithSecret; rolled?: boolean; problem?: V1Answer; ok?: string } = {},
  status: 200 | ReturnType<typeof statusFor> = 200,
) {
  const session = c.get("session");
  const list = await c.get("v1").read<KeyList>("/v1/keys");
  const now = Date.now();
  const origin = new URL(c.req.url).origin;
  const failed = extra.problem ?? (list.ok ? null : list);
  return render(
    c,
    <AppPage title="API keys" session={session} active="keys" script>
      {extra.ok ? <Notice kind="success">{extra.ok}</Notice> : null}
      <V1Error answer={failed} />
      {extra.created ? <NewSecret origin={origin} k={extra.created} rolled={extra.rolled ?? false} /> : null}
      <section class="card" aria-labelledby="create-h">
        <h2 id="create-h">Create a key</h2>
        <form method="post" action={PATHS.keys}>
          <Csrf token={session.csrf} />
          <div class="row">
            <div>
              <label for="key-name">Name</label>
              <input id="key-name" name="name" type="text" maxlength={100} placeholder="e.g. CRM sync" />
            </div>
            <div>
              <label for="key-days">Expires after</label>
              <select id="key-days" name="expires_in_days">
                {LIFETIMES.map((d) => (
                  <option value={String(d)} selected={d === 365}>
                    {d} days
                  </option>
                ))}
              </select>
            </div>
            <div class="shrink">
              <button class="primary" type="submit">
                Create key
              </button>
            </div>
          </div>
        </form>
      </section>
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">Active keys</h2>
        {list.ok && list.body.data.keys.length === 0 ? <p class="muted">No active keys yet.</p> : null}
        {list.ok && list.body.data.keys.length > 0 ? (
          <DataTable label="Active keys" columns={["Name", "Key", "Created", "Expires", "Last used", "Actions"]}>
            {list.body.data.keys.map((k) => {
              const expiredAt = k.expires_at !== null && Date.parse(k.expires_at) <= now ? k.expires_at : null;
              return (
                <tr>
                  <td>
                    <RenameForm
                      csrf={session.csrf}
                      action={`${PATHS.keys}/${k.id}/rename`}
                      id={`name-${k.id}`}
                      label={`Name of key ${k.key}`}
                      value={k.name}
                      maxlength={100}
                    />
                  </td>
                  <td>
                    <code>{k.key}</code>
                  </td>
                  <td>{when(k.created_at)}</td>
                  <td>
                    {expiredAt ? <span class="badge bad">expired {expiredAt.slice(0, 10)}</span> : when(k.expires_at)}
                  </td>
                  <td>{when(k.last_used_at)}</td>
                  <td>
                    <div class="actions">
                      <PostButton
                        csrf={session.csrf}
                        action={`${PATHS.keys}/${k.id}/roll`}
                        label="Roll secret"
                        small
                        confirm={`Give "${k.name}" a new secret? The current secret stops working at once.`}
                      />
                      <PostButton
                        csrf={session.csrf}
                        action={`${PATHS.keys}/${k.id}/revoke`}
                        label="Revoke"
                        kind="danger"
                        small
                        confirm={`Revoke "${k.name}"? It stops working at once.`}
                      />
                    </div>
                  </td>
                </tr>
              );
            })}
          </DataTable>
        ) : null}
      </section>
    </AppPage>,
    status,
  );
}

const keyId = (c: DashCtx) => recordId(c.req.param("id"));

export function registerKeyPages(app: DashApp) {
  app.get(PATHS.keys, (c) => page(c, { ok: entryOf(DONE, c.req.query("ok")) }));

  app.post(PATHS.keys, async (c) => {
    const form = await formOf(c);
    const days = Number(form.expires_in_days);
    const body = {
      ...(form.name?.trim() ? { name: form.name.trim() } : {}),
      ...(LIFETIMES.includes(days) ? { expires_in_days: days } : {}),
    };
    const created = await c.get("v1").act<{ data: ApiKeyWithSecret }>("POST", "/v1/keys", { json: body });
    return created.ok ? page(c, { created: created.body.data }) : page(c, { problem: created }, statusFor(created));
  });

  app.post(`${PATHS.keys}/:id/rename`, async (c) => {
    const form = await formOf(c);
    const done = await c.get("v1").act("PATCH", `/v1/keys/${keyId(c)}`, { json: { name: form.name ?? "" } });
    return done.ok ? c.redirect(`${PATHS.keys}?ok=renamed`, 303) : page(c, { problem: done }, statusFor(done));
  });

  app.post(`${PATHS.keys}/:id/roll`, async (c) => {
    const rolled = await c.get("v1").act<{ data: ApiKeyWithSecret }>("PUT", `/v1/keys/${keyId(c)}`);
    return rolled.ok
      ? page(c, { created: rolled.body.data, rolled: true })
      : page(c, { problem: rolled }, statusFor(rolled));
  });

  app.post(`${PATHS.keys}/:id/revoke`, async (c) => {
    const done = await c.get("v1").act("DELETE", `/v1/keys/${keyId(c)}`);
    return done.ok ? c.redirect(`${PATHS.keys}?ok=revoked`, 303) : page(c, { problem: done }, statusFor(done));
  });
}

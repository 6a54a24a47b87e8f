import { z } from "@hono/zod-openapi";
import type { Flag } from "../../leads/flags.js";
import { REASONS_BY_TYPE } from "../../leads/flags.js";
import type { LeadAttributes } from "../../leads/routes/list-attributes.js";
import { PATHS } from "../config.js";
import { firstIssue } from "../forms.js";
import { type DashApp, type DashCtx, formOf, recordId, render, statusFor, when } from "../http.js";
import type { V1Answer } from "../v1-client.js";
import { AppPage, Csrf, Notice } from "../views/layout.js";
import { DataTable, Done, PostButton, RenameForm, V1Error } from "../views/parts.js";

/**
 * Two small pages over /v1: lead attributes (custom fields every lead can carry: create, rename,
 * delete) and flags (reports of a wrong result: send one, list the account's). Validation and caps
 * are /v1's; the forms check their shape first so a person reads what to fix.
 */

const TYPE_WORDS = { string: "Text", date: "Date", number: "Number" } as const;
const FLAG_WORDS: Record<string, string> = {
  email: "An email address",
  organization: "A company",
  phone: "A phone number",
  author_url: "An article's author",
  website: "A website",
};
const words = (code: string) => code.replace(/_/g, " ");

const NewAttribute = z.strictObject({
  csrf: z.string(),
  name: z.string().trim().min(1, "Give the attribute a name.").max(100, "A name has at most 100 characters."),
  type: z.enum(["string", "date", "number"], { message: "Choose text, date or number." }),
});
const RenameAttribute = z.strictObject({
  csrf: z.string(),
  name: z.string().trim().min(1, "Give the attribute a name.").max(100, "A name has at most 100 characters."),
});
const NewFlag = z
  .strictObject({
    csrf: z.string(),
    flag_type: z.enum(Object.keys(REASONS_BY_TYPE) as [keyof typeof REASONS_BY_TYPE], {
      message: "Choose what is wrong.",
    }),
    value: z.string().trim().min(1, "Say which value is wrong.").max(500, "The value has at most 500 characters."),
    reason: z.string(),
    comment: z.string().trim().max(1_000, "A comment has at most 1,000 characters.").optional(),
  })
  .refine((f) => (REASONS_BY_TYPE[f.flag_type] as readonly string[]).includes(f.reason), {
    message: "That reason does not fit what you are reporting; pick another.",
  });

const ATTRIBUTES_DONE = {
  created: "The attribute was created.",
  renamed: "Renamed.",
  deleted: "The attribute was deleted.",
};
const FLAGS_DONE = { sent: "Thank you: the report was recorded and will be reviewed." };

async function attributesPage(
  c: DashCtx,
  problem?: V1Answer | string,
  status: 200 | ReturnType<typeof statusFor> = 200,
) {
  const session = c.get("session");
  const answer = await c.get("v1").read<LeadAttributes>("/v1/leads/attributes");
  const rows = answer.ok ? answer.body.data.attributes : [];
  return render(
    c,
    <AppPage title="Lead attributes" session={session} active="attributes">
      <Done messages={ATTRIBUTES_DONE} code={c.req.query("ok")} />
      {typeof problem === "string" ? <Notice kind="error">{problem}</Notice> : <V1Error answer={problem ?? answer} />}
      <p>
        Fields of your own that every lead can carry (a deal size, a renewal date…). They appear on each lead's page and
        in its CSV export; <code>GET /v1/leads</code> answers them under <code>attributes</code>.
      </p>
      {answer.ok && rows.length === 0 ? <p class="muted">No attribute yet. Create the first one below.</p> : null}
      {rows.length ? (
        <DataTable label="Attributes" columns={["Name", "Kind", "Key in the API", "Created", ""]}>
          {rows.map((a) => (
            <tr>
              <td>
                <RenameForm
                  csrf={session.csrf}
                  action={`${PATHS.attributes}/${a.id}/rename`}
                  id={`attr-${a.id}`}
                  label={`Name of ${a.name}`}
                  value={a.name}
                  maxlength={100}
                />
              </td>
              <td>{TYPE_WORDS[a.type]}</td>
              <td>
                <code>{a.identifier}</code>
              </td>
              <td class="nowrap">{when(a.created_at)}</td>
              <td>
                <PostButton
                  csrf={session.csrf}
                  action={`${PATHS.attributes}/${a.id}/delete`}
                  label="Delete"
                  kind="danger"
                  small
                  confirm={`Delete ${a.name} and its value on every lead?`}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <section class="card" aria-labelledby="attr-new-h">
        <h2 id="attr-new-h">New attribute</h2>
        <form method="post" action={PATHS.attributes} class="row">
          <Csrf token={session.csrf} />
          <div>
            <label for="attr-name">Name</label>
            <input id="attr-name" name="name" type="text" required maxlength={100} />
          </div>
          <div>
            <label for="attr-type">Kind</label>
            <select id="attr-type" name="type">
              {(["string", "date", "number"] as const).map((t) => (
                <option value={t}>{TYPE_WORDS[t]}</option>
              ))}
            </select>
          </div>
          <div class="shrink">
            <button type="submit" class="primary">
              Create
            </button>
          </div>
        </form>
      </section>
    </AppPage>,
    status,
  );
}

async function flagsPage(c: DashCtx, problem?: V1Answer | string, status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const answer = await c.get("v1").read<{ data: Flag[] }>("/v1/flag", { limit: 50 });
  return render(
    c,
    <AppPage title="Report a wrong result" session={session} active="flags">
      <Done messages={FLAGS_DONE} code={c.req.query("ok")} />
      {typeof problem === "string" ? <Notice kind="error">{problem}</Notice> : <V1Error answer={problem ?? answer} />}
      <p>
        Found an address that bounced, a phone that reaches someone else, or the wrong company? Tell us: every report is
        reviewed, and what is wrong is corrected or removed for everyone.
      </p>
      <section class="card" aria-labelledby="flag-new-h">
        <h2 id="flag-new-h">New report</h2>
        <form method="post" action={PATHS.flags}>
          <Csrf token={session.csrf} />
          <div class="grid">
            <div>
              <label for="flag-type">What is wrong</label>
              <select id="flag-type" name="flag_type">
                {Object.keys(REASONS_BY_TYPE).map((t) => (
                  <option value={t}>{FLAG_WORDS[t] ?? words(t)}</option>
                ))}
              </select>
            </div>
            <div>
              <label for="flag-value">The value (the address, number, company or URL)</label>
              <input id="flag-value" name="value" type="text" required maxlength={500} />
            </div>
            <div>
              <label for="flag-reason">Why</label>
              <select id="flag-reason" name="reason">
                {[...new Set(Object.values(REASONS_BY_TYPE).flat())].map((r) => (
                  <option value={r}>{words(r)}</option>
                ))}
              </select>
            </div>
            <div>
              <label for="flag-comment">
                Anything else <span class="muted">(optional)</span>
              </label>
              <input id="flag-comment" name="comment" type="text" maxlength={1000} />
            </div>
          </div>
          <div class="actions">
            <button type="submit" class="primary">
              Send the report
            </button>
          </div>
        </form>
      </section>
      {answer.ok && answer.body.data.length ? (
        <DataTable label="Your reports" columns={["When", "What", "Value", "Why", "Comment"]}>
          {answer.body.data.map((f) => (
            <tr>
              <td class="nowrap">{when(f.created_at)}</td>
              <td>{FLAG_WORDS[f.flag_type] ?? words(f.flag_type)}</td>
              <td>{f.value}</td>
              <td>{words(f.reason)}</td>
              <td>{f.comment ?? ""}</td>
            </tr>
          ))}
        </DataTable>
      ) : answer.ok ? (
        <p class="muted">No report yet.</p>
      ) : null}
    </AppPage>,
    status,
  );
}

export function registerAttributeAndFlagPages(app: DashApp) {
  app.get(PATHS.attributes, (c) => attributesPage(c));

  app.post(PATHS.attributes, async (c) => {
    const parsed = NewAttribute.safeParse(await formOf(c));
    if (!parsed.success) return attributesPage(c, firstIssue(parsed.error), 400);
    const { name, type } = parsed.data;
    const done = await c.get("v1").act("POST", "/v1/leads/attributes", { json: { name, type } });
    return done.ok ? c.redirect(`${PATHS.attributes}?ok=created`, 303) : attributesPage(c, done, statusFor(done));
  });

  app.post(`${PATHS.attributes}/:id/rename`, async (c) => {
    const parsed = RenameAttribute.safeParse(await formOf(c));
    if (!parsed.success) return attributesPage(c, firstIssue(parsed.error), 400);
    const done = await c
      .get("v1")
      .act("PUT", `/v1/leads/attributes/${recordId(c.req.param("id"))}`, { json: { name: parsed.data.name } });
    return done.ok ? c.redirect(`${PATHS.attributes}?ok=renamed`, 303) : attributesPage(c, done, statusFor(done));
  });

  app.post(`${PATHS.attributes}/:id/delete`, async (c) => {
    const done = await c.get("v1").act("DELETE", `/v1/leads/attributes/${recordId(c.req.param("id"))}`);
    return done.ok ? c.redirect(`${PATHS.attributes}?ok=deleted`, 303) : attributesPage(c, done, statusFor(done));
  });

  app.get(PATHS.flags, (c) => flagsPage(c));

  app.post(PATHS.flags, async (c) => {
    const parsed = NewFlag.safeParse(await formOf(c));
    if (!parsed.success) return flagsPage(c, firstIssue(parsed.error), 400);
    const { csrf: _csrf, comment, ...flag } = parsed.data;
    const done = await c.get("v1").act("POST", "/v1/flag", { json: { ...flag, ...(comment ? { comment } : {}) } });
    return done.ok ? c.redirect(`${PATHS.flags}?ok=sent`, 303) : flagsPage(c, done, statusFor(done));
  });
}

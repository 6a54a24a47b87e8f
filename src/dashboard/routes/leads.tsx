import type { FC } from "hono/jsx";
import { csvLine } from "../../http/csv.js";
import type { Lead } from "../../leads/lead.js";
import type { LeadList as List } from "../../leads/lists.js";
import type { LeadPage } from "../../leads/routes/list-leads.js";
import type { LeadLists } from "../../leads/routes/list-lists.js";
import { PATHS } from "../config.js";
import { type DashApp, type DashCtx, fmt, formOf, recordId, render, statusFor, when } from "../http.js";
import type { V1Answer, V1Client } from "../v1-client.js";
import { AppPage, Csrf, Pager } from "../views/layout.js";
import { DataTable, Done, PostButton, RenameForm, V1Error } from "../views/parts.js";

/** The lead fields the edit form shows, in its order. */
const FIELDS = [
  ["email", "Email", "email"],
  ["first_name", "First name", "text"],
  ["last_name", "Last name", "text"],
  ["company", "Company", "text"],
  ["position", "Position", "text"],
  ["website_url", "Website", "url"],
  ["phone_number", "Phone", "text"],
  ["country", "Country", "text"],
] as const;

/** The columns of an export, in order. */
const EXPORT_COLUMNS = [
  "id",
  "email",
  "first_name",
  "last_name",
  "company",
  "position",
  "website_url",
  "phone_number",
  "country",
  "score",
  "notes",
  "list",
  "created_at",
  "updated_at",
];
/** An export reads the leads 100 at a time through GET /v1/leads, up to this many (the API pages through more). */
export const EXPORT_MAX_LEADS = 50_000;

const DONE: Record<string, string> = {
  saved: "The lead was saved.",
  added: "The lead was added.",
  deleted: "The lead was deleted.",
  "list-created": "The list was created.",
  "list-renamed": "The list was renamed.",
  "list-deleted": "The list was deleted.",
};

async function listsOf(v1: V1Client): Promise<List[]> {
  const answer = await v1.read<LeadLists>("/v1/leads_lists");
  return answer.ok ? answer.body.data.list_leads : [];
}

/** The body of a lead from the form: blank fields are left out of a new lead and cleared on an existing one. */
function leadBody(form: Record<string, string>, existing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name] of FIELDS) {
    const v = (form[name] ?? "").trim();
    if (v) body[name] = v;
    else if (existing && name !== "email") body[name] = null;
  }
  const notes = (form.notes ?? "").trim();
  if (notes || existing) body.notes = notes || null;
  const score = (form.score ?? "").trim();
  if (score) body.score = /^\d+$/.test(score) ? Number(score) : score;
  else if (existing) body.score = null;
  const list = (form.list_id ?? "").trim();
  if (list) body.list_id = Number(list);
  else if (existing) body.list_id = null;
  return body;
}

const LeadForm: FC<{ csrf: string; action: string; lead?: Partial<Lead>; lists: List[]; submit: string }> = ({
  csrf,
  action,
  lead,
  lists,
  submit,
}) => (
  <form method="post" action={action}>
    <Csrf token={csrf} />
    <div class="grid">
      {FIELDS.map(([name, label, type]) => (
        <div>
          <label for={`lead-${name}`}>
            {label}
            {name === "email" ? " (required)" : ""}
          </label>
          <input
            id={`lead-${name}`}
            name={name}
            type={type}
            value={(lead?.[name] as string | null | undefined) ?? ""}
            required={name === "email"}
          />
        </div>
      ))}
      <div>
        <label for="lead-score">Score (0-100)</label>
        <input
          id="lead-score"
          name="score"
          type="number"
          min={0}
          max={100}
          value={lead?.score === null || lead?.score === undefined ? "" : String(lead.score)}
        />
      </div>
      <div>
        <label for="lead-list">List</label>
        <select id="lead-list" name="list_id">
          <option value="">No list</option>
          {lists.map((l) => (
            <option value={String(l.id)} selected={lead?.list_id === l.id}>
              {l.name}
            </option>
          ))}
        </select>
      </div>
    </div>
    <label for="lead-notes">Notes</label>
    <textarea id="lead-notes" name="notes" maxlength={5000}>
      {lead?.notes ?? ""}
    </textarea>
    <div class="actions">
      <button class="primary" type="submit">
        {submit}
      </button>
    </div>
  </form>
);

async function leadsPage(c: DashCtx, problem?: V1Answer, status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const v1 = c.get("v1");
  const page = Math.max(1, Number(c.req.query("page")) || 1);
  const list = c.req.query("list") ?? "";
  const domain = (c.req.query("domain") ?? "").trim();
  const [answer, lists] = await Promise.all([
    v1.read<LeadPage>("/v1/leads", {
      page,
      limit: 25,
      list,
      domain,
    }),
    listsOf(v1),
  ]);
  const filter = Object.fromEntries(Object.entries({ list, domain }).filter(([, v]) => v));
  const href = (p: number) => `${PATHS.leads}?${new URLSearchParams({ ...filter, page: String(p) })}`;
  return render(
    c,
    <AppPage title="Leads" session={session} active="leads">
      <Done messages={DONE} code={c.req.query("ok")} />
      <V1Error answer={problem ?? (answer.ok ? null : answer)} />
      <form method="get" action={PATHS.leads} class="card">
        <div class="row">
          <div>
            <label for="f-list">List</label>
            <select id="f-list" name="list">
              <option value="">All leads</option>
              {lists.map((l) => (
                <option value={String(l.id)} selected={String(l.id) === list}>
                  {l.name} ({fmt(l.size)})
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="f-domain">Email domain</label>
            <input id="f-domain" name="domain" type="text" value={domain} placeholder="acme.com" />
          </div>
          <div class="shrink">
            <button type="submit" class="primary">
              Show
            </button>
          </div>
          <div class="shrink">
            <a
              class="btn"
              href={`${PATHS.leads}/export.csv${Object.keys(filter).length ? `?${new URLSearchParams(filter)}` : ""}`}
              download
            >
              Export CSV
            </a>
          </div>
        </div>
      </form>
      {answer.ok && answer.body.data.leads.length === 0 ? (
        <p class="muted">No leads here yet. Add one below, or save them with POST /v1/leads.</p>
      ) : null}
      {answer.ok && answer.body.data.leads.length > 0 ? (
        <>
          <DataTable label="Leads" columns={["Email", "Name", "Company", "Position", "List", "Score #", "Updated"]}>
            {answer.body.data.leads.map((l) => (
              <tr>
                <td>
                  <a href={`${PATHS.leads}/${l.id}`}>{l.email}</a>
                </td>
                <td>{[l.first_name, l.last_name].filter(Boolean).join(" ")}</td>
                <td>{l.company ?? ""}</td>
                <td>{l.position ?? ""}</td>
                <td>{l.leads_list?.name ?? ""}</td>
                <td class="num">{l.score ?? ""}</td>
                <td>{when(l.updated_at)}</td>
              </tr>
            ))}
          </DataTable>
          <Pager
            page={page}
            pages={answer.body.data.meta.total_pages}
            total={answer.body.data.meta.total}
            href={href}
          />
        </>
      ) : null}
      <details class="card">
        <summary>Add a lead</summary>
        <LeadForm csrf={session.csrf} action={PATHS.leads} lists={lists} submit="Add lead" />
      </details>
    </AppPage>,
    status,
  );
}

async function leadPage(c: DashCtx, problem?: V1Answer, status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const v1 = c.get("v1");
  const id = recordId(c.req.param("id"));
  const [answer, lists] = await Promise.all([v1.read<{ data: { leads: Lead[] } }>(`/v1/leads/${id}`), listsOf(v1)]);
  const lead = answer.ok ? answer.body.data.leads[0] : undefined;
  return render(
    c,
    <AppPage title={lead ? lead.email : "Lead"} session={session} active="leads">
      <p>
        <a href={PATHS.leads}>All leads</a>
      </p>
      <Done messages={DONE} code={c.req.query("ok")} />
      <V1Error answer={problem ?? (answer.ok ? null : answer)} />
      {lead ? (
        <>
          <section class="card" aria-labelledby="edit-h">
            <h2 id="edit-h">Edit</h2>
            <LeadForm
              csrf={session.csrf}
              action={`${PATHS.leads}/${lead.id}`}
              lead={lead}
              lists={lists}
              submit="Save"
            />
            <p class="hint">
              Created {when(lead.created_at)} · saving sends the <code>save_lead</code> event to your enabled webhooks.
            </p>
          </section>
          <PostButton
            csrf={session.csrf}
            action={`${PATHS.leads}/${lead.id}/delete`}
            label="Delete lead"
            kind="danger"
            confirm="Delete this lead for good?"
          />
        </>
      ) : null}
    </AppPage>,
    lead ? status : 404,
  );
}

async function listsPage(c: DashCtx, problem?: V1Answer, status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const answer = await c.get("v1").read<LeadLists>("/v1/leads_lists");
  return render(
    c,
    <AppPage title="Lead lists" session={session} active="lists" script>
      <Done messages={DONE} code={c.req.query("ok")} />
      <V1Error answer={problem ?? (answer.ok ? null : answer)} />
      <form method="post" action={PATHS.lists} class="card">
        <Csrf token={session.csrf} />
        <div class="row">
          <div>
            <label for="list-name">New list</label>
            <input id="list-name" name="name" type="text" required maxlength={200} />
          </div>
          <div class="shrink">
            <button type="submit" class="primary">
              Create list
            </button>
          </div>
        </div>
      </form>
      {answer.ok && answer.body.data.list_leads.length === 0 ? <p class="muted">No lists yet.</p> : null}
      {answer.ok && answer.body.data.list_leads.length > 0 ? (
        <DataTable label="Lead lists" columns={["Name", "Leads #", "Created", "Actions"]}>
          {answer.body.data.list_leads.map((l) => (
            <tr>
              <td>
                <RenameForm
                  csrf={session.csrf}
                  action={`${PATHS.lists}/${l.id}/rename`}
                  id={`list-${l.id}`}
                  label={`Name of list ${l.id}`}
                  value={l.name}
                  maxlength={200}
                />
              </td>
              <td class="num">
                <a href={`${PATHS.leads}?list=${l.id}`}>{fmt(l.size)}</a>
              </td>
              <td>{when(l.created_at)}</td>
              <td>
                <div class="actions">
                  <a class="btn small" href={`${PATHS.leads}/export.csv?list=${l.id}`} download>
                    Export CSV
                  </a>
                  <PostButton
                    csrf={session.csrf}
                    action={`${PATHS.lists}/${l.id}/delete`}
                    label="Delete"
                    kind="danger"
                    small
                    confirm={`Delete the list "${l.name}"? Its leads stay, without a list.`}
                  />
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </AppPage>,
    status,
  );
}

/**
 * Streams the leads (of a list or domain) as CSV, reading GET /v1/leads page by page. The first page
 * is read before the answer starts, so a refusal (an unconfirmed account: 401) is shown as a page.
 */
async function exportLeads(c: DashCtx): Promise<Response> {
  const v1 = c.get("v1");
  const filter = { list: c.req.query("list") ?? "", domain: (c.req.query("domain") ?? "").trim() };
  const readPage = (page: number) =>
    v1.read<LeadPage>("/v1/leads", {
      ...filter,
      page,
      limit: 100,
      sortby: "id",
      direction: "asc",
    });
  const first = await readPage(1);
  if (!first.ok) return leadsPage(c, first, statusFor(first));
  const encoder = new TextEncoder();
  let page = 1;
  let sent = 0;
  let next: Promise<V1Answer<{ data: { leads: Lead[]; meta: { total_pages: number } } }>> | null =
    Promise.resolve(first);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`${csvLine(EXPORT_COLUMNS)}\r\n`));
    },
    async pull(controller) {
      const answer = await (next ?? readPage(page));
      next = null;
      if (!answer.ok) {
        controller.error(new Error(answer.error.message));
        return;
      }
      const lines = answer.body.data.leads.map((l) =>
        csvLine([
          l.id,
          l.email,
          l.first_name,
          l.last_name,
          l.company,
          l.position,
          l.website_url,
          l.phone_number,
          l.country,
          l.score,
          l.notes,
          l.leads_list?.name ?? "",
          l.created_at,
          l.updated_at,
        ]),
      );
      if (lines.length) controller.enqueue(encoder.encode(`${lines.join("\r\n")}\r\n`));
      sent += lines.length;
      page += 1;
      if (page > answer.body.data.meta.total_pages || sent >= EXPORT_MAX_LEADS || lines.length === 0)
        controller.close();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="leads${filter.list ? `-list-${recordId(filter.list)}` : ""}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

export function registerLeadPages(app: DashApp) {
  app.get(PATHS.leads, (c) => leadsPage(c));
  app.get(`${PATHS.leads}/export.csv`, (c) => exportLeads(c));
  app.post(PATHS.leads, async (c) => {
    const done = await c.get("v1").act("POST", "/v1/leads", { json: leadBody(await formOf(c), false) });
    return done.ok ? c.redirect(`${PATHS.leads}?ok=added`, 303) : leadsPage(c, done, statusFor(done));
  });
  app.get(`${PATHS.leads}/:id`, (c) => leadPage(c));
  app.post(`${PATHS.leads}/:id`, async (c) => {
    const id = recordId(c.req.param("id"));
    const done = await c.get("v1").act("PUT", `/v1/leads/${id}`, { json: leadBody(await formOf(c), true) });
    return done.ok ? c.redirect(`${PATHS.leads}/${id}?ok=saved`, 303) : leadPage(c, done, statusFor(done));
  });
  app.post(`${PATHS.leads}/:id/delete`, async (c) => {
    const done = await c.get("v1").act("DELETE", `/v1/leads/${recordId(c.req.param("id"))}`);
    return done.ok ? c.redirect(`${PATHS.leads}?ok=deleted`, 303) : leadPage(c, done, statusFor(done));
  });

  app.get(PATHS.lists, (c) => listsPage(c));
  app.post(PATHS.lists, async (c) => {
    const done = await c.get("v1").act("POST", "/v1/leads_lists", { json: { name: (await formOf(c)).name ?? "" } });
    return done.ok ? c.redirect(`${PATHS.lists}?ok=list-created`, 303) : listsPage(c, done, statusFor(done));
  });
  app.post(`${PATHS.lists}/:id/rename`, async (c) => {
    const done = await c
      .get("v1")
      .act("PUT", `/v1/leads_lists/${recordId(c.req.param("id"))}`, { json: { name: (await formOf(c)).name ?? "" } });
    return done.ok ? c.redirect(`${PATHS.lists}?ok=list-renamed`, 303) : listsPage(c, done, statusFor(done));
  });
  app.post(`${PATHS.lists}/:id/delete`, async (c) => {
    const done = await c.get("v1").act("DELETE", `/v1/leads_lists/${recordId(c.req.param("id"))}`);
    return done.ok ? c.redirect(`${PATHS.lists}?ok=list-deleted`, 303) : listsPage(c, done, statusFor(done));
  });
}

import type { FC } from "hono/jsx";
import type { BulkJobData as Job } from "../../bulk/routes/job-schema.js";
import type { BulkTypeData as BulkType } from "../../bulk/routes/list-types.js";
import type { BulkProgress } from "../../bulk/routes/progress.js";
import type { BulkStats } from "../../bulk/routes/stats.js";
import { isolateValue } from "../../platform/isolate-state.js";
import { PATHS } from "../config.js";
import {
  type DashApp,
  type DashCtx,
  entryOf,
  flashError,
  fmt,
  render,
  statusFor,
  takeFlashError,
  when,
} from "../http.js";
import type { V1Answer, V1Client } from "../v1-client.js";
import { AppPage, Notice } from "../views/layout.js";
import { DataTable, PostButton, V1Error } from "../views/parts.js";

/** A job can be downloaded for this long after it was created (the spec's expired_at). */
const JOB_VALIDITY_DAYS = 180;
const ENDED = new Set(["completed", "failed", "cancelled"]);
const STATUS_BADGE: Record<string, string> = {
  completed: "ok",
  failed: "bad",
  cancelled: "warn",
  running: "",
  pending: "",
};

const DONE: Record<string, string> = {
  launch: "The job was launched.",
  cancel: "The job was cancelled.",
  retry: "The job runs again: rows that failed are tried once more.",
  archive: "The job was archived.",
  restore: "The job was restored from the archive.",
  delete: "The job and its files were deleted.",
};

/** Each button of a job and the /v1 route it calls. */
const ACTIONS: Record<string, { method: "PUT" | "POST" | "DELETE"; path: (t: string, id: number) => string }> = {
  launch: { method: "PUT", path: (t, id) => `/v1/bulk/${t}/${id}` },
  cancel: { method: "POST", path: (t, id) => `/v1/bulk/${t}/${id}/cancel` },
  retry: { method: "POST", path: (t, id) => `/v1/bulk/${t}/${id}/retry` },
  archive: { method: "DELETE", path: (t, id) => `/v1/bulk/${t}/${id}/archive` },
  restore: { method: "PUT", path: (t, id) => `/v1/bulk/${t}/${id}/restore` },
  delete: { method: "DELETE", path: (t, id) => `/v1/bulk/${t}/${id}/delete` },
};

/**
 * The bulk types, as GET /v1/bulk/types lists them: read once per isolate (they are derived from the
 * capability declarations, which change only with a deploy).
 */
const bulkTypes = isolateValue<Promise<BulkType[]>>("dashboardBulkTypes");
/** The bulk types, or the /v1 answer that refused them (an unconfirmed account: 401; nothing is kept then). */
async function typesOf(v1: V1Client): Promise<BulkType[] | V1Answer> {
  const known = bulkTypes.get();
  if (known) return known;
  const answer = await v1.read<{ data: BulkType[] }>("/v1/bulk/types");
  return answer.ok ? bulkTypes.set(Promise.resolve(answer.body.data)) : answer;
}
const typesOrNone = async (v1: V1Client) => {
  const read = await typesOf(v1);
  return Array.isArray(read) ? read : [];
};

const creditsText = (c: { search: number; verify: number; phone: number }) =>
  [
    c.search ? `${fmt(c.search)} search` : "",
    c.verify ? `${fmt(c.verify)} verification` : "",
    c.phone ? `${fmt(c.phone)} phone` : "",
  ]
    .filter(Boolean)
    .join(" + ")
    .concat(" credits")
    .replace(/^ credits$/, "no credits");
/**
 * A finished job's figures, on the outcome table's base (every row done) so the two agree; rows that
 * could not be looked up (invalid, duplicates, failed) are counted apart from those not found; and the
 * credits say why they can be fewer than the rows found.
 */
const BulkFigures: FC<{ m: Job["metrics"] }> = ({ m }) => {
  const ran = m.results.found + m.results.not_found;
  const done = m.distribution.rows.reduce((a, r) => a + r.count, 0);
  const share = (n: number, of: number) => (of > 0 ? `${Math.round((n / of) * 1000) / 10}%` : "–");
  const notRun = done - ran;
  const freeRepeats = Math.max(0, m.results.found - m.credits.total);
  return (
    <>
      {ran === 0 ? (
        <Notice kind="warning">
          No row could be looked up: every row failed or was invalid. The table below says why; nothing was billed.
        </Notice>
      ) : null}
      <dl class="facts">
        <dt>Found</dt>
        <dd>
          {fmt(m.results.found)} of {fmt(done)} rows ({share(m.results.found, done)})
        </dd>
        <dt>Not found</dt>
        <dd>{fmt(m.results.not_found)}</dd>
        <dt>Not looked up</dt>
        <dd>
          {fmt(notRun)}
          {notRun > 0
            ? `: ${fmt(m.rows.invalid_input)} invalid, ${fmt(m.rows.duplicates)} duplicates, ${fmt(m.rows.errors)} failed`
            : ""}
        </dd>
        <dt>Credits used</dt>
        <dd>{fmt(m.credits.total)}</dd>
      </dl>
      <p class="hint">
        A row costs credits only when something is found. Rows that were not looked up cost nothing, and a lookup
        already billed in the last 30 days (here, in Try it or through the API) is free
        {freeRepeats > 0
          ? `: ${fmt(freeRepeats)} found ${freeRepeats === 1 ? "row was such a repeat" : "rows were such repeats"}`
          : ""}
        .
      </p>
    </>
  );
};

const typeName = (s: string | undefined) => (s && /^[a-z-]{1,40}$/.test(s) ? s : null);
const jobId = (s: string | undefined) => (s && /^\d{1,15}$/.test(s) ? Number(s) : null);
const jobHref = (type: string, id: number) => `${PATHS.bulk}/${type}/${id}`;

async function listPage(c: DashCtx, problem = takeFlashError(c), status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const v1 = c.get("v1");
  const types = await typesOf(v1);
  if (!Array.isArray(types))
    return render(
      c,
      <AppPage title="Bulk" session={session} active="bulk">
        <V1Error answer={types} />
      </AppPage>,
      statusFor(types),
    );
  const chosen =
    types.find((t) => t.type === typeName(c.req.param("type") ?? c.req.query("type"))) ??
    types.find((t) => t.type === "finder") ??
    types[0];
  const archived = c.req.query("archived") === "true";
  // The types the account has jobs of (created within a job's validity), then one list per such
  // type (newest first), merged: the page shows the account's latest jobs of every type.
  const since = new Date(Date.now() - JOB_VALIDITY_DAYS * 86_400_000).toISOString().slice(0, 10);
  const stats = await v1.read<{ data: BulkStats }>("/v1/bulk/stats", { from: since });
  const used = stats.ok ? stats.body.data.by_type.map((t) => t.type) : types.map((t) => t.type);
  const lists = await Promise.all(
    used.map((t) => v1.read<{ data: Job[] }>(`/v1/bulk/${t}`, { limit: 20, archived: archived ? "true" : undefined })),
  );
  const jobs = lists
    .flatMap((l) => (l.ok ? l.body.data : []))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id)
    .slice(0, 30);
  const labels = new Map(types.map((t) => [t.type, t.label]));
  return render(
    c,
    <AppPage title="Bulk" session={session} active="bulk" script>
      {c.req.query("ok") === "delete" ? <Notice kind="success">{DONE.delete}</Notice> : null}
      <V1Error answer={problem} />
      <section class="card" aria-labelledby="upload-h">
        <h2 id="upload-h">Upload a CSV</h2>
        <form method="get" action={PATHS.bulk} class="row">
          <div>
            <label for="bulk-type">What to do with each row</label>
            <select id="bulk-type" name="type">
              {types.map((t) => (
                <option value={t.type} selected={t.type === chosen?.type}>
                  {t.label}
                  {t.credit_cost ? ` (${t.credit_cost.amount} ${t.credit_cost.balance} credit a row found)` : ""}
                </option>
              ))}
            </select>
          </div>
          <div class="shrink">
            <button type="submit">Choose</button>
          </div>
        </form>
        {chosen ? (
          <form
            id="bulk-upload"
            method="post"
            enctype="multipart/form-data"
            action={`${PATHS.bulk}/upload/${chosen.type}?csrf=${encodeURIComponent(session.csrf)}`}
            data-columns-url={`${PATHS.bulk}/columns/${chosen.type}`}
          >
            <p class="muted">{chosen.description}</p>
            <p class="hint">
              Columns it reads: {chosen.fields.map((f) => f.label).join(", ")}. Up to {fmt(chosen.max_rows)} rows.
            </p>
            <label for="job-name">Job name</label>
            <input id="job-name" name="name" type="text" required minlength={3} maxlength={200} />
            <div class="dropzone">
              <label for="job-file">CSV file</label>
              <p class="hint" id="file-hint">
                Drop the file here, or choose it. The first row names the columns.
              </p>
              <input
                id="job-file"
                name="file"
                type="file"
                accept=".csv,text/csv"
                required
                aria-describedby="file-hint"
              />
            </div>
            <div id="column-preview" aria-live="polite"></div>
            <div class="actions">
              <button class="primary" type="submit">
                Upload
              </button>
              <span class="hint">Nothing runs yet: you see the estimate first, then launch.</span>
            </div>
          </form>
        ) : null}
      </section>
      <section aria-labelledby="jobs-h">
        <h2 id="jobs-h">{archived ? "Archived jobs" : "Jobs"}</h2>
        <p>
          <a href={archived ? PATHS.bulk : `${PATHS.bulk}?archived=true`}>
            {archived ? "Show current jobs" : "Show archived jobs"}
          </a>
        </p>
        {jobs.length === 0 ? (
          <p class="muted">No jobs yet.</p>
        ) : (
          <DataTable label="Bulk jobs" columns={["Name", "Type", "Status", "Rows #", "Created"]}>
            {jobs.map((j) => (
              <tr>
                <td>
                  <a href={jobHref(j.bulk_type, j.id)}>{j.name}</a>
                </td>
                <td>{labels.get(j.bulk_type) ?? j.bulk_type}</td>
                <td>
                  <span class={`badge ${STATUS_BADGE[j.status] ?? ""}`}>{j.status}</span>{" "}
                  {j.status === "running" ? `${j.progress}%` : ""}
                </td>
                <td class="num">{fmt(j.config?.input?.rows)}</td>
                <td>{when(j.created_at)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </AppPage>,
    status,
  );
}

/** What can change while the job runs: status, progress, actions and results (replaced in place by the script). */
const JobLive: FC<{ csrf: string; job: Job; type: BulkType | undefined; estimate: V1Answer | null }> = ({
  csrf,
  job,
  type,
  estimate,
}) => {
  const running = job.status === "running";
  const ended = ENDED.has(job.status);
  const m = job.metrics;
  const e = estimate?.ok ? estimate.body.data : null;
  return (
    <div id="job-live" data-progress-url={running ? `${jobHref(job.bulk_type, job.id)}/progress` : undefined}>
      <section class="card" aria-labelledby="status-h">
        <h2 id="status-h">
          Status: <span class={`badge ${STATUS_BADGE[job.status] ?? ""}`}>{job.status}</span>
          {job.archived ? <span class="badge"> archived</span> : null}
        </h2>
        {job.status !== "pending" ? (
          <div class="meter">
            <progress max={100} value={job.progress} aria-label="Rows done">
              {job.progress}%
            </progress>
            <p data-progress-line>
              {fmt(job.processed)} of {fmt(job.config.input.rows)} rows ({job.progress}%)
            </p>
          </div>
        ) : null}
        {job.error_message ? <Notice kind="error">{job.error_message}</Notice> : null}
        {job.summary ? (
          <p>
            <strong>Summary:</strong> {job.summary}
          </p>
        ) : null}
        {e ? (
          <div class={e.sufficient === false ? "warning" : "notice"}>
            <strong>Estimate:</strong> {fmt(e.rows)} rows to run, at most {creditsText(e.credits)}. {e.note}
            {e.remaining
              ? ` You have ${fmt(e.remaining.search)} search, ${fmt(e.remaining.verify)} verification and ${fmt(e.remaining.phone)} phone credits.`
              : ""}
            {e.sufficient === false ? " That is not enough for every row: the job stops when the credits run out." : ""}
          </div>
        ) : null}
        <div class="actions">
          {job.status === "pending" && !job.expired ? (
            <PostButton csrf={csrf} action={`${jobHref(job.bulk_type, job.id)}/launch`} label="Launch" kind="primary" />
          ) : null}
          {running ? (
            <PostButton
              csrf={csrf}
              action={`${jobHref(job.bulk_type, job.id)}/cancel`}
              label="Cancel"
              kind="danger"
              confirm="Cancel this job? Rows already done stay done."
            />
          ) : null}
          {(job.status === "failed" || job.status === "cancelled") && !job.expired ? (
            <PostButton csrf={csrf} action={`${jobHref(job.bulk_type, job.id)}/retry`} label="Retry" />
          ) : null}
          {!running ? (
            job.archived ? (
              <PostButton csrf={csrf} action={`${jobHref(job.bulk_type, job.id)}/restore`} label="Restore" />
            ) : (
              <PostButton csrf={csrf} action={`${jobHref(job.bulk_type, job.id)}/archive`} label="Archive" />
            )
          ) : null}
          {!running ? (
            <PostButton
              csrf={csrf}
              action={`${jobHref(job.bulk_type, job.id)}/delete`}
              label="Delete"
              kind="danger"
              confirm="Delete this job and its files for good?"
            />
          ) : null}
        </div>
      </section>
      {ended && job.processed > 0 ? (
        <section class="card" aria-labelledby="results-h">
          <h2 id="results-h">Results</h2>
          <div class="actions">
            {(type?.downloads ?? ["full"]).map((f) => (
              <a
                class={f === "full" ? "btn primary" : "btn"}
                href={`${jobHref(job.bulk_type, job.id)}/download?file=${f}`}
                download
              >
                Download {f === "full" ? "all rows" : f === "valid" ? "rows found" : "rows without a result"} (CSV)
              </a>
            ))}
          </div>
          <BulkFigures m={m} />
        </section>
      ) : null}
      {m.distribution.rows.length ? (
        <section class="card" aria-labelledby="reasons-h">
          <h2 id="reasons-h">What became of the rows</h2>
          <DataTable label="Rows by outcome" columns={["Outcome", "Rows #", "Share #"]}>
            {m.distribution.rows.map((r) => (
              <tr>
                <td>{r.label}</td>
                <td class="num">{fmt(r.count)}</td>
                <td class="num">{Math.round(r.percent * 10) / 10}%</td>
              </tr>
            ))}
          </DataTable>
          <p class="hint">
            Read: {fmt(m.rows.input)} rows · to run {fmt(m.rows.valid_input)} · invalid {fmt(m.rows.invalid_input)} ·
            duplicates {fmt(m.rows.duplicates)} · skipped {fmt(m.rows.skipped)}
          </p>
        </section>
      ) : null}
    </div>
  );
};

async function jobPage(c: DashCtx, problem?: V1Answer, status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const v1 = c.get("v1");
  const type = typeName(c.req.param("type"));
  const id = jobId(c.req.param("id"));
  if (!type || id === null) return c.notFound();
  const [answer, types] = await Promise.all([v1.read<{ data: Job }>(`/v1/bulk/${type}/${id}`), typesOrNone(v1)]);
  if (!answer.ok) {
    return render(
      c,
      <AppPage title="Bulk job" session={session} active="bulk">
        <V1Error answer={answer} />
        <p>
          <a href={PATHS.bulk}>All jobs</a>
        </p>
      </AppPage>,
      statusFor(answer),
    );
  }
  const job = answer.body.data;
  const estimate = job.status === "pending" ? await v1.read(`/v1/bulk/${type}/${id}/estimate`) : null;
  const bulkType = types.find((t) => t.type === job.bulk_type);
  const fieldLabel = new Map(bulkType?.fields.map((f) => [f.field, f.label]) ?? []);
  const code = c.req.query("ok");
  // "Launched" is news only while the job has not ended (the script swaps the page in place when it does).
  const ok = code === "launch" && ENDED.has(job.status) ? undefined : entryOf(DONE, code);
  return render(
    c,
    <AppPage title={job.name} session={session} active="bulk" script>
      <p>
        <a href={PATHS.bulk}>All jobs</a>
      </p>
      {ok ? <Notice kind="success">{ok}</Notice> : null}
      <V1Error answer={problem} />
      <section class="card" aria-labelledby="job-h">
        <h2 id="job-h">{bulkType?.label ?? job.bulk_type}</h2>
        <dl class="facts">
          <dt>File</dt>
          <dd>{job.config.input.original_file_name ?? job.config.input.source}</dd>
          <dt>Rows</dt>
          <dd>{fmt(job.config.input.rows)}</dd>
          <dt>Columns used</dt>
          <dd>
            {Object.entries(job.config.input.fields)
              .map(([field, at]) => `${fieldLabel.get(field) ?? field}: column ${at + 1}`)
              .join(" · ")}
          </dd>
          <dt>Created</dt>
          <dd>{when(job.created_at)}</dd>
          <dt>Expires</dt>
          <dd>{job.expired ? <span class="badge bad">expired</span> : when(job.expired_at)}</dd>
        </dl>
      </section>
      <JobLive csrf={session.csrf} job={job} type={bulkType} estimate={estimate} />
    </AppPage>,
    status,
  );
}

export function registerBulkPages(app: DashApp) {
  app.get(PATHS.bulk, (c) => listPage(c));

  // The upload form's column preview (the page's script): POST /v1/bulk/{type}/columns, and the type's columns.
  app.post(`${PATHS.bulk}/columns/:type`, async (c) => {
    const type = typeName(c.req.param("type"));
    const body = (await c.req.json().catch(() => null)) as { text?: unknown } | null;
    if (!type || typeof body?.text !== "string") return c.json({ error: "Send the file's first lines as text." }, 400);
    const v1 = c.get("v1");
    const [answer, types] = await Promise.all([
      v1.act("POST", `/v1/bulk/${type}/columns`, { json: { text: body.text }, pageRead: true }),
      typesOrNone(v1),
    ]);
    if (!answer.ok) return c.json({ error: answer.error.message }, answer.status === 413 ? 413 : 400);
    const choices = (types.find((t) => t.type === type)?.fields ?? []).map((f) => ({ field: f.field, label: f.label }));
    return c.json({ ...answer.body.data, choices });
  });

  // The file streams through to POST /v1/bulk/{type} as it arrives (never held here); the CSRF token rides in the query.
  app.post(`${PATHS.bulk}/upload/:type`, async (c) => {
    const type = typeName(c.req.param("type"));
    if (!type) return c.notFound();
    const contentType = c.req.header("content-type") ?? "";
    const created = contentType.startsWith("multipart/form-data")
      ? await c.get("v1").act<{ data: { id: number } }>("POST", `/v1/bulk/${type}`, {
          body: { stream: c.req.raw.body, contentType, contentLength: c.req.header("content-length") ?? null },
        })
      : null;
    if (created?.ok) return c.redirect(jobHref(type, created.body.data.id), 303);
    // Shown on the bulk page, not here: this address carries the CSRF token in its query.
    if (created) flashError(c, created);
    return c.redirect(`${PATHS.bulk}?type=${type}`, 303);
  });

  app.get(`${PATHS.bulk}/:type/:id`, (c) => jobPage(c));

  app.get(`${PATHS.bulk}/:type/:id/progress`, async (c) => {
    const type = typeName(c.req.param("type"));
    const id = jobId(c.req.param("id"));
    if (!type || id === null) return c.notFound();
    const answer = await c.get("v1").read<BulkProgress>(`/v1/bulk/${type}/${id}/progress`);
    if (!answer.ok) return c.json({ error: answer.error.message }, answer.status === 404 ? 404 : 400);
    const { metrics: _metrics, ...progress } = answer.body;
    return c.json(progress);
  });

  app.get(`${PATHS.bulk}/:type/:id/download`, async (c) => {
    const type = typeName(c.req.param("type"));
    const id = jobId(c.req.param("id"));
    if (!type || id === null) return c.notFound();
    const asked = c.req.query("file");
    const file = asked !== undefined && ["full", "valid", "not_found"].includes(asked) ? asked : "full";
    const res = await c.get("v1").stream(`/v1/bulk/${type}/${id}/download`, { file });
    if (!res.ok) {
      const body = (await res.json().catch(() => null)) as { errors?: { message?: string } } | null;
      return c.text(body?.errors?.message ?? `The download failed (${res.status}).`, res.status === 404 ? 404 : 409);
    }
    const headers = new Headers({
      "content-type": res.headers.get("content-type") ?? "text/csv; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    headers.set(
      "content-disposition",
      res.headers.get("content-disposition") ?? `attachment; filename="bulk-${type}-${id}-${file}.csv"`,
    );
    return new Response(res.body, { status: 200, headers });
  });

  app.post(`${PATHS.bulk}/:type/:id/:action`, async (c) => {
    const type = typeName(c.req.param("type"));
    const id = jobId(c.req.param("id"));
    const action = entryOf(ACTIONS, c.req.param("action"));
    if (!type || id === null || !action) return c.notFound();
    const done = await c.get("v1").act(action.method, action.path(type, id));
    if (!done.ok) return jobPage(c, done, statusFor(done));
    return c.redirect(
      c.req.param("action") === "delete"
        ? `${PATHS.bulk}?ok=delete`
        : `${jobHref(type, id)}?ok=${c.req.param("action")}`,
      303,
    );
  });
}

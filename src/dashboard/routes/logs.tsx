import type { LogEntry } from "../../account/routes/logs/shared.js";
import type { Team } from "../../account/routes/team.js";
import { PATHS } from "../config.js";
import { type DashApp, fmt, render, statusFor, when } from "../http.js";
import { AppPage, Pager } from "../views/layout.js";
import { LOG_TYPES } from "../views/names.js";
import { DataTable, V1Error } from "../views/parts.js";

/** The filters GET /v1/logs takes, passed through as they are: /v1 validates them. */
const FILTERS = ["type", "status_code", "start", "end"] as const;

export function registerLogPages(app: DashApp) {
  app.get(PATHS.logs, async (c) => {
    const session = c.get("session");
    const q = Object.fromEntries(FILTERS.map((f) => [f, (c.req.query(f) ?? "").trim()])) as Record<
      (typeof FILTERS)[number],
      string
    >;
    const page = Math.max(1, Number(c.req.query("page")) || 1);
    const [answer, team] = await Promise.all([
      c.get("v1").read<{ data: LogEntry[]; meta: { total: number; total_pages: number } }>("/v1/logs", {
        ...q,
        page,
        limit: 50,
      }),
      c.get("v1").read<Team>("/v1/team"),
    ]);
    // Who made each request: the owner or a team member (the log keeps the member's account id).
    const people = new Map(
      team.ok ? [team.body.data.owner, ...team.body.data.members].map((p) => [p.id, p.email]) : [],
    );
    const showWho = people.size > 1;
    const href = (p: number) =>
      `${PATHS.logs}?${new URLSearchParams({ ...Object.fromEntries(Object.entries(q).filter(([, v]) => v)), page: String(p) })}`;
    return render(
      c,
      <AppPage title="Request logs" session={session} active="logs">
        <p class="muted">
          The last 1,000 requests of the last 3 months, from your keys, apps, bulk jobs and this dashboard (its page
          views are not logged).
        </p>
        <form method="get" action={PATHS.logs} class="card">
          <div class="row">
            <div>
              <label for="f-type">What</label>
              <select id="f-type" name="type">
                <option value="">Every request</option>
                {/* The names the overview shows; a path typed into the URL (?type=keys) still filters as /v1 does. */}
                {(LOG_TYPES.includes(q.type) || !q.type ? LOG_TYPES : [q.type, ...LOG_TYPES]).map((t) => (
                  <option value={t} selected={t === q.type}>
                    {t}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label for="f-status">Status code</label>
              <input id="f-status" name="status_code" type="number" min={100} max={599} value={q.status_code} />
            </div>
            <div>
              <label for="f-start">From</label>
              <input id="f-start" name="start" type="date" value={q.start} />
            </div>
            <div>
              <label for="f-end">To</label>
              <input id="f-end" name="end" type="date" value={q.end} />
            </div>
            <div class="shrink">
              <button type="submit" class="primary">
                Filter
              </button>
            </div>
          </div>
        </form>
        <V1Error answer={answer} />
        {answer.ok && answer.body.data.length === 0 ? (
          <p class="muted">
            {Object.values(q).some(Boolean)
              ? "No request matches these filters."
              : "No requests yet. Calls made with your keys, apps, bulk jobs and Try it show here."}
          </p>
        ) : null}
        {answer.ok && answer.body.data.length > 0 ? (
          <>
            <DataTable
              label="Requests"
              columns={["When", "Request", "Status #", "Time #", "Type", "From", ...(showWho ? ["By"] : []), "Billed"]}
            >
              {answer.body.data.map((l) => (
                <tr>
                  <td class="nowrap">{when(l.created_at)}</td>
                  <td>
                    <code>
                      {l.http_method} {l.uri}
                    </code>
                  </td>
                  <td class="num">
                    <span class={`badge ${l.status_code < 300 ? "ok" : l.status_code < 500 ? "warn" : "bad"}`}>
                      {l.status_code}
                    </span>
                  </td>
                  <td class="num">{fmt(l.duration_ms)} ms</td>
                  <td>{l.type}</td>
                  <td>
                    {l.source}
                    {l.api_key_id !== null ? <span class="muted"> · key {l.api_key_id}</span> : null}
                  </td>
                  {showWho ? <td>{people.get(l.user_id) ?? "a former member"}</td> : null}
                  <td>{l.cost ? "yes" : "no"}</td>
                </tr>
              ))}
            </DataTable>
            <Pager page={page} pages={answer.body.meta.total_pages} total={answer.body.meta.total} href={href} />
          </>
        ) : null}
      </AppPage>,
      answer.ok ? 200 : statusFor(answer),
    );
  });
}

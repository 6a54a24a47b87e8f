import type { FC } from "hono/jsx";
import type { MeData } from "../../account/routes/me.js";
import type { RateLimits, RateWindow } from "../../account/routes/rate-limits.js";
import type { Usage } from "../../account/routes/usage.js";
import type { BulkStats } from "../../bulk/routes/stats.js";
import { PATHS } from "../config.js";
import { type DashApp, entryOf, fmt, render } from "../http.js";
import type { Session } from "../session.js";
import type { V1Answer } from "../v1-client.js";
import { DailyBars } from "../views/chart.js";
import { AppPage, Csrf, Notice } from "../views/layout.js";
import { RATE_GROUP_NAMES } from "../views/names.js";
import { DataTable, V1Error } from "../views/parts.js";

/** Usage buckets of GET /v1/usage shown in the chart, in its order, named for what people ran. */
const USAGE_SERIES: { key: keyof Usage["total"]; label: string }[] = [
  { key: "search", label: "Finders and enrichment" },
  { key: "verifier", label: "Email verifications" },
  { key: "phones", label: "Phone lookups" },
  { key: "sources", label: "Email sources" },
  { key: "similar", label: "Similar companies" },
  { key: "technologies", label: "Technology lookups" },
  { key: "email_count", label: "Email counts" },
];

const BALANCES = [
  { key: "search", label: "Search credits", hint: "finders, domain search, enrichment" },
  { key: "verification", label: "Verification credits", hint: "email verifications" },
  { key: "phone", label: "Phone credits", hint: "phone finder and validator" },
] as const;

/** What an action that redirected here reports. A new account's welcome is said by the confirm step itself. */
const NOTICES: Record<string, [string, "success" | "error"]> = {
  confirmed: ["Your email address is confirmed. Everything is unlocked.", "success"],
  joined: ["You joined the team: what you do here uses the team's account.", "success"],
  "password-reset": ["Your new password is saved. Other sessions were signed out.", "success"],
  "mail-throttled": ["Too many messages were sent to this address in the last hour. Try again later.", "error"],
  "mail-failed": ["The message could not be sent. Try again in a few minutes.", "error"],
};

const limitText = (w: RateWindow | null) =>
  !w ? "–" : w.limit === 0 ? `${fmt(w.used)} (no limit)` : `${fmt(w.used)} of ${fmt(w.limit)}`;

interface Step {
  done: boolean;
  label: string;
  href: string;
  action: string;
}

/** The four things a new account does first, each done when the account's data says so. */
const Checklist: FC<{ steps: Step[] }> = ({ steps }) => (
  <section class="card" aria-labelledby="start-h">
    <h2 id="start-h">Get started</h2>
    <p class="muted">
      {steps.filter((s) => s.done).length} of {steps.length} done
    </p>
    <ol class="steps">
      {steps.map((s) => (
        <li>
          <span class="tick" aria-hidden="true">
            {s.done ? "✓" : "○"}
          </span>
          {s.done ? (
            <span class="done">
              {s.label}
              <span class="sr-only"> (done)</span>
            </span>
          ) : (
            <span>
              {s.label} · <a href={s.href}>{s.action}</a>
            </span>
          )}
        </li>
      ))}
    </ol>
  </section>
);

/** The box Hunter-style homes open with: a company's website, answered with its people. */
const DomainSearch: FC<{ session: Session }> = ({ session }) => (
  <section class="card" aria-labelledby="find-h">
    <h2 id="find-h">Find the people at a company</h2>
    <form method="post" action={PATHS.tryIt} class="hero">
      <Csrf token={session.csrf} />
      <input type="hidden" name="capability" value="domain-search" />
      <div>
        <label for="find-domain">Company website</label>
        <input id="find-domain" name="domain" type="text" placeholder="stripe.com" required />
      </div>
      <button type="submit" class="primary">
        Search
      </button>
    </form>
    <p class="hint">
      Costs one search credit when addresses are found. More searches on <a href={PATHS.tryIt}>Try it</a>.
    </p>
  </section>
);

const count = (a: V1Answer, read: (body: never) => number) => (a.ok ? read(a.body as never) : 0);

export function registerOverviewPages(app: DashApp) {
  app.get(PATHS.overview, async (c) => {
    const session = c.get("session");
    const v1 = c.get("v1");
    const [me, limits, usage, keys, bulk] = await Promise.all([
      v1.read<{ data: MeData }>("/v1/me"),
      v1.read<RateLimits>("/v1/rate-limits"),
      v1.read<Usage>("/v1/usage"),
      v1.read("/v1/keys"),
      v1.read<{ data: BulkStats }>("/v1/bulk/stats"),
    ]);
    const notice = entryOf(NOTICES, c.req.query("ok") ?? c.req.query("error"));
    // Unconfirmed is an expected state the layout says once; a failure beyond it is shown as one.
    const failed = session.confirmed ? [me, limits, usage].find((a) => !a.ok) : undefined;
    const data = me.ok ? me.body.data : null;
    const days = usage.ok ? [...usage.body.data].reverse() : [];
    const used = (limits.ok ? Object.entries(limits.body.data) : []).filter(
      ([key, r]) => r.enforced && key !== "me" && (r.daily?.used ?? 0) > 0,
    );
    const searches = usage.ok ? USAGE_SERIES.reduce((n, s) => n + usage.body.total[s.key], 0) : 0;
    const steps: Step[] = [
      { done: session.confirmed, label: "Confirm your email address", href: "#confirm", action: "see above" },
      {
        done: count(keys, (b: { data: { keys: unknown[] } }) => b.data.keys.length) > 0,
        label: "Create your first API key",
        href: PATHS.keys,
        action: "Create a key",
      },
      {
        done: searches > 0 || used.length > 0,
        label: "Run your first search",
        href: PATHS.tryIt,
        action: "Try it",
      },
      {
        done: count(bulk, (b: { data: BulkStats }) => b.data.jobs.total) > 0,
        label: "Upload your first list",
        href: PATHS.bulk,
        action: "Start a bulk job",
      },
    ];
    return render(
      c,
      <AppPage title="Overview" session={session} active="overview" unconfirmedNote={c.req.query("ok")}>
        {notice ? <Notice kind={notice[1]}>{notice[0]}</Notice> : null}
        <V1Error answer={failed} />
        {steps.some((s) => !s.done) ? <Checklist steps={steps} /> : null}
        {session.confirmed ? <DomainSearch session={session} /> : null}
        {data ? (
          <div class="grid">
            <section class="card" aria-labelledby="plan-h">
              <h2 id="plan-h">Plan</h2>
              <p class="stat">{data.pricing.name}</p>
              <p class="muted">
                {Number(data.pricing.price_monthly) === 0 ? "No charge" : `$${data.pricing.price_monthly} a month`}
                {data.expired_subscription ? ` · renews ${data.expired_subscription.slice(0, 10)}` : ""}
              </p>
              <p class="hint">
                Up to {fmt(data.pricing.available_keys)} API keys and {fmt(data.pricing.available_leads)} leads.{" "}
                <a href={PATHS.plans}>Plans and credits</a>
              </p>
            </section>
            {BALANCES.map((b) => {
              const v = data.credits[b.key] as { available: number; used: number; allowance: number };
              return (
                <section class="card" aria-labelledby={`bal-${b.key}`}>
                  <h2 id={`bal-${b.key}`}>{b.label}</h2>
                  <p class="stat">
                    {fmt(v.available)} <span class="muted">left</span>
                  </p>
                  <div class="meter">
                    <progress
                      max={Math.max(1, v.allowance)}
                      value={Math.min(v.used, v.allowance)}
                      aria-label={`${b.label} used this month`}
                    >
                      {fmt(v.used)}
                    </progress>
                  </div>
                  <p class="muted">
                    {fmt(v.used)} used of {fmt(v.allowance)} this month · {b.hint}
                  </p>
                </section>
              );
            })}
          </div>
        ) : null}
        {usage.ok ? (
          <section class="card" aria-labelledby="usage-h">
            <h2 id="usage-h">Usage, last 30 days</h2>
            {searches === 0 ? (
              <p class="muted">
                Nothing billed yet. Searches that find something show here; <a href={PATHS.tryIt}>run one</a>.
              </p>
            ) : (
              <>
                <DailyBars
                  label="Billed searches by kind"
                  series={USAGE_SERIES}
                  days={days.map((d) => ({
                    day: d.created_at,
                    counts: Object.fromEntries(USAGE_SERIES.map((s) => [s.key, d[s.key]])),
                  }))}
                />
                <p class="hint">
                  From the API {fmt(usage.body.total.source_api)} · this dashboard{" "}
                  {fmt(usage.body.total.source_website)} · bulk jobs {fmt(usage.body.total.source_bulk)}
                </p>
              </>
            )}
          </section>
        ) : null}
        {limits.ok ? (
          <section class="card" aria-labelledby="limits-h">
            <h2 id="limits-h">Today's use and limits</h2>
            {used.length === 0 ? (
              <p class="muted">No searches yet today. Your plan's limits apply per second, minute and day.</p>
            ) : (
              <>
                <p class="hint">
                  Shared by every key, app and member of the account. Each name opens its requests in the{" "}
                  <a href={PATHS.logs}>request logs</a>.
                </p>
                <DataTable label="Today's use" columns={["What", "This second #", "This minute #", "Today #"]}>
                  {used.map(([key, r]) => {
                    const name = RATE_GROUP_NAMES[key] ?? key;
                    return (
                      <tr>
                        <th scope="row">
                          <a href={`${PATHS.logs}?${new URLSearchParams({ type: name.logType })}`}>{name.label}</a>
                        </th>
                        <td class="num">{limitText(r.second)}</td>
                        <td class="num">{limitText(r.minute)}</td>
                        <td class="num">{limitText(r.daily)}</td>
                      </tr>
                    );
                  })}
                </DataTable>
              </>
            )}
          </section>
        ) : null}
      </AppPage>,
    );
  });
}

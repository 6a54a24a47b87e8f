import { PATHS } from "../config.js";
import { type DashApp, entryOf, fmt, render } from "../http.js";
import { DailyBars } from "../views/chart.js";
import { AppPage, Notice } from "../views/layout.js";
import { DataTable, V1Error } from "../views/parts.js";

/** Usage buckets of GET /v1/usage shown in the chart, in its order. */
const USAGE_SERIES = [
  { key: "search", label: "Searches" },
  { key: "verifier", label: "Verifications" },
  { key: "phones", label: "Phones" },
  { key: "sources", label: "Sources" },
  { key: "similar", label: "Similar" },
  { key: "technologies", label: "Technologies" },
  { key: "email_count", label: "Email count" },
];

const BALANCES = [
  { key: "search", label: "Search credits" },
  { key: "verification", label: "Verification credits" },
  { key: "phone", label: "Phone credits" },
] as const;

const NOTICES: Record<string, [string, "success" | "error"]> = {
  welcome: ["Your account is ready. We sent you a link to confirm your email address.", "success"],
  confirmed: ["Your email address is confirmed: the API now answers this account.", "success"],
  "confirmation-sent": ["We sent a new confirmation link.", "success"],
  "password-reset": ["Your new password is saved. Other sessions were signed out.", "success"],
  "mail-throttled": ["Too many messages were sent to this address in the last hour. Try again later.", "error"],
  "mail-failed": ["The message could not be sent. Try again in a few minutes.", "error"],
};

interface Window {
  limit: number;
  used: number;
}
interface RateRow {
  enforced: boolean;
  group?: string;
  second?: Window;
  minute?: Window;
  daily?: Window;
}

const limitText = (w: Window | undefined) =>
  !w ? "–" : w.limit === 0 ? `${fmt(w.used)} (no limit)` : `${fmt(w.used)} of ${fmt(w.limit)}`;

export function registerOverviewRoutes(app: DashApp) {
  app.get(PATHS.overview, async (c) => {
    const session = c.get("session");
    const v1 = c.get("v1");
    const [me, limits, usage] = await Promise.all([
      v1.read("/v1/me"),
      v1.read("/v1/rate-limits"),
      v1.read("/v1/usage"),
    ]);
    const notice = entryOf(NOTICES, c.req.query("ok") ?? c.req.query("error"));
    const failed = [me, limits, usage].find((a) => !a.ok);
    const data = me.ok ? me.body.data : null;
    const days = usage.ok
      ? [...(usage.body.data as { created_at: string; [k: string]: number | string }[])].reverse()
      : [];
    const rows = limits.ok
      ? (Object.entries(limits.body.data) as [string, RateRow][]).filter(([, r]) => r.enforced)
      : [];
    return render(
      c,
      <AppPage title="Overview" session={session} active="overview">
        {notice ? <Notice kind={notice[1]}>{notice[0]}</Notice> : null}
        <V1Error answer={failed} />
        {data ? (
          <div class="grid">
            <section class="card" aria-labelledby="plan-h">
              <h2 id="plan-h">Plan</h2>
              <p class="stat">{data.pricing.name}</p>
              <p class="muted">
                {data.pricing.price_monthly === "0" ? "Free" : `$${data.pricing.price_monthly} a month`}
                {data.expired_subscription ? ` · renews ${data.expired_subscription.slice(0, 10)}` : ""}
              </p>
              <p class="hint">
                Up to {fmt(data.pricing.available_keys)} API keys, {fmt(data.pricing.available_leads)} leads.
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
                    {fmt(v.used)} used of {fmt(v.allowance)} this month
                  </p>
                </section>
              );
            })}
          </div>
        ) : null}
        <section class="card" aria-labelledby="usage-h">
          <h2 id="usage-h">Usage, last 30 days</h2>
          {usage.ok ? (
            <DailyBars
              label="Billed calls by capability"
              series={USAGE_SERIES}
              days={days.map((d) => ({ day: d.created_at as string, counts: d as unknown as Record<string, number> }))}
            />
          ) : (
            <p class="muted">Not available.</p>
          )}
          {usage.ok ? (
            <p class="hint">
              From the API {fmt(usage.body.total.source_api)} · this dashboard {fmt(usage.body.total.source_website)} ·
              bulk jobs {fmt(usage.body.total.source_bulk)}
            </p>
          ) : null}
        </section>
        <section class="card" aria-labelledby="limits-h">
          <h2 id="limits-h">Rate limits and today's use</h2>
          <p class="hint">
            Shared by every key, app and member of the account. "searches" counts the calls made from the{" "}
            <a href={PATHS.tryIt}>Try it</a> page.
          </p>
          <DataTable label="Rate limits" columns={["Endpoint", "This second #", "This minute #", "Today #"]}>
            {rows.map(([key, r]) => (
              <tr>
                <th scope="row">
                  <code>{key}</code>
                </th>
                <td class="num">{limitText(r.second)}</td>
                <td class="num">{limitText(r.minute)}</td>
                <td class="num">{limitText(r.daily)}</td>
              </tr>
            ))}
          </DataTable>
        </section>
      </AppPage>,
    );
  });
}

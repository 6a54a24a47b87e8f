import { z } from "@hono/zod-openapi";
import type { MeData } from "../../account/routes/me.js";
import type { Team } from "../../account/routes/team.js";
import type { Purchase as Receipt } from "../../agent/routes/purchases.js";
import { PLAN_NAMES, PLANS } from "../../limits/plans.js";
import { CREDIT_PACKS } from "../../platform/credit-packs.js";
import { PATHS } from "../config.js";
import { devWalletAvailable, payWithDevWallet } from "../dev-wallet.js";
import { firstIssue } from "../forms.js";
import { type DashApp, type DashCtx, fmt, formOf, render, statusFor, when } from "../http.js";
import type { V1Answer } from "../v1-client.js";
import { AppPage, Csrf, Notice } from "../views/layout.js";
import { DataTable, Done, V1Error } from "../views/parts.js";

/**
 * Plans and credits (/app/plans): the plans side by side, the credit packs, and the receipts; every
 * change goes through /v1 (POST /v1/plan, POST /v1/credit-packs/{pack}: src/agent/routes/purchases.ts),
 * paid with MPP like the agent surface. Outside production the page pays with the development
 * wallet (dev-wallet.ts); in production it says how to pay from an MPP client.
 */

const PLANS_DONE: Record<string, string> = {
  plan: "Your plan is changed. The receipt is below.",
  free: "You are on the Free plan now.",
  pack: "The credits are on your account. The receipt is below.",
};

/** The plans a person picks from here (Enterprise is arranged with us). */
const SHOWN = PLAN_NAMES.filter((p) => p !== "enterprise");

const ChangePlan = z.strictObject({ csrf: z.string(), plan: z.enum(PLAN_NAMES, { message: "Choose a plan." }) });

async function plansPage(c: DashCtx, problem?: V1Answer, status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const v1 = c.get("v1");
  const [me, receipts, team] = await Promise.all([
    v1.read<{ data: MeData }>("/v1/me"),
    v1.read<{ data: Receipt[] }>("/v1/purchases"),
    v1.read<Team>("/v1/team"),
  ]);
  const current = me.ok ? (me.body.data.pricing.name as string).toLowerCase() : null;
  const owner = team.ok && team.body.data.owner.id === session.accountId;
  const dev = devWalletAvailable(c.env);
  const pay = dev ? "Pay with the development wallet" : "Pay";
  return render(
    c,
    <AppPage title="Plans and credits" session={session} active="plans">
      <Done messages={PLANS_DONE} code={c.req.query("ok")} />
      <V1Error answer={problem ?? [me, receipts].find((a) => !a.ok)} />
      {dev ? (
        <Notice kind="notice">
          Local payments use the development method: a throwaway wallet on a test chain, no real money. In production
          the same purchase is paid in USDC or USDT with the Machine Payments Protocol.
        </Notice>
      ) : null}
      {owner ? null : <p class="muted">Only the account's owner changes the plan or buys credits.</p>}
      <section aria-labelledby="plans-h">
        <h2 id="plans-h">Plans</h2>
        <div class="plans">
          {SHOWN.map((name) => {
            const p = PLANS[name];
            const isCurrent = current === p.label.toLowerCase();
            return (
              <section class={`card${isCurrent ? " current" : ""}`} aria-labelledby={`plan-${name}`}>
                <h3 id={`plan-${name}`}>{p.label}</h3>
                <p class="stat">
                  {p.priceMonthly === "0" ? "$0" : `$${p.priceMonthly}`} <span class="muted">a month</span>
                </p>
                <ul>
                  <li>{fmt(p.credits.search)} searches</li>
                  <li>{fmt(p.credits.verification)} verifications</li>
                  <li>{fmt(p.credits.phone)} phone lookups</li>
                  <li>
                    {fmt(p.caps.teams)} {p.caps.teams === 1 ? "person" : "people"}, {fmt(p.caps.keys)} API keys
                  </li>
                </ul>
                {isCurrent ? (
                  <p>
                    <strong>Your plan</strong>
                    {me.ok && me.body.data.expired_subscription
                      ? ` · until ${when(me.body.data.expired_subscription)}`
                      : ""}
                  </p>
                ) : owner ? (
                  <form method="post" action={`${PATHS.plans}/change`}>
                    <Csrf token={session.csrf} />
                    <input type="hidden" name="plan" value={name} />
                    <button type="submit" class={name === "free" ? undefined : "primary"}>
                      {name === "free" ? "Move to Free" : `${pay}: $${p.priceMonthly}`}
                    </button>
                  </form>
                ) : null}
              </section>
            );
          })}
        </div>
        <p class="hint">
          A paid plan runs 30 days from its payment; moving to another paid plan buys a month of it at once. Moving to
          Free takes effect at once and refunds nothing. The monthly allowance does not carry over; credits from packs
          stay until used, whatever the plan.
        </p>
      </section>
      <section class="card" aria-labelledby="packs-h">
        <h2 id="packs-h">Credit packs</h2>
        <p>
          Credits for any search, verification or phone lookup, on top of your plan. While a pack has credits your rate
          limits are at least the pack's; a pack of 50,000 credits or more lifts them.
        </p>
        <div class="plans">
          {CREDIT_PACKS.map((pack) => (
            <section class="card" aria-labelledby={`pack-${pack.id}`}>
              <h3 id={`pack-${pack.id}`}>{fmt(pack.credits)} credits</h3>
              <p class="stat">${pack.price}</p>
              {owner ? (
                <form method="post" action={`${PATHS.plans}/packs/${pack.id}`}>
                  <Csrf token={session.csrf} />
                  <button type="submit" class="primary">
                    {pay}
                  </button>
                </form>
              ) : null}
            </section>
          ))}
        </div>
        {dev ? null : (
          <p class="hint">
            Pay from an MPP client: <code>POST /v1/credit-packs/&lt;pack&gt;</code> with your key and secret answers 402
            with the challenges; send it again with <code>Authorization: Payment &lt;credential&gt;</code>.
          </p>
        )}
      </section>
      <section class="card" aria-labelledby="receipts-h">
        <h2 id="receipts-h">Receipts</h2>
        {receipts.ok && receipts.body.data.length ? (
          <DataTable label="Receipts" columns={["When", "What", "Amount #", "Paid with", "Reference"]}>
            {receipts.body.data.map((r) => (
              <tr>
                <td class="nowrap">{when(r.created_at)}</td>
                <td>{r.description}</td>
                <td class="num">
                  ${r.amount} {r.currency}
                </td>
                <td>{r.method === "evm" ? "development method" : r.method}</td>
                <td>
                  <code>{r.reference}</code>
                </td>
              </tr>
            ))}
          </DataTable>
        ) : (
          <p class="muted">No purchase yet. Receipts of plans and packs you buy are listed here.</p>
        )}
      </section>
    </AppPage>,
    status,
  );
}

/** A purchase through /v1: its 402 is paid with the development wallet outside production. */
async function purchase(c: DashCtx, path: string, json?: unknown): Promise<V1Answer> {
  const v1 = c.get("v1");
  const first = await v1.act("POST", path, { json });
  if (first.status !== 402 || !devWalletAvailable(c.env)) return first;
  const unpaid = new Response(JSON.stringify(first.body), { status: 402, headers: first.headers });
  return v1.act("POST", path, { json, payment: await payWithDevWallet(c.env, unpaid) });
}

export function registerPlanPages(app: DashApp) {
  app.get(PATHS.plans, (c) => plansPage(c));

  app.post(`${PATHS.plans}/change`, async (c) => {
    const parsed = ChangePlan.safeParse(await formOf(c));
    if (!parsed.success) return c.text(firstIssue(parsed.error), 400);
    const done = await purchase(c, "/v1/plan", { plan: parsed.data.plan });
    if (!done.ok) return plansPage(c, done, statusFor(done));
    return c.redirect(`${PATHS.plans}?ok=${parsed.data.plan === "free" ? "free" : "plan"}`, 303);
  });

  app.post(`${PATHS.plans}/packs/:pack`, async (c) => {
    const pack = c.req.param("pack");
    if (!CREDIT_PACKS.some((p) => p.id === pack)) return c.notFound();
    const done = await purchase(c, `/v1/credit-packs/${pack}`);
    return done.ok ? c.redirect(`${PATHS.plans}?ok=pack`, 303) : plansPage(c, done, statusFor(done));
  });
}

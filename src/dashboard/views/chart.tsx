import type { FC } from "hono/jsx";
import { TableWrap } from "./layout.js";

export interface Series {
  key: string;
  label: string;
}

/**
 * Stacked bars, one per day, drawn on the server as SVG (no script). Colours come from the
 * stylesheet's classes k1..k8, so they follow dark mode; the numbers are also given as a table.
 */
export const DailyBars: FC<{
  days: { day: string; counts: Record<string, number> }[];
  series: Series[];
  label: string;
}> = ({ days, series, label }) => {
  const W = 720;
  const H = 200;
  const pad = { left: 36, right: 8, top: 10, bottom: 24 };
  const totalOf = (d: { counts: Record<string, number> }) => series.reduce((a, s) => a + (d.counts[s.key] ?? 0), 0);
  const totals = days.map(totalOf);
  const max = Math.max(1, ...totals);
  const step = niceStep(max);
  const top = Math.ceil(max / step) * step;
  const plotH = H - pad.top - pad.bottom;
  const slot = (W - pad.left - pad.right) / Math.max(1, days.length);
  const bar = Math.max(2, slot * 0.7);
  const y = (v: number) => pad.top + plotH - (v / top) * plotH;
  const ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
  const total = totals.reduce((a, b) => a + b, 0);
  return (
    <figure class="chart">
      <div class="chart-scroll">
        <svg
          viewBox={`0 0 ${W} ${H}`}
          role="img"
          aria-label={`${label}: ${total.toLocaleString("en")} billed calls over ${days.length} days`}
        >
          {ticks.map((t) => (
            <g>
              <line class="axis" x1={pad.left} x2={W - pad.right} y1={y(t)} y2={y(t)} />
              <text x={pad.left - 6} y={y(t) + 4} text-anchor="end">
                {t.toLocaleString("en")}
              </text>
            </g>
          ))}
          {days.map((d, i) => {
            let base = 0;
            const x = pad.left + i * slot + (slot - bar) / 2;
            return (
              <g>
                <title>{`${d.day}: ${totalOf(d).toLocaleString("en")}`}</title>
                {series.map((s, k) => {
                  const v = d.counts[s.key] ?? 0;
                  if (!v) return null;
                  const rect = (
                    <rect
                      class={`k${(k % 8) + 1}`}
                      x={x}
                      y={y(base + v)}
                      width={bar}
                      height={Math.max(1, y(base) - y(base + v))}
                    />
                  );
                  base += v;
                  return rect;
                })}
                {i % 5 === 0 || i === days.length - 1 ? (
                  <text x={x + bar / 2} y={H - 6} text-anchor="middle">
                    {d.day.slice(5)}
                  </text>
                ) : null}
              </g>
            );
          })}
        </svg>
      </div>
      <ul class="legend">
        {series.map((s, k) => (
          <li>
            <span class={`swatch k${(k % 8) + 1}`} aria-hidden="true"></span>
            {s.label}
          </li>
        ))}
      </ul>
      <details>
        <summary>Show the numbers</summary>
        <TableWrap label={`${label}, by day`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th scope="col" class="num">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days
                .filter((d) => totalOf(d) > 0)
                .map((d) => (
                  <tr>
                    <th scope="row">{d.day}</th>
                    {series.map((s) => (
                      <td class="num">{(d.counts[s.key] ?? 0).toLocaleString("en")}</td>
                    ))}
                  </tr>
                ))}
            </tbody>
          </table>
        </TableWrap>
        {total === 0 ? <p class="muted">No billed calls in this period.</p> : null}
      </details>
    </figure>
  );
};

/** 1, 2 or 5 times a power of ten, giving about four gridlines. */
function niceStep(max: number): number {
  const raw = max / 4;
  const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return Math.max(1, m * p);
  return p * 10;
}

import { withBenchServer } from "/work/wt/i15/bench/lib/dev-server.mjs";
process.env.BENCH_PORT="8815";
const paths = ["/", "/v1/phone-validator?phone=%2B33612345678", "/v1/domain-status?domain=gmail.com", "/v1/phone-validator?phone=%2B3361234567"];
await withBenchServer("probe", {}, async ({ base, headers }) => {
  const xs = paths.map(() => []);
  for (let i=0;i<40;i++) for (let j=0;j<paths.length;j++) { const r=await fetch(base+paths[j],{headers}); await r.text(); }
  for (let i=0;i<150;i++) for (let j=0;j<paths.length;j++) { const t=performance.now(); const r=await fetch(base+paths[j],{headers}); await r.text(); xs[j].push(performance.now()-t); if (i==0) console.log(paths[j], r.status, r.headers.get("x-t")); }
  for (let j=0;j<paths.length;j++){ const s=xs[j].sort((a,b)=>a-b); console.log(paths[j].padEnd(45), "p10", s[15].toFixed(1), "p50", s[75].toFixed(1), "p90", s[135].toFixed(1)); }
});

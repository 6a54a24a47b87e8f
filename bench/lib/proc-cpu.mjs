// CPU time of the bench's processes from /proc (Linux): utime + stime of every workerd and wrangler
// process and of this node process, so native work (SQLite commits, RPC plumbing) that a V8 profile
// does not see is counted.
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 1000 / 100; // /proc/<pid>/stat counts clock ticks of 10 ms

/** CPU ms used so far by every workerd, wrangler and this node process. */
export function cpuByProcess() {
  const out = {};
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const name = cmd.includes("workerd")
        ? "workerd"
        : cmd.includes("wrangler")
          ? "wrangler"
          : pid === String(process.pid)
            ? "bench"
            : null;
      if (!name) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      out[`${name}:${pid}`] = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}

/** CPU ms used so far by process `pid` and every process under it (a `wrangler dev` and its workerd). */
export function cpuOfTree(pid) {
  const stats = new Map(); // pid -> { ppid, ms }
  for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
      stats.set(Number(p), { ppid: Number(fields[1]), ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS });
    } catch {
      // The process ended meanwhile.
    }
  }
  const inTree = (p) => {
    for (let at = p, hops = 0; at > 1 && hops < 64; at = stats.get(at)?.ppid ?? 0, hops++) if (at === pid) return true;
    return false;
  };
  let ms = 0;
  for (const [p, s] of stats) if (inTree(p)) ms += s.ms;
  return ms;
}

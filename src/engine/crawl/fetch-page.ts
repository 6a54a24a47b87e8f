import { getDomain } from "tldts";
import type { Env } from "../../env.js";
import { refusalReason } from "./guard.js";

export const CRAWLER_USER_AGENT = "ContactIntelligenceBot/1.0 (+https://contact-intelligence.example/bot)";

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
}

export type PageFetch =
  | { kind: "ok"; url: string; status: number; contentType: string; body: string; truncated: boolean }
  /** The server answered, but not with a page we can use (4xx, non-text, an off-site redirect). */
  | { kind: "unusable"; url: string; status: number; reason: string }
  /** Nothing usable came back: network failure, 5xx, or the time ran out. */
  | { kind: "unreachable"; url: string; reason: string; timedOut: boolean };

const TEXT_TYPES = /^(text\/|application\/(xhtml\+xml|xml|rss\+xml|atom\+xml|ld\+json|json))/i;

/**
 * GETs one page within limits: redirects are followed by hand (each hop is checked by the URL guard
 * and must stay on the same registrable domain), the body is cut at `maxBytes`, and the whole
 * exchange gives up after `timeoutMs`.
 */
export async function fetchPage(start: string, env: Pick<Env, "ENVIRONMENT">, limits: FetchLimits): Promise<PageFetch> {
  const site = getDomain(start);
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  let url = start;
  try {
    for (let hop = 0; hop <= (limits.maxRedirects ?? 4); hop++) {
      const parsed = new URL(url);
      const refused = refusalReason(parsed, env);
      if (refused) return { kind: "unusable", url, status: 0, reason: refused };
      const res = await fetch(url, {
        redirect: "manual",
        signal: deadline,
        headers: { "user-agent": CRAWLER_USER_AGENT, accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5" },
      });
      if (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
        await res.body?.cancel();
        const next = new URL(res.headers.get("location")!, url);
        if (getDomain(next.hostname) !== site) return { kind: "unusable", url, status: res.status, reason: `redirects off-site to ${next.hostname}` };
        url = next.href;
        continue;
      }
      if (res.status >= 500) {
        await res.body?.cancel();
        return { kind: "unreachable", url, reason: `HTTP ${res.status}`, timedOut: false };
      }
      const contentType = res.headers.get("content-type") ?? "text/html";
      if (res.status >= 400 || !TEXT_TYPES.test(contentType)) {
        await res.body?.cancel();
        return { kind: "unusable", url, status: res.status, reason: res.status >= 400 ? `HTTP ${res.status}` : `content type ${contentType}` };
      }
      const { text, truncated } = await readCapped(res, limits.maxBytes, contentType);
      return { kind: "ok", url, status: res.status, contentType, body: text, truncated };
    }
    return { kind: "unusable", url, status: 0, reason: "too many redirects" };
  } catch (err) {
    const timedOut = deadline.aborted;
    return { kind: "unreachable", url, reason: timedOut ? "timed out" : err instanceof Error ? err.message : String(err), timedOut };
  }
}

async function readCapped(res: Response, maxBytes: number, contentType: string): Promise<{ text: string; truncated: boolean }> {
  const reader = res.body?.getReader();
  if (!reader) return { text: "", truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return { text: decoder.decode(bytes), truncated };
}

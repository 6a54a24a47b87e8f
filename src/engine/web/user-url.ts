import type { Env } from "../../env.js";
import { InvalidInput, NotAllowed } from "../errors.js";
import { urlRefusal } from "./egress.js";

/**
 * What a caller may ask the crawler to fetch, checked before any network access. The form rules
 * live in the egress guard (src/engine/web/egress.ts), which also checks every address and hop.
 */
export function refusalReason(url: URL, env: Pick<Env, "ENVIRONMENT">): string | null {
  return urlRefusal(url, env);
}

export function assertFetchable(url: URL, env: Pick<Env, "ENVIRONMENT">): void {
  const reason = refusalReason(url, env);
  if (reason) throw new NotAllowed(`The URL ${url.href} cannot be fetched: ${reason}.`);
}

/**
 * Parses user input as a URL; a missing scheme means https (SDK examples pass "example.com/post").
 * Throws 400 for text that is not a URL.
 */
export function parseUserUrl(input: string, env: Pick<Env, "ENVIRONMENT">): URL {
  const raw = input.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(raw) && !/^[^:/]+:\d+/.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw new InvalidInput("url", `The parameter 'url' is invalid: "${raw.slice(0, 100)}" is not a URL.`);
  }
  if (!url.hostname.includes(".") && !url.hostname.includes(":")) {
    throw new InvalidInput("url", `The parameter 'url' is invalid: "${raw.slice(0, 100)}" has no domain.`);
  }
  assertFetchable(url, env);
  return url;
}

/**
 * The cookies one site's crawl pass keeps: what its answers set (a consent wall's "accepted"
 * cookie) is sent back on its later requests, and nothing outlives the pass or crosses to another
 * site (the jar belongs to one pass of one site; the egress guard keeps every hop on that site).
 * Names and values only: paths, expiry and flags do not matter within one short pass.
 */
export class CookieJar {
  private readonly values = new Map<string, string>();

  /** Keeps the cookies a response sets (`Set-Cookie`; an expired one is dropped). */
  store(headers: Headers): void {
    const lines =
      typeof headers.getSetCookie === "function"
        ? headers.getSetCookie()
        : (headers.get("set-cookie") ?? "").split(/,(?=\s*[^;,=\s]+=)/);
    for (const line of lines) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair?.indexOf("=") ?? -1;
      if (!pair || eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age\s*=\s*(0|-\d+)\s*$/i.test(a));
      if (expired) this.values.delete(name);
      else this.values.set(name, value);
    }
  }

  /** The `Cookie` header to send, or null when nothing was set. */
  header(): string | null {
    if (this.values.size === 0) return null;
    return [...this.values].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

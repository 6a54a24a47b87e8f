import type { Context } from "hono";

/**
 * Sets a header on the response a request ends with, whatever made it: a handler that returns a
 * Response of its own (the error responses, a forwarded answer) replaces the headers hono prepared,
 * and one straight from fetch has immutable headers, which are copied once.
 */
export function setOnFinalResponse(c: Context, name: string, value: string): void {
  if (c.res.headers.get(name) === value) return;
  try {
    c.res.headers.set(name, value);
  } catch {
    const res = new Response(c.res.body, c.res);
    res.headers.set(name, value);
    c.res = undefined;
    c.res = res;
  }
}

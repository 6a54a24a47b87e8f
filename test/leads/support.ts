import { call, json } from "../support/accounts.js";

/** A JSON request the way the JavaScript client sends it (content-type JSON on every method). */
export async function send(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await call(path, {
    method,
    headers: { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

import type { Context, ExecutionContext } from "hono";
import { type CallCharge, openSessionCall, SESSION_CALL_HEADER } from "../auth/session-calls.js";
import type { Env } from "../env.js";

/** The whole app's fetch: the dashboard sends its /v1 requests through it, in-process. */
export type AppFetch = (request: Request, env: Env, ctx: ExecutionContext) => Response | Promise<Response>;

interface V1AnswerBase<T> {
  status: number;
  /** The JSON body (null when the answer was not JSON). */
  body: T;
  headers: Headers;
  /** What a capability call was charged (the "Try it" page). */
  charge?: CallCharge;
}

/**
 * A /v1 answer as the pages use it: a failed one carries the error envelope's type and message.
 * Bodies are loosely typed: a page names the shape it reads where it matters.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; callers pass T for the bodies they type
export type V1Answer<T = any> =
  | (V1AnswerBase<T> & { ok: true; error: null })
  | (V1AnswerBase<T> & { ok: false; error: { type: string; message: string } });

type Query = Record<string, string | number | boolean | undefined | null>;

interface Send {
  query?: Query;
  json?: unknown;
  /** A body passed through as it is (a bulk upload's multipart stream), with its headers. */
  body?: { stream: ReadableStream | null; contentType: string; contentLength: string | null };
  /** A question the page asks (a preview that changes nothing), kept out of the request log like a read. */
  pageRead?: boolean;
  /** An MPP payment credential for a purchase (Authorization: Payment …; the session authenticates). */
  payment?: string;
}

/**
 * The dashboard's only way to the account's data: every page reads and changes it through the /v1
 * routes, sent in-process with the session's call token (src/auth/session-calls.ts), so /v1's
 * authentication, limits, credits, validation and error answers apply unchanged. `read` is what a
 * page needs to draw itself (kept out of the request log); `act` is what the person asked for.
 */
export class V1Client {
  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: the dashboard's context (its own variables); env and request are the Worker's
    private readonly c: Context<any>,
    private readonly appFetch: AppFetch,
    private readonly accountId: number,
  ) {}

  // biome-ignore lint/suspicious/noExplicitAny: loosely typed bodies, as V1Answer
  read<T = any>(path: string, query?: Query): Promise<V1Answer<T>> {
    return this.answer(this.send("GET", path, { query }, true));
  }

  // biome-ignore lint/suspicious/noExplicitAny: loosely typed bodies, as V1Answer
  act<T = any>(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    opts: Send = {},
  ): Promise<V1Answer<T>> {
    return this.answer(this.send(method, path, opts, opts.pageRead ?? false));
  }

  /** The response itself, unread (a download streamed through to the browser). */
  async stream(path: string, query?: Query): Promise<Response> {
    return (await this.send("GET", path, { query }, false)).response;
  }

  private async send(
    method: string,
    path: string,
    opts: Send,
    pageRead: boolean,
  ): Promise<{ response: Response; charge?: CallCharge }> {
    const url = new URL(path, this.c.req.url);
    for (const [k, v] of Object.entries(opts.query ?? {}))
      if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
    const call = openSessionCall(this.accountId, pageRead);
    try {
      const headers = new Headers({ [SESSION_CALL_HEADER]: call.token, accept: "application/json" });
      // The request log records who called, from where: the person's browser, not this Worker.
      for (const name of ["user-agent", "cf-connecting-ip", "cf-ipcountry"]) {
        const value = this.c.req.header(name);
        if (value) headers.set(name, value);
      }
      if (opts.payment) headers.set("authorization", opts.payment);
      let body: BodyInit | null = null;
      if (opts.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(opts.json);
      } else if (opts.body) {
        headers.set("content-type", opts.body.contentType);
        if (opts.body.contentLength) headers.set("content-length", opts.body.contentLength);
        body = opts.body.stream;
      }
      const request = new Request(url, { method, headers, body });
      const response = await this.appFetch(request, this.c.env, this.c.executionCtx);
      return { response, charge: call.call.charge };
    } finally {
      call.close();
    }
  }

  private async answer<T>(sent: Promise<{ response: Response; charge?: CallCharge }>): Promise<V1Answer<T>> {
    const { response, charge } = await sent;
    let json: unknown = null;
    if ((response.headers.get("content-type") ?? "").includes("json")) json = await response.json().catch(() => null);
    else await response.body?.cancel();
    const base = { status: response.status, body: json as T, headers: response.headers, charge };
    if (response.ok) return { ...base, ok: true, error: null };
    const errors = (json as { errors?: { type?: string; message?: string } } | null)?.errors ?? null;
    return {
      ...base,
      ok: false,
      error: { type: errors?.type ?? "error", message: errors?.message ?? `The request failed (${response.status}).` },
    };
  }
}

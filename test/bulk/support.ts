import { parse } from "csv-parse/sync";
import { expect } from "vitest";
import { call, json, type TestAccount } from "../support/accounts.js";

export const FINDER_CSV = [
  "First Name,Last Name,Company Domain",
  "Jane,Cooper,acme-widgets.test",
  "Ada,Lovelace,generic-only.test",
  "Nobody,Atall,gmail.com",
  ",,acme-widgets.test",
  "Jörg,Müller,blau-gmbh.test",
].join("\r\n");

export function csvForm(csv: string | Uint8Array, fields: Record<string, string>, filename = "people.csv", type = "text/csv") {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("file", new File([csv], filename, { type }));
  return form;
}

export async function createJob(account: TestAccount, type: string, body: FormData | Record<string, unknown>) {
  const init: RequestInit =
    body instanceof FormData
      ? { method: "POST", headers: account.headers, body }
      : { method: "POST", headers: { ...account.headers, "content-type": "application/json" }, body: JSON.stringify(body) };
  return call(`/v1/bulk/${type}`, init);
}

export async function createdId(res: Response): Promise<number> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.data.id as number;
}

export async function getJob(account: TestAccount, type: string, id: number) {
  const res = await call(`/v1/bulk/${type}/${id}`, { headers: account.headers });
  return { res, job: (await json(res)).data };
}

/** Polls until the job leaves pending/running (rows flow through the real local queue). */
export async function waitForEnd(account: TestAccount, type: string, id: number, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { job } = await getJob(account, type, id);
    if (job.status !== "running" && job.status !== "pending") return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} (${job.processed} rows) after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const act = (account: TestAccount, method: string, path: string, body?: unknown) =>
  call(path, { method, headers: { ...account.headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });

/** Parses a CSV answer with the same parser the service reads uploads with. */
export function parseCsv(text: string): string[][] {
  return parse(text, { bom: true, relax_column_count: true }) as string[][];
}

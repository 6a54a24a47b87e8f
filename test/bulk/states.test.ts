import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { BulkJob } from "../../src/bulk/job-object.js";
import { jobStub } from "../../src/bulk/jobs.js";
import { db } from "../../src/db/client.js";
import { bulkJobs } from "../../src/db/schema-bulk.js";
import { receivedBy, uniqueKey, waitForRequests } from "../delivery/support.js";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";
import { act, createdId, createJob, getJob, waitForEnd } from "./support.js";

const verifierJob = (account: TestAccount, extra: Record<string, unknown> = {}) =>
  createJob(account, "verifier", {
    name: "State machine",
    list: "jane.cooper@acme-widgets.test\nno-one@acme-widgets.test",
    ...extra,
  }).then(createdId);

async function expectError(res: Response, status: number, type: string) {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.errors.type).toBe(type);
  return body.errors.message as string;
}

/** Pretends `n` jobs of a type are running for the account (the running check reads the index). */
async function fakeRunning(accountId: number, type: string, n: number) {
  const now = Date.now();
  for (let i = 0; i < n; i++) {
    await db(env.DB)
      .insert(bulkJobs)
      .values({
        accountId,
        type,
        name: "busy",
        status: "running",
        snapshot: {},
        createdAt: now - 2 * 86_400_000,
        updatedAt: now,
        expiredAt: now + 86_400_000,
      });
  }
}

describe("bulk job states", () => {
  it("answers 404 unknown_record for a missing job, a foreign job and a job of another type", async () => {
    const owner = await createAccount();
    const stranger = await createAccount();
    const id = await verifierJob(owner);
    await expectError(await call(`/v1/bulk/verifier/999999`, { headers: owner.headers }), 404, "unknown_record");
    await expectError(await call(`/v1/bulk/verifier/${id}`, { headers: stranger.headers }), 404, "unknown_record");
    await expectError(await act(stranger, "POST", `/v1/bulk/verifier/${id}/cancel`), 404, "unknown_record");
    await expectError(await call(`/v1/bulk/finder/${id}`, { headers: owner.headers }), 404, "unknown_record");
  });

  it("moves pending -> cancelled -> running (retry) -> completed, and refuses every action the status does not allow with 409", async () => {
    const account = await createAccount();
    const id = await verifierJob(account);
    await expectError(
      await call(`/v1/bulk/verifier/${id}/download`, { headers: account.headers }),
      409,
      "invalid_state",
    );
    await expectError(await act(account, "POST", `/v1/bulk/verifier/${id}/retry`), 409, "invalid_state");
    await expectError(await act(account, "PUT", `/v1/bulk/verifier/${id}/restore`), 409, "invalid_state");

    expect((await json(await act(account, "POST", `/v1/bulk/verifier/${id}/cancel`))).data.status).toBe("cancelled");
    await expectError(await act(account, "POST", `/v1/bulk/verifier/${id}/cancel`), 409, "invalid_state");
    await expectError(await act(account, "PUT", `/v1/bulk/verifier/${id}`), 409, "invalid_state");

    expect((await json(await act(account, "POST", `/v1/bulk/verifier/${id}/retry`))).data.status).toBe("running");
    const done = await waitForEnd(account, "verifier", id);
    expect(done).toMatchObject({ status: "completed", retry_count: 1 });
    await expectError(await act(account, "POST", `/v1/bulk/verifier/${id}/launch`), 409, "invalid_state");
    await expectError(await act(account, "POST", `/v1/bulk/verifier/${id}/cancel`), 409, "invalid_state");
    await expectError(await act(account, "POST", `/v1/bulk/verifier/${id}/retry`), 409, "invalid_state");

    const events = (await json(await call(`/v1/bulk/verifier/${id}/history`, { headers: account.headers }))).data.map(
      (e: { event: string }) => e.event,
    );
    expect(events).toEqual(["created", "cancelled", "retried", "completed"]);
  });

  it("archives, lists archived jobs (archived=true and legacy filter=archived), restores, renames and deletes", async () => {
    const account = await createAccount();
    const id = await verifierJob(account);
    expect((await act(account, "DELETE", `/v1/bulk/verifier/${id}/archive`)).status).toBe(200);
    await expectError(await act(account, "DELETE", `/v1/bulk/verifier/${id}/archive`), 409, "invalid_state");
    await expectError(await act(account, "PUT", `/v1/bulk/verifier/${id}`), 409, "invalid_state");
    const ids = async (q: string) =>
      (await json(await call(`/v1/bulk/verifier?${q}`, { headers: account.headers }))).data.map(
        (j: { id: number }) => j.id,
      );
    expect(await ids("")).toEqual([]);
    expect(await ids("archived=true")).toEqual([id]);
    expect(await ids("filter=archived")).toEqual([id]);
    expect(await ids("filter=all")).toEqual([id]);
    expect((await act(account, "PUT", `/v1/bulk/verifier/${id}/restore`)).status).toBe(200);
    expect(await ids("")).toEqual([id]);

    expect((await act(account, "PUT", `/v1/bulk/verifier/${id}/rename`, { name: "Renamed job" })).status).toBe(200);
    await expectError(
      await act(account, "PUT", `/v1/bulk/verifier/${id}/rename`, { name: "ab" }),
      400,
      "params_invalid",
    );
    expect((await getJob(account, "verifier", id)).job.name).toBe("Renamed job");
    expect(await ids("q=Renamed")).toEqual([id]);
    expect(await ids("q=nothing-like-it")).toEqual([]);

    const removed = await act(account, "DELETE", `/v1/bulk/verifier/${id}`);
    expect(await expectError(removed, 404, "unknown_route")).toContain(`/v1/bulk/verifier/${id}/delete`);
    expect((await act(account, "DELETE", `/v1/bulk/verifier/${id}/delete`)).status).toBe(200);
    await expectError(await call(`/v1/bulk/verifier/${id}`, { headers: account.headers }), 404, "unknown_record");
  });

  it("refuses download, launch and retry past expired_at with 409, and lists it under expired=true", async () => {
    const account = await createAccount();
    const id = await verifierJob(account);
    await runInDurableObject(jobStub(env, id), async (instance: BulkJob) => {
      const job = (instance as unknown as { job: { expiredAt: number } }).job;
      job.expiredAt = Date.now() - 1000;
      (instance as unknown as { save(): void }).save();
    });
    await db(env.DB)
      .update(bulkJobs)
      .set({ expiredAt: Date.now() - 1000 });
    expect(await expectError(await act(account, "PUT", `/v1/bulk/verifier/${id}`), 409, "invalid_state")).toMatch(
      /expired/,
    );
    await act(account, "POST", `/v1/bulk/verifier/${id}/cancel`);
    expect(
      await expectError(await act(account, "POST", `/v1/bulk/verifier/${id}/retry`), 409, "invalid_state"),
    ).toMatch(/expired/);
    expect(
      await expectError(
        await call(`/v1/bulk/verifier/${id}/download`, { headers: account.headers }),
        409,
        "invalid_state",
      ),
    ).toMatch(/expired/);
    const list = await json(await call(`/v1/bulk/verifier?expired=true`, { headers: account.headers }));
    expect(list.data.map((j: { id: number; expired: boolean }) => [j.id, j.expired])).toEqual([[id, true]]);
    expect((await json(await call(`/v1/bulk/verifier?expired=false`, { headers: account.headers }))).data).toEqual([]);
  });

  it("answers the third launch of a type with 429 rate_limit and Retry-After; launch on create explains instead", async () => {
    const account = await createAccount();
    await fakeRunning(account.accountId, "verifier", 2);
    const id = await verifierJob(account);
    const res = await act(account, "PUT", `/v1/bulk/verifier/${id}`);
    expect(res.headers.get("Retry-After")).toMatch(/^\d+$/);
    await expectError(res, 429, "rate_limit");
    // Another type is not affected.
    const finder = await createdId(
      await createJob(account, "finder", {
        name: "Other type",
        data: [
          ["domain", "full name"],
          ["acme-widgets.test", "Jane Cooper"],
        ],
      }),
    );
    expect((await act(account, "PUT", `/v1/bulk/finder/${finder}`)).status).toBe(200);

    const created = await createJob(account, "verifier", {
      name: "Launch later",
      list: "a@acme-widgets.test",
      launch: "true",
    });
    const body = await json(created);
    expect(created.status).toBe(201);
    expect(body.data.message).toMatch(/^Bulk created but not launched: 2 verifier jobs are already running/);
    expect((await getJob(account, "verifier", body.data.id)).job.status).toBe("pending");
  });

  it("answers the 16th create of a type in a day with 429 and Retry-After to 00:00 UTC, leaving nothing behind", async () => {
    const account = await createAccount();
    const now = Date.now();
    for (let i = 0; i < 15; i++)
      await db(env.DB)
        .insert(bulkJobs)
        .values({
          accountId: account.accountId,
          type: "verifier",
          name: "today",
          status: "pending",
          snapshot: {},
          createdAt: now,
          updatedAt: now,
          expiredAt: now + 1000,
        });
    const before = (await env.BULK_FILES.list({ prefix: "bulk/" })).objects.length;
    const res = await createJob(account, "verifier", { name: "One too many", list: "a@acme-widgets.test" });
    const retryAfter = Number(res.headers.get("Retry-After"));
    const midnight = Math.ceil((Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000 - now) / 1000);
    expect(Math.abs(retryAfter - midnight)).toBeLessThanOrEqual(2);
    await expectError(res, 429, "rate_limit");
    expect((await env.BULK_FILES.list({ prefix: "bulk/" })).objects.length).toBe(before);
    // Other types keep their own count.
    // (A finder list of names alone has no domain column: refused with 422, not counted as a create.)
    expect((await createJob(account, "finder", { name: "Other", list: "Jane Cooper" })).status).toBe(422);
  });

  it("posts a signed end event to webhook_url with the account's bulk secret", async () => {
    const account = await createAccount();
    const key = uniqueKey();
    const id = await verifierJob(account, { webhook_url: `https://receiver.test/ok/${key}`, launch: true });
    await waitForEnd(account, "verifier", id);
    const [event] = await waitForRequests(key, 1);
    const secret = (await json(await call("/v1/bulk/webhook-secret", { headers: account.headers }))).data.secret;
    const payload = new Webhook(secret).verify(event!.body, event!.headers) as {
      type: string;
      data: { id: number; status: string };
    };
    expect(payload).toMatchObject({ type: "bulk.job.ended", data: { id, status: "completed" } });

    const rotated = await json(await act(account, "POST", "/v1/bulk/webhook-secret/rotate"));
    expect(rotated.data.secret).not.toBe(secret);
    expect(rotated.data.rotated_at).not.toBeNull();
    expect(await receivedBy(key)).toHaveLength(1);
  });

  it("answers 429 with Retry-After once a job was downloaded 50 times today", async () => {
    const account = await createAccount();
    const id = await verifierJob(account, { launch: true });
    await waitForEnd(account, "verifier", id);
    expect((await call(`/v1/bulk/verifier/${id}/download`, { headers: account.headers })).status).toBe(200);
    await runInDurableObject(jobStub(env, id), async (_instance: BulkJob, state) => {
      for (let i = 0; i < 49; i++)
        state.storage.sql.exec(`INSERT INTO history (event, actor, at) VALUES ('downloaded', 'user', ?)`, Date.now());
    });
    const res = await call(`/v1/bulk/verifier/${id}/download`, { headers: account.headers });
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await expectError(res, 429, "rate_limit")).toMatch(/downloaded 50 times today/);
  });

  it("refuses a webhook_url on a private address", async () => {
    const account = await createAccount();
    const res = await createJob(account, "verifier", {
      name: "Private hook",
      list: "a@acme-widgets.test",
      webhook_url: "https://127.0.0.1/hook",
    });
    expect(await expectError(res, 400, "params_invalid")).toContain("webhook_url");
  });
});

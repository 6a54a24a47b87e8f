import { describe, expect, it } from "vitest";
import { call, createAccount, json } from "../support/accounts.js";

const MiB = 1024 * 1024;
/** What the runtime may take of a body ahead of its reader (a chunk or two in flight). */
const READ_AHEAD = 256 * 1024;

/**
 * A body of `bytes` bytes made as it is read, with no Content-Length (sent chunked), that counts
 * what was taken of it: a client streaming a large upload. `head` comes first (a multipart preamble).
 */
function countedUpload(bytes: number, head = "", tail = "") {
  const encoder = new TextEncoder();
  const block = encoder.encode("someone.somewhere@example.com\r\n".repeat(2_115)).subarray(0, 64 * 1024);
  let pulled = 0;
  let left = bytes;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      let chunk: Uint8Array;
      if (!started) {
        started = true;
        chunk = encoder.encode(head);
      } else if (left > 0) {
        chunk = block.subarray(0, Math.min(block.length, left));
        left -= chunk.length;
      } else {
        chunk = encoder.encode(tail);
        controller.enqueue(chunk);
        pulled += chunk.length;
        controller.close();
        return;
      }
      pulled += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { body, pulled: () => pulled };
}

/** A multipart create whose CSV file part is `fileBytes` long, sent chunked. */
function multipartUpload(fileBytes: number, partName = "file") {
  const boundary = "----probe7d1f0c";
  const upload = countedUpload(
    fileBytes,
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nBig upload\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="${partName}"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\nemail\r\n`,
    `\r\n--${boundary}--\r\n`,
  );
  return { ...upload, contentType: `multipart/form-data; boundary=${boundary}` };
}

const post = (path: string, body: ReadableStream, headers: Record<string, string>) =>
  call(path, { method: "POST", headers, body, duplex: "half" } as RequestInit);

describe("a request's body is read only once its caller is authenticated", () => {
  it("answers a 52 MB chunked upload without credentials 400 missing_credentials before reading its body", async () => {
    const upload = multipartUpload(52_000_000);
    const res = await post("/v1/bulk/verifier", upload.body, { "content-type": upload.contentType });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.type).toBe("missing_credentials");
    expect(upload.pulled()).toBeLessThan(READ_AHEAD);
  });

  // A 3 MB body is under every cap: only authentication stands before it is read.
  for (const [path, contentType, refusal] of [
    ["/v1/keys", "application/json", "missing_credentials"],
    ["/v1/leads", "application/json", "missing_credentials"],
    ["/v1/bulk/verifier", "application/json", "missing_credentials"],
    ["/v1/reveal/search", "application/json", "missing_credentials"],
    ["/v1/mcp", "application/json", "missing_credentials"],
    ["/operator/import", "text/csv", "authentication_failed"],
  ] as const) {
    it(`refuses a chunked POST ${path} without credentials before reading its body`, async () => {
      const upload = countedUpload(3 * MiB);
      const res = await post(path, upload.body, {
        "content-type": contentType,
        accept: "application/json, text/event-stream",
      });
      expect([400, 401]).toContain(res.status);
      const body = (await res.json()) as { errors?: { type?: string }; error?: { message?: string } };
      if (path !== "/v1/mcp") expect(body.errors?.type).toBe(refusal);
      expect(upload.pulled()).toBeLessThan(READ_AHEAD);
    });
  }

  it("answers a chunked JSON body 413 once its count crosses 4 MB, without reading the rest", async () => {
    const account = await createAccount();
    const upload = countedUpload(12 * MiB);
    const res = await post("/v1/keys", upload.body, { ...account.headers, "content-type": "application/json" });
    expect(res.status).toBe(413);
    expect((await json(res)).errors).toMatchObject({
      type: "payload_too_large",
      message: "The request body is larger than the 4 MB limit.",
    });
    expect(upload.pulled()).toBeLessThan(4 * MiB + READ_AHEAD);
  });

  it("stops reading an upload at its first refused part", async () => {
    const account = await createAccount();
    const upload = multipartUpload(20 * MiB, "upload");
    const res = await post("/v1/bulk/verifier", upload.body, {
      ...account.headers,
      "content-type": upload.contentType,
    });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.message).toBe("The file part must be named 'file' (got 'upload').");
    expect(upload.pulled()).toBeLessThan(READ_AHEAD);
  });
});

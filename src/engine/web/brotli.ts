import { createBrotliDecompress } from "node:zlib";

/**
 * Decodes a brotli (`Content-Encoding: br`) body as it streams. The runtime's DecompressionStream
 * knows gzip and deflate only; its zlib knows brotli. Brotli bytes carry no signature, and a fetch
 * that decoded the body itself keeps the header: when the decoder fails before it has given a
 * byte, the body was not brotli, and its bytes are passed on as they came. A failure later ends
 * the body where the decoded bytes end (a damaged tail, as a cut body would be).
 */
export function brotliDecoding(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = createBrotliDecompress();
  let out: TransformStreamDefaultController<Uint8Array> | undefined;
  /** The bytes as they came, kept until the decoder has given its first byte. */
  let held: Uint8Array[] = [];
  let mode: "decoding" | "as-sent" | "ended" = "decoding";
  let produced = false;
  let settle: (() => void) | null = null;
  decoder.on("data", (chunk: Uint8Array) => {
    if (mode !== "decoding") return;
    produced = true;
    held = [];
    try {
      out?.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } catch {
      // The reader has stopped (a body cut at its byte cap): nothing more is decoded.
      mode = "ended";
      decoder.destroy();
      settle?.();
    }
  });
  decoder.on("error", () => {
    if (mode !== "decoding") return;
    if (produced) {
      mode = "ended";
      out?.terminate();
    } else {
      mode = "as-sent";
      for (const chunk of held) out?.enqueue(chunk);
    }
    held = [];
    settle?.();
  });
  decoder.on("end", () => settle?.());
  return new TransformStream({
    start(controller) {
      out = controller;
    },
    transform(chunk, controller) {
      if (mode === "as-sent") controller.enqueue(chunk);
      if (mode !== "decoding") return;
      if (!produced) held.push(chunk);
      decoder.write(chunk);
    },
    flush() {
      if (mode !== "decoding") return;
      return new Promise<void>((resolve) => {
        settle = resolve;
        decoder.end();
      });
    },
  });
}

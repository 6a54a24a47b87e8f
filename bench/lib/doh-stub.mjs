// A DNS-over-HTTPS stub for benches that run without network (scale, shards).
import { createServer } from "node:http";

/** A DNS-over-HTTPS stub: every name has an MX and an address (TEST-NET), nothing else. */
export function startDoh() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://doh");
    const name = url.searchParams.get("name") ?? "";
    const type = url.searchParams.get("type");
    const answer =
      type === "MX"
        ? [{ name, type: 15, TTL: 3600, data: `10 mx.${name}.` }]
        : type === "A"
          ? [{ name, type: 1, TTL: 3600, data: "192.0.2.25" }]
          : [];
    res.writeHead(200, { "content-type": "application/dns-json" });
    res.end(JSON.stringify({ Status: 0, Answer: answer }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

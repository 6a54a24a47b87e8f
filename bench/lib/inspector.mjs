// A Chrome DevTools Protocol session on the Worker's isolate, over `wrangler dev`'s inspector.
import WebSocket from "ws";

/**
 * A session on the first inspector target (the user Worker): `send(method, params)` resolves with
 * the reply, and rejects after 60 s without one (workerd leaves some methods unanswered, such as
 * HeapProfiler.collectGarbage).
 */
export async function inspect(inspectorPort) {
  const [target] = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let nextId = 0;
  const pending = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(data);
    pending.get(msg.id)?.(msg);
    pending.delete(msg.id);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the inspector did not answer ${method}`));
      }, 60_000);
      pending.set(id, (msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

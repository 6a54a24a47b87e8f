import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.js";
import { perBinding } from "../platform/isolate-state.js";

// Building a drizzle instance walks the whole schema (relations config) each time; a bulk row asks
// D1 several questions, so the instance is built once per binding and reused. It holds no
// per-request state, only the binding.
const instances = perBinding<D1Database, ReturnType<typeof build>>("drizzleClients");
const build = (d1: D1Database) => drizzle(d1, { schema });

export function db(d1: D1Database) {
  let instance = instances.get(d1);
  if (!instance) {
    instance = build(d1);
    instances.set(d1, instance);
  }
  return instance;
}
export type Db = ReturnType<typeof db>;

import { and, or, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { perBinding } from "../platform/isolate-state.js";
import * as schema from "./schema.js";

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

/** drizzle's `and` over one or more conditions, which always yields one (drizzle also types the empty case). */
export function allOf(...conditions: [SQL, ...SQL[]]): SQL {
  const all = and(...conditions);
  if (!all) throw new Error("and() of at least one condition returned nothing");
  return all;
}

/** drizzle's `or` over one or more conditions, which always yields one. */
export function anyOf(...conditions: [SQL, ...SQL[]]): SQL {
  const any = or(...conditions);
  if (!any) throw new Error("or() of at least one condition returned nothing");
  return any;
}

import type { BulkDeclaration, BulkField, Capability } from "../capabilities/core/registry.js";
import { CAPABILITIES } from "../capabilities/index.js";

/** A bulk type: a capability that declares `bulk`, run once per row. */
export interface BulkType {
  type: string;
  capability: Capability;
  decl: BulkDeclaration;
}

export * from "./constants.js";

/** Every capability that declares a bulk type, in registry order (derived, not a second table). */
export const BULK_TYPES: BulkType[] = CAPABILITIES.flatMap((c) =>
  c.bulk ? [{ type: c.bulk.type, capability: c, decl: c.bulk }] : [],
);

export const BULK_TYPE_NAMES = BULK_TYPES.map((t) => t.type) as [string, ...string[]];

/** The field a bulk declaration reads a parameter from; a declaration without it is a programming error. */
export function fieldOf(decl: BulkDeclaration, param: string): BulkField {
  const field = decl.fields.find((f) => f.param === param);
  if (!field) throw new Error(`The bulk type ${decl.type} has no field for the parameter '${param}'.`);
  return field;
}

export function bulkType(type: string): BulkType | undefined {
  return BULK_TYPES.find((t) => t.type === type);
}

/** The columns a row of the type needs, in words: "Domain + First name + Last name, or Domain + Full name". */
export function neededColumns(type: BulkType): string {
  const label = (p: string) => type.decl.fields.find((f) => f.param === p)?.label ?? p;
  return type.decl.requires.map((set) => set.map(label).join(" + ")).join(", or ");
}

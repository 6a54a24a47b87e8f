import type { Capability } from "./core/registry.js";
import { PEOPLE_PHONE_CAPABILITIES } from "./people-phones.js";
import { domainStatus } from "./domain-status.js";
import { emailVerifier } from "./email-verifier.js";
import { FINDER_CAPABILITIES } from "./finder-family.js";

/**
 * Every capability the service sells, in one list. Add new ones here; /v1, the agent surface,
 * bulk jobs and the OpenAPI documents pick them up from this list.
 */
export const CAPABILITIES: Capability[] = [emailVerifier, domainStatus, ...PEOPLE_PHONE_CAPABILITIES, ...FINDER_CAPABILITIES];

export function capabilityByName(name: string): Capability | undefined {
  return CAPABILITIES.find((c) => c.name === name);
}

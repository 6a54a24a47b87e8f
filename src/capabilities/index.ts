import type { AnyCapability } from "./core/registry.js";
import { domainStatus } from "./domain-status.js";
import { emailVerifier } from "./email-verifier.js";
import { FINDER_CAPABILITIES } from "./finder-capabilities.js";
import { PEOPLE_PHONE_CAPABILITIES } from "./people-phones.js";

/**
 * Every capability the service sells, in one list. Add new ones here; /v1, the agent surface,
 * bulk jobs and the OpenAPI documents pick them up from this list.
 */
export const CAPABILITIES: AnyCapability[] = [
  emailVerifier,
  domainStatus,
  ...PEOPLE_PHONE_CAPABILITIES,
  ...FINDER_CAPABILITIES,
];

export function capabilityByName(name: string): AnyCapability | undefined {
  return CAPABILITIES.find((c) => c.name === name);
}

import type { Capability } from "./registry.js";
import { phoneFinder, phoneLegacy } from "./phone-finder.js";
import { phoneValidator } from "./phone-validator.js";

/** People, company and phone intelligence (issue 6), listed once for src/capabilities/index.ts. */
export const PEOPLE_PHONE_CAPABILITIES = [phoneValidator, phoneFinder, phoneLegacy] as unknown as Capability[];

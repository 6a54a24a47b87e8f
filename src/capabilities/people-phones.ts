import { combinedFind } from "./combined-find.js";
import { companiesFind } from "./companies-find.js";
import type { AnyCapability } from "./core/registry.js";
import { domainSuggestions } from "./domain-suggestions.js";
import { enrich } from "./enrich.js";
import { peopleFind } from "./people-find.js";
import { phoneFinder, phoneLegacy } from "./phone-finder.js";
import { phoneValidator } from "./phone-validator.js";
import { professionalNetwork } from "./professional-network.js";
import { location } from "./shapes/location.js";
import { similar } from "./similar.js";
import { technology } from "./technology.js";

/** People, company and phone intelligence, listed once for src/capabilities/index.ts. */
export const PEOPLE_PHONE_CAPABILITIES: AnyCapability[] = [
  phoneValidator,
  phoneFinder,
  phoneLegacy,
  enrich,
  peopleFind,
  companiesFind,
  combinedFind,
  professionalNetwork,
  technology,
  similar,
  location,
  domainSuggestions,
];

import { authorFinder } from "./author-finder.js";
import type { AnyCapability } from "./core/registry.js";
import { domainSearch } from "./domain-search.js";
import { emailCount } from "./email-count.js";
import { emailFinder } from "./email-finder.js";
import { emailFormat } from "./email-format.js";
import { emailSources } from "./email-sources.js";

/** The crawl-backed capabilities: one entry in CAPABILITIES spreads them all. */
export const FINDER_CAPABILITIES: AnyCapability[] = [
  domainSearch,
  emailFinder,
  emailFormat,
  emailCount,
  emailSources,
  authorFinder,
];

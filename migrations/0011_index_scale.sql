-- The contact index at scale (issue 22): every statement of the hot path finds its rows through an
-- index (test/engine/index-query-plans.test.ts checks each plan).
-- A re-crawl marks the addresses a page no longer shows by the page's URI: without this index that
-- UPDATE read every source row of the index, once per three pages stored.
CREATE INDEX `email_sources_uri_idx` ON `email_sources` (`uri`);--> statement-breakpoint
-- A company named instead of a domain (`company=`) is looked up by its lower-case name, exactly or
-- by the first word of its name; the LIKE '%word%' it replaces read every company.
CREATE INDEX `companies_lower_name_idx` ON `companies` (lower("name"));--> statement-breakpoint
-- A domain's addresses are read in address order: with the address in the index, without a sort.
DROP INDEX `emails_domain_idx`;--> statement-breakpoint
CREATE INDEX `emails_domain_idx` ON `emails` (`domain`,`email`);

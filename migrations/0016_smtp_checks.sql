-- SMTP checks through the prober (src/engine/verify/probe-gateway.ts): the last answer per address,
-- reused within SMTP_CACHE_SECONDS; a deferred (greylisted or paced) answer carries when it is tried
-- again in the background. Per domain: whether it accepts every address (tested once with a random
-- local part, kept so that a greylisting server meets the same address again), the formats the
-- checks ruled out, and finder searches waiting on a retry.
CREATE TABLE `smtp_checks` (
	`email` text PRIMARY KEY NOT NULL,
	`domain` text NOT NULL,
	`result` text NOT NULL,
	`checked_at` integer NOT NULL,
	`retry_at` integer,
	`attempts` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `smtp_checks_retry_idx` ON `smtp_checks` (`retry_at`);
--> statement-breakpoint
CREATE TABLE `smtp_domains` (
	`domain` text PRIMARY KEY NOT NULL,
	`probe_local` text NOT NULL,
	`accept_all` integer,
	`checked_at` integer,
	`ruled_out` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE TABLE `smtp_pending_finds` (
	`domain` text NOT NULL,
	`name_key` text NOT NULL,
	`name` text NOT NULL,
	`due_at` integer NOT NULL,
	`attempts` integer DEFAULT 1 NOT NULL,
	PRIMARY KEY(`domain`, `name_key`)
);
--> statement-breakpoint
CREATE INDEX `smtp_pending_finds_due_idx` ON `smtp_pending_finds` (`due_at`);

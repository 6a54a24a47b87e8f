-- How common each address format is among the domains whose format the index knows
-- (src/engine/finder/format-tallies.ts): one row per domain (its leading format, by country), and
-- the counts per (country, format) kept beside them ('*' = every country), read by the SMTP search
-- to rank a person's candidates where a domain shows no format of its own.
CREATE TABLE `domain_formats` (
	`domain` text PRIMARY KEY NOT NULL,
	`country` text NOT NULL,
	`pattern` text NOT NULL,
	`source` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `format_tallies` (
	`country` text NOT NULL,
	`pattern` text NOT NULL,
	`domains` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`country`, `pattern`)
);

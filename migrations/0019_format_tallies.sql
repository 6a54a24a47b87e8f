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
--> statement-breakpoint
-- Whether the domain's "no such mailbox" answers can be believed at a first contact (null: not tested
-- yet): false where an address its own pages publish read as nonexistent too, as Postfix with a
-- greylisting policy (postgrey) looks through Reacher. src/engine/verify/smtp-domains.ts, probe-gateway.ts.
ALTER TABLE `smtp_domains` ADD COLUMN `rejections_trusted` integer;

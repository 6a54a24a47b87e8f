-- The contact index of one index database (INDEX_0 … INDEX_{N-1}, src/db/shards.ts): the index
-- tables as the main database's migrations 0001, 0002, 0010 and 0011 leave them, without `claims`
-- (removal claims stay in the main database and apply to every shard). A change to an index table
-- is written twice: in migrations/ (the main database, the index when INDEX_SHARDS is 1) and here.
CREATE TABLE `companies` (
	`domain` text PRIMARY KEY NOT NULL,
	`name` text,
	`description` text,
	`logo` text,
	`industry` text,
	`founded` text,
	`employee_count` integer,
	`company_size` text,
	`revenue` text,
	`company_type` text,
	`country` text,
	`state` text,
	`city` text,
	`street_address` text,
	`postal_code` text,
	`phone` text,
	`linkedin_url` text,
	`twitter_url` text,
	`facebook_url` text,
	`instagram_url` text,
	`github_url` text,
	`youtube_url` text,
	`keywords` text,
	`same_as` text,
	`source` text DEFAULT 'crawl' NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`technologies` text
);
--> statement-breakpoint
CREATE INDEX `companies_name_idx` ON `companies` (`name`);--> statement-breakpoint
CREATE INDEX `companies_lower_name_idx` ON `companies` (lower("name"));--> statement-breakpoint
CREATE TABLE `domains` (
	`domain` text PRIMARY KEY NOT NULL,
	`crawl_status` text DEFAULT 'pending' NOT NULL,
	`crawled_at` integer,
	`pages_crawled` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`accept_all` integer,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`formats` text
);
--> statement-breakpoint
CREATE TABLE `email_sources` (
	`email` text NOT NULL,
	`uri` text NOT NULL,
	`website_url` text NOT NULL,
	`extracted_on` integer NOT NULL,
	`last_seen_on` integer NOT NULL,
	`still_on_page` integer DEFAULT true NOT NULL,
	PRIMARY KEY(`email`, `uri`)
);
--> statement-breakpoint
CREATE INDEX `email_sources_uri_idx` ON `email_sources` (`uri`);--> statement-breakpoint
CREATE TABLE `emails` (
	`email` text PRIMARY KEY NOT NULL,
	`domain` text NOT NULL,
	`local_part` text NOT NULL,
	`type` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`position` text,
	`department` text,
	`seniority` text,
	`source` text DEFAULT 'crawl' NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`middle_name` text,
	`display_name` text,
	`name_cue` text
);
--> statement-breakpoint
CREATE INDEX `emails_domain_idx` ON `emails` (`domain`,`email`);--> statement-breakpoint
CREATE TABLE `people` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain` text NOT NULL,
	`email` text,
	`first_name` text,
	`last_name` text,
	`full_name` text,
	`position` text,
	`department` text,
	`seniority` text,
	`country` text,
	`gender` text,
	`professional_network_url` text,
	`microblog` text,
	`phone` text,
	`source` text DEFAULT 'crawl' NOT NULL,
	`source_uri` text,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `people_domain_idx` ON `people` (`domain`);--> statement-breakpoint
CREATE UNIQUE INDEX `people_email_idx` ON `people` (`email`);--> statement-breakpoint
CREATE INDEX `people_profile_idx` ON `people` (`professional_network_url`);--> statement-breakpoint
CREATE TABLE `phones` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain` text NOT NULL,
	`email` text,
	`professional_network_url` text,
	`e164` text NOT NULL,
	`source_uri` text,
	`source` text DEFAULT 'crawl' NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `phones_domain_idx` ON `phones` (`domain`);--> statement-breakpoint
CREATE UNIQUE INDEX `phones_unique_idx` ON `phones` (`domain`,`e164`,`email`);

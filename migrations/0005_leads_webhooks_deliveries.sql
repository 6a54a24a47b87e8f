-- Leads, lead lists, lead attributes, webhook configurations, flags, and the one delivery system
-- (Standard Webhooks signing secrets and the attempt log). Hand-written; drizzle schema in
-- src/db/schema-leads.ts and src/db/schema-delivery.ts.

CREATE TABLE `signing_secrets` (
	`account_id` integer NOT NULL,
	`scope` text NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`rotated_at` integer,
	PRIMARY KEY(`account_id`, `scope`)
);
--> statement-breakpoint
CREATE TABLE `delivery_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` text NOT NULL,
	`account_id` integer NOT NULL,
	`webhook_id` integer,
	`kind` text NOT NULL,
	`url` text NOT NULL,
	`attempt` integer NOT NULL,
	`outcome` text NOT NULL,
	`response_code` integer,
	`duration_ms` integer NOT NULL DEFAULT 0,
	`error` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `delivery_attempts_webhook_idx` ON `delivery_attempts` (`account_id`, `webhook_id`, `id`);
--> statement-breakpoint
CREATE INDEX `delivery_attempts_delivery_idx` ON `delivery_attempts` (`delivery_id`);
--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`url` text NOT NULL,
	`method` text DEFAULT 'POST' NOT NULL,
	`headers` text DEFAULT '{}' NOT NULL,
	`status` text DEFAULT 'enabled' NOT NULL,
	`event` text DEFAULT 'save_lead' NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhooks_account_name_idx` ON `webhooks` (`account_id`, `name_key`);
--> statement-breakpoint
CREATE TABLE `lead_lists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`favorite` integer DEFAULT false NOT NULL,
	`type` text DEFAULT 'campaigns' NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lead_lists_account_name_idx` ON `lead_lists` (`account_id`, `name_key`);
--> statement-breakpoint
CREATE TABLE `lead_attributes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`identifier` text NOT NULL,
	`type` text DEFAULT 'string' NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lead_attributes_account_identifier_idx` ON `lead_attributes` (`account_id`, `identifier`);
--> statement-breakpoint
CREATE TABLE `leads` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`email` text NOT NULL,
	`email_key` text NOT NULL,
	`domain` text NOT NULL,
	`list_id` integer,
	`first_name` text,
	`last_name` text,
	`country` text,
	`website_url` text,
	`company` text,
	`position` text,
	`phone_number` text,
	`microblog` text,
	`professional_network` text,
	`notes` text,
	`score` integer,
	`lead_source` text,
	`attributes` text DEFAULT '{}' NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `leads_account_email_idx` ON `leads` (`account_id`, `email_key`);
--> statement-breakpoint
CREATE INDEX `leads_account_list_idx` ON `leads` (`account_id`, `list_id`);
--> statement-breakpoint
CREATE INDEX `leads_account_domain_idx` ON `leads` (`account_id`, `domain`);
--> statement-breakpoint
CREATE TABLE `flags` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`flag_type` text NOT NULL,
	`value` text NOT NULL,
	`reason` text NOT NULL,
	`comment` text,
	`ip_address` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `flags_account_idx` ON `flags` (`account_id`, `id`);

CREATE TABLE `accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`password_hash` text,
	`confirmed` integer DEFAULT false NOT NULL,
	`blocked` integer DEFAULT false NOT NULL,
	`plan` text DEFAULT 'free' NOT NULL,
	`subscription_expires_at` integer,
	`kind` text DEFAULT 'user' NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_email_unique` ON `accounts` (`email`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`public_key` text NOT NULL,
	`secret_hash` text NOT NULL,
	`expires_at` integer,
	`last_used_at` integer,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_public_key_unique` ON `api_keys` (`public_key`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `request_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`actor_account_id` integer NOT NULL,
	`api_key_id` integer,
	`http_method` text NOT NULL,
	`endpoint` text NOT NULL,
	`uri` text NOT NULL,
	`status_code` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`type` text,
	`usage_category` text,
	`cost` integer DEFAULT false NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`country` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `request_logs_account_created_idx` ON `request_logs` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `workspace_members` (
	`workspace_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`role` text DEFAULT 'member' NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`workspace_id`, `account_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspace_members_account_id_unique` ON `workspace_members` (`account_id`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`owner_account_id` integer NOT NULL,
	`name` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`owner_account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);

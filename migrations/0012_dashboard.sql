-- The account dashboard under /app: browser sessions and the one-time links mailed for confirming an
-- address and resetting a password. Only SHA-256 digests of the tokens are stored; the tokens
-- themselves live in the browser's cookie or in the mailed link.
CREATE TABLE `dashboard_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL REFERENCES `accounts`(`id`),
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`user_agent` text
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_account_idx` ON `dashboard_sessions` (`account_id`);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_expires_idx` ON `dashboard_sessions` (`expires_at`);
--> statement-breakpoint
CREATE TABLE `account_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL REFERENCES `accounts`(`id`),
	`purpose` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `account_tokens_account_idx` ON `account_tokens` (`account_id`, `purpose`);
--> statement-breakpoint
CREATE INDEX `account_tokens_expires_idx` ON `account_tokens` (`expires_at`);

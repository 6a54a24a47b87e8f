-- Account settings in the dashboard: a change of email address is confirmed by a link mailed to the
-- new address; the link's row (purpose `email`) carries the address it will set.
ALTER TABLE `account_tokens` ADD COLUMN `new_email` text;
--> statement-breakpoint
-- Receipts of what an account bought with MPP (credit packs, months of a plan): one row per paid
-- credential (`challenge_id` unique: a credential pays once).
CREATE TABLE `purchases` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL REFERENCES `accounts`(`id`),
	`actor_account_id` integer NOT NULL,
	`item` text NOT NULL,
	`description` text NOT NULL,
	`credits` integer NOT NULL DEFAULT 0,
	`amount` text NOT NULL,
	`currency` text NOT NULL,
	`method` text NOT NULL,
	`reference` text NOT NULL,
	`challenge_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `purchases_challenge_idx` ON `purchases` (`challenge_id`);
--> statement-breakpoint
CREATE INDEX `purchases_account_idx` ON `purchases` (`account_id`, `created_at`);

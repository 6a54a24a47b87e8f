CREATE TABLE `bulk_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`rows_input` integer DEFAULT 0 NOT NULL,
	`rows_processed` integer DEFAULT 0 NOT NULL,
	`found` integer DEFAULT 0 NOT NULL,
	`emails_found` integer DEFAULT 0 NOT NULL,
	`credits_search` integer DEFAULT 0 NOT NULL,
	`credits_verify` integer DEFAULT 0 NOT NULL,
	`credits_phone` integer DEFAULT 0 NOT NULL,
	`snapshot` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expired_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bulk_jobs_account_type_created_idx` ON `bulk_jobs` (`account_id`,`type`,`created_at`);
--> statement-breakpoint
CREATE INDEX `bulk_jobs_account_status_idx` ON `bulk_jobs` (`account_id`,`type`,`status`);

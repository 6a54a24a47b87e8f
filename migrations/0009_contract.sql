-- Contract shapes (issue 10): where a log row came from, the 30-day repeat-billing window, and
-- daily usage counters that outlive the log's 1,000-row / 3-month retention.

ALTER TABLE `request_logs` ADD `source` text DEFAULT 'api' NOT NULL;
--> statement-breakpoint
CREATE TABLE `billed_requests` (
	`account_id` integer NOT NULL,
	`fingerprint` text NOT NULL,
	`billed_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `fingerprint`)
);
--> statement-breakpoint
CREATE INDEX `billed_requests_billed_at_idx` ON `billed_requests` (`billed_at`);
--> statement-breakpoint
CREATE TABLE `usage_days` (
	`account_id` integer NOT NULL,
	`day` integer NOT NULL,
	`capability` text NOT NULL,
	`source` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`account_id`, `day`, `capability`, `source`)
);
--> statement-breakpoint
-- Charged calls logged before this migration, so /v1/usage keeps its history. The capability is
-- the first path segment after /v1/ (e.g. /v1/email-verifier/{email} -> email-verifier).
INSERT INTO `usage_days` (`account_id`, `day`, `capability`, `source`, `count`)
SELECT `account_id`, (`created_at` / 86400000) * 86400000,
       CASE WHEN instr(substr(`endpoint`, 5), '/') > 0 THEN substr(substr(`endpoint`, 5), 1, instr(substr(`endpoint`, 5), '/') - 1) ELSE substr(`endpoint`, 5) END,
       'api', count(*)
FROM `request_logs` WHERE `cost` = 1 AND `endpoint` LIKE '/v1/%'
GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET `count` = `count` + excluded.`count`;

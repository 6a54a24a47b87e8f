CREATE TABLE `agent_enrollments` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`contact` text NOT NULL,
	`public_key` text,
	`did` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agent_enrollments_did_idx` ON `agent_enrollments` (`did`);
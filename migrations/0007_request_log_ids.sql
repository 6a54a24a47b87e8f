-- Request-log rows arrive through the `request-logs` queue (src/account/request-log-queue.ts). Each
-- carries the id it was given when the request ended; a unique index turns a redelivered batch into
-- a no-op instead of duplicate rows. Rows written before this migration keep NULL (allowed twice).
ALTER TABLE `request_logs` ADD `request_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `request_logs_request_id_idx` ON `request_logs` (`request_id`);

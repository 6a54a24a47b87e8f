-- OAuth 2.0 (issue 14). Grants, clients and tokens live in KV (OAUTH_KV, owned by
-- @cloudflare/workers-oauth-provider); only the device flow (RFC 8628), which the library lacks, lives here.
CREATE TABLE `oauth_device_codes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`device_code_hash` text NOT NULL,
	`user_code` text NOT NULL,
	`client_id` text NOT NULL,
	`scope` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`account_id` integer,
	`authorization_code` text,
	`code_verifier` text,
	`redirect_uri` text,
	`interval_seconds` integer NOT NULL,
	`last_polled_at` integer,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_device_codes_device_code_idx` ON `oauth_device_codes` (`device_code_hash`);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_device_codes_user_code_idx` ON `oauth_device_codes` (`user_code`);
--> statement-breakpoint
-- Which OAuth app made a /v1 request (null for key + secret requests).
ALTER TABLE `request_logs` ADD `oauth_client_id` text;

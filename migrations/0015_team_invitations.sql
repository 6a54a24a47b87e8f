-- Teams: an account's owner (or an admin) invites people by email; the mailed link (its token's
-- SHA-256 only is stored here) lets them sign in with their own password and act on the owner's
-- account as a workspace member (workspaces, workspace_members: 0000).
CREATE TABLE `team_invitations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_hash` text NOT NULL,
	`owner_account_id` integer NOT NULL REFERENCES `accounts`(`id`),
	`email` text NOT NULL,
	`role` text NOT NULL,
	`invited_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`accepted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_invitations_token_idx` ON `team_invitations` (`token_hash`);
--> statement-breakpoint
CREATE INDEX `team_invitations_owner_idx` ON `team_invitations` (`owner_account_id`);

-- Account settings in the dashboard: a change of email address is confirmed by a link mailed to the
-- new address; the link's row (purpose `email`) carries the address it will set.
ALTER TABLE `account_tokens` ADD COLUMN `new_email` text;

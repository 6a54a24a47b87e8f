-- Issue 20: names are read together with the domain's format. Each address keeps the name as its
-- page showed it (and what kind of evidence that is) so a later crawl can read all the domain's
-- names again; the reading (first/middle/last) and the domain's formats are written at each crawl.

ALTER TABLE `emails` ADD `middle_name` text;
--> statement-breakpoint
ALTER TABLE `emails` ADD `display_name` text;
--> statement-breakpoint
ALTER TABLE `emails` ADD `name_cue` text;
--> statement-breakpoint
ALTER TABLE `domains` ADD `formats` text;

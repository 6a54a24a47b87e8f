-- Which D1 databases hold the contact index, while it is being resharded (src/db/shards.ts,
-- src/operator/reshard-run.ts). No row: INDEX_SHARDS decides. A reshard writes the row and
-- leaves it: from then on it is the layout.
CREATE TABLE `index_layout` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	-- Binding names, comma-separated: the ring reads follow (and writes, outside a move).
	`current` text NOT NULL,
	-- The ring a move goes to; null when none runs.
	`target` text,
	-- steady | dual (writes to both rings, reads from current) | switched (reads from target, writes to both)
	`phase` text NOT NULL DEFAULT 'steady',
	`move_id` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
-- One reshard: its progress, shown by GET /operator/index/reshard/{id}.
CREATE TABLE `index_moves` (
	`id` text PRIMARY KEY NOT NULL,
	`from_layout` text NOT NULL,
	`to_layout` text NOT NULL,
	-- planned | dual | copying | switched | cleaning | done
	`status` text NOT NULL,
	`domains_to_move` integer NOT NULL DEFAULT 0,
	`domains_copied` integer NOT NULL DEFAULT 0,
	`rows_copied` integer NOT NULL DEFAULT 0,
	`domains_cleaned` integer NOT NULL DEFAULT 0,
	-- Copy or cleanup steps run again after a failed attempt (a crash, a redeploy, a D1 error).
	`steps_retried` integer NOT NULL DEFAULT 0,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);

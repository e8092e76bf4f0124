CREATE TABLE `code_mode_sessions` (
	`session_id` text PRIMARY KEY NOT NULL,
	`principal` text NOT NULL,
	`max_yield_time_ms` integer,
	`max_heap_size_bytes` integer,
	`state` text NOT NULL,
	`cell_count` integer DEFAULT 0 NOT NULL,
	`lease_expires_at_ms` integer NOT NULL,
	`created_at_ms` integer NOT NULL,
	`closed_at_ms` integer
);
--> statement-breakpoint
CREATE TABLE `code_mode_values` (
	`session_id` text NOT NULL,
	`key` text NOT NULL,
	`value_json` text NOT NULL,
	PRIMARY KEY(`session_id`, `key`)
);

CREATE TABLE `code_mode_state` (
	`conversation_id` text PRIMARY KEY NOT NULL,
	`generation` integer DEFAULT 1 NOT NULL,
	`live_cells` integer DEFAULT 0 NOT NULL,
	`replaced_notice_pending` integer DEFAULT false NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `code_mode_values` (
	`conversation_id` text NOT NULL,
	`key` text NOT NULL,
	`value_json` text NOT NULL,
	PRIMARY KEY(`conversation_id`, `key`)
);

CREATE TABLE `__new_code_mode_values` (
	`session_id` text NOT NULL,
	`key` text NOT NULL,
	`chunk` integer DEFAULT 0 NOT NULL,
	`value_json` text NOT NULL,
	PRIMARY KEY(`session_id`, `key`, `chunk`)
);
--> statement-breakpoint
INSERT INTO `__new_code_mode_values`("session_id", "key", "chunk", "value_json") SELECT "session_id", "key", 0, "value_json" FROM `code_mode_values`;--> statement-breakpoint
DROP TABLE `code_mode_values`;--> statement-breakpoint
ALTER TABLE `__new_code_mode_values` RENAME TO `code_mode_values`;

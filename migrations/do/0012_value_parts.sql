CREATE TABLE `value_parts` (
	`owner` text NOT NULL,
	`part` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`owner`, `part`)
);
--> statement-breakpoint
ALTER TABLE `code_mode_values` ADD `parts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `context_blobs` ADD `parts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `payload_parts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `tool_card_parts` integer DEFAULT 0 NOT NULL;
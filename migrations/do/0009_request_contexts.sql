CREATE TABLE `request_contexts` (
	`conversation_id` text NOT NULL,
	`chunk` integer NOT NULL,
	`digest` text NOT NULL,
	`data` blob NOT NULL,
	`stored_at_ms` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `chunk`)
);

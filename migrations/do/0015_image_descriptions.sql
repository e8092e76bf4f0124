CREATE TABLE `image_descriptions` (
	`key` text PRIMARY KEY NOT NULL,
	`description` text NOT NULL,
	`created_at_ms` integer NOT NULL
);

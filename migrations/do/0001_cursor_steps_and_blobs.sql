CREATE TABLE `client_blobs` (
	`blob_id` text PRIMARY KEY NOT NULL,
	`acked_at_ms` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `messages` ADD `cursor_step` blob;--> statement-breakpoint
ALTER TABLE `messages` ADD `superseded_by_run_id` text;
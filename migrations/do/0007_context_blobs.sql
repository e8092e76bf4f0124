CREATE TABLE `context_blobs` (
	`blob_id` text PRIMARY KEY NOT NULL,
	`data` blob NOT NULL,
	`fetched_at_ms` integer NOT NULL
);

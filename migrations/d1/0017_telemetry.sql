CREATE TABLE `active_runs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`principal` text NOT NULL,
	`team_id` text,
	`model` text NOT NULL,
	`provider` text NOT NULL,
	`started_at_ms` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `teams` ADD `otlp_endpoint` text;--> statement-breakpoint
ALTER TABLE `teams` ADD `otlp_sealed_headers` text;--> statement-breakpoint
ALTER TABLE `teams` ADD `otlp_header_names_json` text;
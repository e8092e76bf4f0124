CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`monthly_token_budget` integer,
	`wrapped_data_key` text,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teams_name` ON `teams` (`name`);--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer,
	`last_used_at_ms` integer,
	`revoked_at_ms` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_hash` ON `tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `tokens_by_user` ON `tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`requests_per_minute` integer,
	`max_concurrent_runs` integer,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`removed_at_ms` integer,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_team_email` ON `users` (`team_id`,`email`) WHERE removed_at_ms IS NULL;--> statement-breakpoint
CREATE INDEX `users_by_team` ON `users` (`team_id`);--> statement-breakpoint
CREATE TABLE `credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`owner_user_id` text,
	`scope` text NOT NULL,
	`name` text NOT NULL,
	`provider` text NOT NULL,
	`base_url` text NOT NULL,
	`headers_json` text,
	`encrypted_key` text NOT NULL,
	`key_last_four` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`deleted_at_ms` integer,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `credentials_by_team` ON `credentials` (`team_id`,`owner_user_id`) WHERE deleted_at_ms IS NULL;--> statement-breakpoint
CREATE TABLE `models` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`owner_user_id` text,
	`scope` text NOT NULL,
	`name` text NOT NULL,
	`credential_id` text NOT NULL,
	`model` text NOT NULL,
	`context_window` integer,
	`max_output_tokens` integer,
	`reasoning_effort` text,
	`headers_json` text,
	`extra_body_json` text,
	`fast_service_tier` text,
	`stall_timeout_ms` integer,
	`enabled` integer DEFAULT true NOT NULL,
	`price_input_per_mtok` real,
	`price_output_per_mtok` real,
	`price_cache_read_per_mtok` real,
	`price_cache_write_per_mtok` real,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`deleted_at_ms` integer,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`credential_id`) REFERENCES `credentials`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `models_by_team` ON `models` (`team_id`,`owner_user_id`) WHERE deleted_at_ms IS NULL;--> statement-breakpoint
CREATE INDEX `models_by_credential` ON `models` (`credential_id`);--> statement-breakpoint
CREATE TABLE `provider_calls` (
	`call_id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`principal` text NOT NULL,
	`team_id` text,
	`model` text NOT NULL,
	`provider` text NOT NULL,
	`status` text NOT NULL,
	`http_status` integer,
	`finish_reason` text,
	`attempt` integer NOT NULL,
	`created_at_ms` integer NOT NULL,
	`ttfb_ms` integer,
	`ttft_ms` integer,
	`duration_ms` integer,
	`input_tokens` integer,
	`output_tokens` integer,
	`cache_read_tokens` integer,
	`cache_write_tokens` integer,
	`reasoning_tokens` integer
);
--> statement-breakpoint
CREATE INDEX `provider_calls_by_run` ON `provider_calls` (`run_id`);--> statement-breakpoint
CREATE INDEX `provider_calls_by_principal` ON `provider_calls` (`principal`,`created_at_ms`);--> statement-breakpoint
CREATE TABLE `usage_ledger` (
	`day` text NOT NULL,
	`principal` text NOT NULL,
	`team_id` text,
	`model` text NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`cache_read_tokens` integer DEFAULT 0 NOT NULL,
	`cache_write_tokens` integer DEFAULT 0 NOT NULL,
	`reasoning_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `principal`, `model`)
);
--> statement-breakpoint
CREATE INDEX `usage_ledger_by_team` ON `usage_ledger` (`team_id`,`day`);--> statement-breakpoint
ALTER TABLE `usage` ADD `team_id` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `request_id` text;--> statement-breakpoint
ALTER TABLE `usage` ADD `started_at_ms` integer;--> statement-breakpoint
CREATE INDEX `usage_by_team` ON `usage` (`team_id`,`created_at_ms`);
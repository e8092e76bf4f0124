CREATE TABLE `conversations` (
	`conversation_id` text PRIMARY KEY NOT NULL,
	`principal` text NOT NULL,
	`active_run_id` text,
	`last_model` text,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `llm_calls` (
	`call_id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`provider_call_index` integer NOT NULL,
	`attempt` integer DEFAULT 0 NOT NULL,
	`provider_type` text NOT NULL,
	`provider_url` text NOT NULL,
	`model_id` text NOT NULL,
	`display_name` text NOT NULL,
	`status` text NOT NULL,
	`finish_reason` text,
	`message_count` integer NOT NULL,
	`tool_count` integer NOT NULL,
	`request_bytes` integer,
	`http_status` integer,
	`created_at_ms` integer NOT NULL,
	`ttfb_ms` integer,
	`ttft_ms` integer,
	`ttfr_ms` integer,
	`finished_at_ms` integer,
	`duration_ms` integer,
	`input_tokens` integer,
	`output_tokens` integer,
	`cache_read_tokens` integer,
	`cache_write_tokens` integer,
	`reasoning_tokens` integer,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `llm_calls_by_run` ON `llm_calls` (`run_id`);--> statement-breakpoint
CREATE TABLE `messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversation_id` text NOT NULL,
	`message_key` text,
	`run_id` text,
	`role` text NOT NULL,
	`payload_json` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_key` ON `messages` (`conversation_id`,`message_key`) WHERE message_key IS NOT NULL;--> statement-breakpoint
CREATE TABLE `runs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`request_id` text NOT NULL,
	`status` text NOT NULL,
	`model` text NOT NULL,
	`provider_call_index` integer DEFAULT 0 NOT NULL,
	`usage_json` text,
	`failure_code` text,
	`failure_message` text,
	`created_at_ms` integer NOT NULL,
	`finished_at_ms` integer
);
--> statement-breakpoint
CREATE INDEX `runs_by_status` ON `runs` (`status`);
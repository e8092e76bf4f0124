ALTER TABLE `credentials` ADD `broken_at_ms` integer;--> statement-breakpoint
ALTER TABLE `credentials` ADD `broken_reason` text;--> statement-breakpoint
ALTER TABLE `models` ADD `keys_json` text;--> statement-breakpoint
ALTER TABLE `provider_calls` ADD `credential_id` text;
ALTER TABLE `teams` ADD `previous_wrapped_data_key` text;--> statement-breakpoint
ALTER TABLE `credentials` ADD `sealed_headers` text;--> statement-breakpoint
ALTER TABLE `credentials` ADD `header_names_json` text;--> statement-breakpoint
ALTER TABLE `models` ADD `sealed_headers` text;--> statement-breakpoint
ALTER TABLE `models` ADD `header_names_json` text;
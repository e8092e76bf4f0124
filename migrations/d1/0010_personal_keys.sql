ALTER TABLE `tokens` ADD `personal_key_wrap` text;--> statement-breakpoint
ALTER TABLE `users` ADD `personal_key_id` text;--> statement-breakpoint
ALTER TABLE `credentials` ADD `personal_key_id` text;
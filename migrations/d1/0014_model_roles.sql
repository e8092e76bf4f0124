ALTER TABLE `models` ADD `compaction_model_id` text;--> statement-breakpoint
ALTER TABLE `models` ADD `subagent_model_id` text;
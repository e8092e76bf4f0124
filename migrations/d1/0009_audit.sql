CREATE TABLE `audit` (
	`id` text PRIMARY KEY NOT NULL,
	`at_ms` integer NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`actor_email` text,
	`action` text NOT NULL,
	`target_kind` text NOT NULL,
	`target_id` text NOT NULL,
	`target_name` text,
	`target_user_id` text,
	`team_id` text,
	`outcome` text NOT NULL,
	`ip` text,
	`user_agent` text,
	`details_json` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_by_time` ON `audit` (`at_ms`,`id`);--> statement-breakpoint
CREATE INDEX `audit_by_team` ON `audit` (`team_id`,`at_ms`,`id`);--> statement-breakpoint
CREATE INDEX `audit_by_actor` ON `audit` (`actor_id`,`at_ms`,`id`);--> statement-breakpoint
CREATE INDEX `audit_by_target_user` ON `audit` (`target_user_id`,`at_ms`,`id`);--> statement-breakpoint
CREATE INDEX `audit_by_action` ON `audit` (`action`,`at_ms`,`id`);--> statement-breakpoint
ALTER TABLE `tokens` ADD `issued_by_kind` text;--> statement-breakpoint
ALTER TABLE `tokens` ADD `issued_by_id` text;--> statement-breakpoint
ALTER TABLE `tokens` ADD `issued_by_email` text;--> statement-breakpoint
-- Written by hand beside drizzle-kit's statements (it has no triggers): the audit log is append-only (docs/hosting.md#audit-log).
CREATE TRIGGER `audit_append_only` BEFORE UPDATE ON `audit` BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;

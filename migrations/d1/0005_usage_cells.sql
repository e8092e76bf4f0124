ALTER TABLE `usage_ledger` ADD `cells` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_ledger` ADD `cell_wall_ms` integer DEFAULT 0 NOT NULL;
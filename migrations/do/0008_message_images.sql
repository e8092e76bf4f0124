CREATE TABLE `message_images` (
	`seq` integer NOT NULL,
	`image` integer NOT NULL,
	`chunk` integer NOT NULL,
	`data` text NOT NULL,
	PRIMARY KEY(`seq`, `image`, `chunk`)
);

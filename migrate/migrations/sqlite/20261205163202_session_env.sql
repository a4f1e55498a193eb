-- add column "env" to table: "sessions"
ALTER TABLE `sessions` ADD COLUMN `env` text NULL;

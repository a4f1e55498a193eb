-- add column "user_id" to table: "events"
ALTER TABLE `events` ADD COLUMN `user_id` integer NULL;

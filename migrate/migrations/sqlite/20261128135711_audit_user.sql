-- add column "user_id" to table: "audit_records"
ALTER TABLE `audit_records` ADD COLUMN `user_id` integer NULL;

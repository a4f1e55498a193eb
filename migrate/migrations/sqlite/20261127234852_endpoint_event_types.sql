-- add column "event_types" to table: "webhook_endpoints"
ALTER TABLE `webhook_endpoints` ADD COLUMN `event_types` json NULL;

-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create index "event_account_id_id" to table: "events"
CREATE UNIQUE INDEX `event_account_id_id` ON `events` (`account_id`, `id`);
-- create "new_webhook_attempts" table
CREATE TABLE `new_webhook_attempts` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `trigger` text NOT NULL, `attempted_at` datetime NOT NULL, `request_headers` json NOT NULL, `request_body` text NOT NULL, `response_status` integer NULL, `response_body` text NOT NULL DEFAULT (''), `duration_ms` integer NOT NULL, `error` text NULL, `success` bool NOT NULL, `account_id` integer NOT NULL, `delivery_id` integer NOT NULL, CONSTRAINT `webhook_attempts_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `webhook_attempts_webhook_deliveries_attempts` FOREIGN KEY (`account_id`, `delivery_id`) REFERENCES `webhook_deliveries` (`account_id`, `id`) ON DELETE CASCADE);
-- copy rows from old table "webhook_attempts" to new temporary table "new_webhook_attempts", each with its event's account
INSERT INTO `new_webhook_attempts` (`id`, `trigger`, `attempted_at`, `request_headers`, `request_body`, `response_status`, `response_body`, `duration_ms`, `error`, `success`, `delivery_id`, `account_id`) SELECT `a`.`id`, `a`.`trigger`, `a`.`attempted_at`, `a`.`request_headers`, `a`.`request_body`, `a`.`response_status`, `a`.`response_body`, `a`.`duration_ms`, `a`.`error`, `a`.`success`, `a`.`delivery_id`, `e`.`account_id` FROM `webhook_attempts` AS `a` JOIN `webhook_deliveries` AS `d` ON `d`.`id` = `a`.`delivery_id` JOIN `events` AS `e` ON `e`.`id` = `d`.`event_id`;
-- drop "webhook_attempts" table after copying rows
DROP TABLE `webhook_attempts`;
-- rename temporary table "new_webhook_attempts" to "webhook_attempts"
ALTER TABLE `new_webhook_attempts` RENAME TO `webhook_attempts`;
-- create index "webhookattempt_delivery_id_attempted_at" to table: "webhook_attempts"
CREATE INDEX `webhookattempt_delivery_id_attempted_at` ON `webhook_attempts` (`delivery_id`, `attempted_at`);
-- create index "webhookattempt_attempted_at" to table: "webhook_attempts"
CREATE INDEX `webhookattempt_attempted_at` ON `webhook_attempts` (`attempted_at`);
-- create "new_webhook_deliveries" table
CREATE TABLE `new_webhook_deliveries` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `status` text NOT NULL DEFAULT ('pending'), `attempt_count` integer NOT NULL DEFAULT (0), `next_attempt_at` datetime NOT NULL, `locked_until` datetime NULL, `created_at` datetime NOT NULL, `finished_at` datetime NULL, `event_id` integer NOT NULL, `account_id` integer NOT NULL, `endpoint_id` integer NOT NULL, CONSTRAINT `webhook_deliveries_events_deliveries` FOREIGN KEY (`account_id`, `event_id`) REFERENCES `events` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `webhook_deliveries_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `webhook_deliveries_webhook_endpoints_deliveries` FOREIGN KEY (`account_id`, `endpoint_id`) REFERENCES `webhook_endpoints` (`account_id`, `id`) ON DELETE CASCADE);
-- copy rows from old table "webhook_deliveries" to new temporary table "new_webhook_deliveries", each with its event's account
INSERT INTO `new_webhook_deliveries` (`id`, `status`, `attempt_count`, `next_attempt_at`, `locked_until`, `created_at`, `finished_at`, `event_id`, `endpoint_id`, `account_id`) SELECT `d`.`id`, `d`.`status`, `d`.`attempt_count`, `d`.`next_attempt_at`, `d`.`locked_until`, `d`.`created_at`, `d`.`finished_at`, `d`.`event_id`, `d`.`endpoint_id`, `e`.`account_id` FROM `webhook_deliveries` AS `d` JOIN `events` AS `e` ON `e`.`id` = `d`.`event_id`;
-- drop "webhook_deliveries" table after copying rows
DROP TABLE `webhook_deliveries`;
-- rename temporary table "new_webhook_deliveries" to "webhook_deliveries"
ALTER TABLE `new_webhook_deliveries` RENAME TO `webhook_deliveries`;
-- create index "webhookdelivery_account_id_event_id_endpoint_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX `webhookdelivery_account_id_event_id_endpoint_id` ON `webhook_deliveries` (`account_id`, `event_id`, `endpoint_id`);
-- create index "webhookdelivery_account_id_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX `webhookdelivery_account_id_id` ON `webhook_deliveries` (`account_id`, `id`);
-- create index "webhookdelivery_status_next_attempt_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_status_next_attempt_at` ON `webhook_deliveries` (`status`, `next_attempt_at`);
-- create index "webhookdelivery_endpoint_id_created_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_endpoint_id_created_at` ON `webhook_deliveries` (`endpoint_id`, `created_at`);
-- create index "webhookdelivery_status_finished_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_status_finished_at` ON `webhook_deliveries` (`status`, `finished_at`);
-- drop index "webhookendpoint_account_id" from table: "webhook_endpoints"
DROP INDEX `webhookendpoint_account_id`;
-- create index "webhookendpoint_account_id_id" to table: "webhook_endpoints"
CREATE UNIQUE INDEX `webhookendpoint_account_id_id` ON `webhook_endpoints` (`account_id`, `id`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

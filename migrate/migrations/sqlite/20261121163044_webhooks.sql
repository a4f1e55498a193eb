-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_events" table
CREATE TABLE `new_events` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `event_id` text NOT NULL, `environment` text NOT NULL, `type` text NOT NULL, `resource_type` text NOT NULL, `resource_id` integer NOT NULL, `snapshot` json NOT NULL, `source` text NOT NULL, `api_key_id` integer NULL, `request_id` text NULL, `created_at` datetime NOT NULL, `dispatched_at` datetime NULL, `account_id` integer NOT NULL, CONSTRAINT `events_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "events" to new temporary table "new_events"
INSERT INTO `new_events` (`id`, `event_id`, `environment`, `type`, `resource_type`, `resource_id`, `snapshot`, `source`, `api_key_id`, `request_id`, `created_at`, `account_id`) SELECT `id`, `event_id`, `environment`, `type`, `resource_type`, `resource_id`, `snapshot`, `source`, `api_key_id`, `request_id`, `created_at`, `account_id` FROM `events`;
-- drop "events" table after copying rows
DROP TABLE `events`;
-- rename temporary table "new_events" to "events"
ALTER TABLE `new_events` RENAME TO `events`;
-- create index "events_event_id_key" to table: "events"
CREATE UNIQUE INDEX `events_event_id_key` ON `events` (`event_id`);
-- create index "event_account_id_created_at" to table: "events"
CREATE INDEX `event_account_id_created_at` ON `events` (`account_id`, `created_at`);
-- create index "event_created_at" to table: "events"
CREATE INDEX `event_created_at` ON `events` (`created_at`);
-- create index "event_dispatched_at_id" to table: "events"
CREATE INDEX `event_dispatched_at_id` ON `events` (`dispatched_at`, `id`);
-- create "webhook_attempts" table
CREATE TABLE `webhook_attempts` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `trigger` text NOT NULL, `attempted_at` datetime NOT NULL, `request_headers` json NOT NULL, `request_body` text NOT NULL, `response_status` integer NULL, `response_body` text NOT NULL DEFAULT (''), `duration_ms` integer NOT NULL, `error` text NULL, `success` bool NOT NULL, `delivery_id` integer NOT NULL, CONSTRAINT `webhook_attempts_webhook_deliveries_attempts` FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries` (`id`) ON DELETE CASCADE);
-- create index "webhookattempt_delivery_id_attempted_at" to table: "webhook_attempts"
CREATE INDEX `webhookattempt_delivery_id_attempted_at` ON `webhook_attempts` (`delivery_id`, `attempted_at`);
-- create index "webhookattempt_attempted_at" to table: "webhook_attempts"
CREATE INDEX `webhookattempt_attempted_at` ON `webhook_attempts` (`attempted_at`);
-- create "webhook_deliveries" table
CREATE TABLE `webhook_deliveries` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `status` text NOT NULL DEFAULT ('pending'), `attempt_count` integer NOT NULL DEFAULT (0), `next_attempt_at` datetime NOT NULL, `locked_until` datetime NULL, `created_at` datetime NOT NULL, `finished_at` datetime NULL, `event_id` integer NOT NULL, `endpoint_id` integer NOT NULL, CONSTRAINT `webhook_deliveries_events_deliveries` FOREIGN KEY (`event_id`) REFERENCES `events` (`id`) ON DELETE RESTRICT, CONSTRAINT `webhook_deliveries_webhook_endpoints_deliveries` FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints` (`id`) ON DELETE CASCADE);
-- create index "webhookdelivery_event_id_endpoint_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX `webhookdelivery_event_id_endpoint_id` ON `webhook_deliveries` (`event_id`, `endpoint_id`);
-- create index "webhookdelivery_status_next_attempt_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_status_next_attempt_at` ON `webhook_deliveries` (`status`, `next_attempt_at`);
-- create index "webhookdelivery_endpoint_id_created_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_endpoint_id_created_at` ON `webhook_deliveries` (`endpoint_id`, `created_at`);
-- create index "webhookdelivery_status_finished_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_status_finished_at` ON `webhook_deliveries` (`status`, `finished_at`);
-- create "webhook_endpoints" table
CREATE TABLE `webhook_endpoints` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `url` text NOT NULL, `description` text NOT NULL DEFAULT (''), `email` text NOT NULL DEFAULT (''), `secret` text NOT NULL, `previous_secret` text NULL, `previous_secret_expires_at` datetime NULL, `enabled` bool NOT NULL DEFAULT (true), `disabled_reason` text NULL, `disabled_at` datetime NULL, `failing_since` datetime NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `webhook_endpoints_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "webhookendpoint_account_id" to table: "webhook_endpoints"
CREATE INDEX `webhookendpoint_account_id` ON `webhook_endpoints` (`account_id`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

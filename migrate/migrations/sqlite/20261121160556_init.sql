-- create "api_keys" table
CREATE TABLE `api_keys` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL DEFAULT (''), `prefix` text NOT NULL, `last4` text NOT NULL, `secret_hash` text NOT NULL, `scopes` json NOT NULL, `created_at` datetime NOT NULL, `last_used_at` datetime NULL, `expires_at` datetime NULL, `revoked_at` datetime NULL, `account_id` integer NOT NULL, CONSTRAINT `api_keys_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "api_keys_secret_hash_key" to table: "api_keys"
CREATE UNIQUE INDEX `api_keys_secret_hash_key` ON `api_keys` (`secret_hash`);
-- create index "apikey_account_id_created_at" to table: "api_keys"
CREATE INDEX `apikey_account_id_created_at` ON `api_keys` (`account_id`, `created_at`);
-- create "accounts" table
CREATE TABLE `accounts` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `environment` text NOT NULL, `organization_id` integer NOT NULL, CONSTRAINT `accounts_organizations_accounts` FOREIGN KEY (`organization_id`) REFERENCES `organizations` (`id`) ON DELETE RESTRICT);
-- create index "account_organization_id_environment" to table: "accounts"
CREATE UNIQUE INDEX `account_organization_id_environment` ON `accounts` (`organization_id`, `environment`);
-- create "allergens" table
CREATE TABLE `allergens` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `is_global` bool NOT NULL DEFAULT (false), `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NULL, `description` text NULL, `is_major_allergen` bool NOT NULL DEFAULT (false), `name` text NOT NULL, `name_fr` text NOT NULL, `regulatory_reference` text NULL, `account_id` integer NULL, CONSTRAINT `allergens_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shared_or_owned` CHECK ((is_global AND account_id IS NULL) OR (NOT is_global AND account_id IS NOT NULL)));
-- create index "allergen_account_id" to table: "allergens"
CREATE INDEX `allergen_account_id` ON `allergens` (`account_id`);
-- create index "allergen_account_id_name_fr" to table: "allergens"
CREATE INDEX `allergen_account_id_name_fr` ON `allergens` (`account_id`, `name_fr`);
-- create index "allergen_account_id_is_major_allergen" to table: "allergens"
CREATE INDEX `allergen_account_id_is_major_allergen` ON `allergens` (`account_id`, `is_major_allergen`);
-- create index "allergen_account_id_description" to table: "allergens"
CREATE INDEX `allergen_account_id_description` ON `allergens` (`account_id`, `description`);
-- create index "allergen_account_id_regulatory_reference" to table: "allergens"
CREATE INDEX `allergen_account_id_regulatory_reference` ON `allergens` (`account_id`, `regulatory_reference`);
-- create index "allergen_account_id_name" to table: "allergens"
CREATE UNIQUE INDEX `allergen_account_id_name` ON `allergens` (`account_id`, `name`);
-- create index "allergen_account_id_code" to table: "allergens"
CREATE UNIQUE INDEX `allergen_account_id_code` ON `allergens` (`account_id`, `code`);
-- create index "allergen_code" to table: "allergens"
CREATE UNIQUE INDEX `allergen_code` ON `allergens` (`code`) WHERE is_global;
-- create "events" table
CREATE TABLE `events` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `event_id` text NOT NULL, `environment` text NOT NULL, `type` text NOT NULL, `resource_type` text NOT NULL, `resource_id` integer NOT NULL, `snapshot` json NOT NULL, `source` text NOT NULL, `api_key_id` integer NULL, `request_id` text NULL, `created_at` datetime NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `events_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "events_event_id_key" to table: "events"
CREATE UNIQUE INDEX `events_event_id_key` ON `events` (`event_id`);
-- create index "event_account_id_created_at" to table: "events"
CREATE INDEX `event_account_id_created_at` ON `events` (`account_id`, `created_at`);
-- create index "event_created_at" to table: "events"
CREATE INDEX `event_created_at` ON `events` (`created_at`);
-- create "locations" table
CREATE TABLE `locations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `description` text NULL, `is_active` bool NOT NULL DEFAULT (true), `name` text NOT NULL, `path` text NOT NULL, `account_id` integer NOT NULL, `parent_id` integer NULL, CONSTRAINT `locations_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `locations_locations_children` FOREIGN KEY (`parent_id`) REFERENCES `locations` (`id`) ON DELETE CASCADE);
-- create index "location_account_id" to table: "locations"
CREATE INDEX `location_account_id` ON `locations` (`account_id`);
-- create index "location_account_id_name" to table: "locations"
CREATE INDEX `location_account_id_name` ON `locations` (`account_id`, `name`);
-- create index "location_account_id_path" to table: "locations"
CREATE INDEX `location_account_id_path` ON `locations` (`account_id`, `path`);
-- create index "location_account_id_code" to table: "locations"
CREATE UNIQUE INDEX `location_account_id_code` ON `locations` (`account_id`, `code`) WHERE parent_id IS NULL;
-- create index "location_parent_id_code" to table: "locations"
CREATE UNIQUE INDEX `location_parent_id_code` ON `locations` (`parent_id`, `code`);
-- create "operations" table
CREATE TABLE `operations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `cost` numeric NULL, `name` text NOT NULL, `qty` real NULL, `account_id` integer NOT NULL, `unit_of_measure_id` integer NULL, CONSTRAINT `operations_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `operations_units_of_measure_unit_of_measure` FOREIGN KEY (`unit_of_measure_id`) REFERENCES `units_of_measure` (`id`) ON DELETE RESTRICT);
-- create index "operation_account_id" to table: "operations"
CREATE INDEX `operation_account_id` ON `operations` (`account_id`);
-- create index "operation_account_id_name" to table: "operations"
CREATE INDEX `operation_account_id_name` ON `operations` (`account_id`, `name`);
-- create index "operation_account_id_unit_of_measure_id" to table: "operations"
CREATE INDEX `operation_account_id_unit_of_measure_id` ON `operations` (`account_id`, `unit_of_measure_id`);
-- create index "operation_account_id_code" to table: "operations"
CREATE UNIQUE INDEX `operation_account_id_code` ON `operations` (`account_id`, `code`);
-- create "organizations" table
CREATE TABLE `organizations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `name` text NOT NULL, `plan` text NOT NULL DEFAULT ('enterprise'), `currency` text NOT NULL DEFAULT ('CAD'));
-- create "rate_windows" table
CREATE TABLE `rate_windows` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `bucket` text NOT NULL, `window_start` integer NOT NULL, `hits` integer NOT NULL DEFAULT (0));
-- create index "ratewindow_bucket_window_start" to table: "rate_windows"
CREATE UNIQUE INDEX `ratewindow_bucket_window_start` ON `rate_windows` (`bucket`, `window_start`);
-- create index "ratewindow_window_start" to table: "rate_windows"
CREATE INDEX `ratewindow_window_start` ON `rate_windows` (`window_start`);
-- create "tags" table
CREATE TABLE `tags` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `description` text NULL, `name` text NOT NULL, `ref_type` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `tags_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "tag_account_id" to table: "tags"
CREATE INDEX `tag_account_id` ON `tags` (`account_id`);
-- create index "tag_account_id_ref_type_name" to table: "tags"
CREATE UNIQUE INDEX `tag_account_id_ref_type_name` ON `tags` (`account_id`, `ref_type`, `name`);
-- create index "tag_account_id_name" to table: "tags"
CREATE INDEX `tag_account_id_name` ON `tags` (`account_id`, `name`);
-- create "units_of_measure" table
CREATE TABLE `units_of_measure` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `is_global` bool NOT NULL DEFAULT (false), `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `name` text NOT NULL, `read_only` bool NOT NULL DEFAULT (false), `weight_in_grams` real NULL, `account_id` integer NULL, CONSTRAINT `units_of_measure_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shared_or_owned` CHECK ((is_global AND account_id IS NULL) OR (NOT is_global AND account_id IS NOT NULL)));
-- create index "unitofmeasure_account_id" to table: "units_of_measure"
CREATE INDEX `unitofmeasure_account_id` ON `units_of_measure` (`account_id`);
-- create index "unitofmeasure_account_id_name" to table: "units_of_measure"
CREATE INDEX `unitofmeasure_account_id_name` ON `units_of_measure` (`account_id`, `name`);
-- create index "unitofmeasure_account_id_code" to table: "units_of_measure"
CREATE UNIQUE INDEX `unitofmeasure_account_id_code` ON `units_of_measure` (`account_id`, `code`);
-- create index "unitofmeasure_code" to table: "units_of_measure"
CREATE UNIQUE INDEX `unitofmeasure_code` ON `units_of_measure` (`code`) WHERE is_global;

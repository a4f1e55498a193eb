-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_api_keys" table
CREATE TABLE `new_api_keys` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL DEFAULT (''), `prefix` text NOT NULL, `last4` text NOT NULL, `secret_hash` text NOT NULL, `scopes` json NOT NULL, `created_at` datetime NOT NULL, `last_used_at` datetime NULL, `expires_at` datetime NULL, `revoked_at` datetime NULL, `account_id` integer NOT NULL, `replaces_id` integer NULL, CONSTRAINT `api_keys_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `api_keys_api_keys_replaced_by` FOREIGN KEY (`replaces_id`) REFERENCES `api_keys` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "api_keys" to new temporary table "new_api_keys"
INSERT INTO `new_api_keys` (`id`, `name`, `prefix`, `last4`, `secret_hash`, `scopes`, `created_at`, `last_used_at`, `expires_at`, `revoked_at`, `account_id`) SELECT `id`, `name`, `prefix`, `last4`, `secret_hash`, `scopes`, `created_at`, `last_used_at`, `expires_at`, `revoked_at`, `account_id` FROM `api_keys`;
-- drop "api_keys" table after copying rows
DROP TABLE `api_keys`;
-- rename temporary table "new_api_keys" to "api_keys"
ALTER TABLE `new_api_keys` RENAME TO `api_keys`;
-- create index "api_keys_secret_hash_key" to table: "api_keys"
CREATE UNIQUE INDEX `api_keys_secret_hash_key` ON `api_keys` (`secret_hash`);
-- create index "api_keys_replaces_id_key" to table: "api_keys"
CREATE UNIQUE INDEX `api_keys_replaces_id_key` ON `api_keys` (`replaces_id`);
-- create index "apikey_account_id_created_at" to table: "api_keys"
CREATE INDEX `apikey_account_id_created_at` ON `api_keys` (`account_id`, `created_at`);
-- create "audit_records" table
CREATE TABLE `audit_records` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `action` text NOT NULL, `environment` text NULL, `actor` text NOT NULL, `detail` json NULL, `created_at` datetime NOT NULL, `organization_id` integer NOT NULL, `api_key_id` integer NULL, CONSTRAINT `audit_records_organizations_organization` FOREIGN KEY (`organization_id`) REFERENCES `organizations` (`id`) ON DELETE RESTRICT, CONSTRAINT `audit_records_api_keys_api_key` FOREIGN KEY (`api_key_id`) REFERENCES `api_keys` (`id`) ON DELETE RESTRICT);
-- create index "auditrecord_organization_id_created_at" to table: "audit_records"
CREATE INDEX `auditrecord_organization_id_created_at` ON `audit_records` (`organization_id`, `created_at`);
-- create index "auditrecord_api_key_id" to table: "audit_records"
CREATE INDEX `auditrecord_api_key_id` ON `audit_records` (`api_key_id`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_audit_records" table
CREATE TABLE `new_audit_records` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `action` text NOT NULL, `environment` text NULL, `actor` text NOT NULL, `address` text NOT NULL DEFAULT (''), `detail` json NULL, `created_at` datetime NOT NULL, `organization_id` integer NOT NULL, `api_key_id` integer NULL, CONSTRAINT `audit_records_organizations_organization` FOREIGN KEY (`organization_id`) REFERENCES `organizations` (`id`) ON DELETE RESTRICT, CONSTRAINT `audit_records_api_keys_api_key` FOREIGN KEY (`api_key_id`) REFERENCES `api_keys` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "audit_records" to new temporary table "new_audit_records"
INSERT INTO `new_audit_records` (`id`, `action`, `environment`, `actor`, `detail`, `created_at`, `organization_id`, `api_key_id`) SELECT `id`, `action`, `environment`, `actor`, `detail`, `created_at`, `organization_id`, `api_key_id` FROM `audit_records`;
-- drop "audit_records" table after copying rows
DROP TABLE `audit_records`;
-- rename temporary table "new_audit_records" to "audit_records"
ALTER TABLE `new_audit_records` RENAME TO `audit_records`;
-- create index "auditrecord_organization_id_created_at" to table: "audit_records"
CREATE INDEX `auditrecord_organization_id_created_at` ON `audit_records` (`organization_id`, `created_at`);
-- create index "auditrecord_api_key_id" to table: "audit_records"
CREATE INDEX `auditrecord_api_key_id` ON `audit_records` (`api_key_id`);
-- create "new_organizations" table
CREATE TABLE `new_organizations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `name` text NOT NULL, `plan` text NOT NULL DEFAULT ('enterprise'), `currency` text NOT NULL DEFAULT ('CAD'), `block_unapproved_suppliers` bool NOT NULL DEFAULT (false), `manual_costing` bool NOT NULL DEFAULT (false), `require_second_factor` bool NOT NULL DEFAULT (false));
-- copy rows from old table "organizations" to new temporary table "new_organizations"
INSERT INTO `new_organizations` (`id`, `created_at`, `updated_at`, `name`, `plan`, `currency`, `block_unapproved_suppliers`, `manual_costing`) SELECT `id`, `created_at`, `updated_at`, `name`, `plan`, `currency`, `block_unapproved_suppliers`, `manual_costing` FROM `organizations`;
-- drop "organizations" table after copying rows
DROP TABLE `organizations`;
-- rename temporary table "new_organizations" to "organizations"
ALTER TABLE `new_organizations` RENAME TO `organizations`;
-- create "sessions" table
CREATE TABLE `sessions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `token_hash` text NOT NULL, `created_at` datetime NOT NULL, `last_seen_at` datetime NOT NULL, `expires_at` datetime NOT NULL, `verified_at` datetime NULL, `address` text NOT NULL DEFAULT (''), `user_agent` text NOT NULL DEFAULT (''), `user_id` integer NOT NULL, CONSTRAINT `sessions_users_user` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE CASCADE);
-- create index "sessions_token_hash_key" to table: "sessions"
CREATE UNIQUE INDEX `sessions_token_hash_key` ON `sessions` (`token_hash`);
-- create index "session_user_id" to table: "sessions"
CREATE INDEX `session_user_id` ON `sessions` (`user_id`);
-- create index "session_expires_at" to table: "sessions"
CREATE INDEX `session_expires_at` ON `sessions` (`expires_at`);
-- create "users" table
CREATE TABLE `users` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `email` text NOT NULL, `role` text NOT NULL, `password_hash` text NULL, `password_changed_at` datetime NULL, `totp_secret` text NULL, `totp_pending_secret` text NULL, `totp_last_step` integer NOT NULL DEFAULT (0), `invited_by` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `last_sign_in_at` datetime NULL, `organization_id` integer NOT NULL, CONSTRAINT `users_organizations_organization` FOREIGN KEY (`organization_id`) REFERENCES `organizations` (`id`) ON DELETE RESTRICT);
-- create index "users_email_key" to table: "users"
CREATE UNIQUE INDEX `users_email_key` ON `users` (`email`);
-- create index "user_organization_id_email" to table: "users"
CREATE INDEX `user_organization_id_email` ON `users` (`organization_id`, `email`);
-- create "user_links" table
CREATE TABLE `user_links` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `token_hash` text NOT NULL, `purpose` text NOT NULL, `created_at` datetime NOT NULL, `expires_at` datetime NOT NULL, `used_at` datetime NULL, `user_id` integer NOT NULL, CONSTRAINT `user_links_users_user` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE CASCADE);
-- create index "user_links_token_hash_key" to table: "user_links"
CREATE UNIQUE INDEX `user_links_token_hash_key` ON `user_links` (`token_hash`);
-- create index "userlink_user_id" to table: "user_links"
CREATE INDEX `userlink_user_id` ON `user_links` (`user_id`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

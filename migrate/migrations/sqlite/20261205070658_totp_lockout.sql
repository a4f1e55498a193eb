-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_users" table
CREATE TABLE `new_users` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `email` text NOT NULL, `role` text NOT NULL, `password_hash` text NULL, `password_changed_at` datetime NULL, `totp_secret` text NULL, `totp_pending_secret` text NULL, `totp_last_step` integer NOT NULL DEFAULT (0), `totp_failures` integer NOT NULL DEFAULT (0), `totp_failed_at` datetime NULL, `invited_by` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `last_sign_in_at` datetime NULL, `organization_id` integer NOT NULL, CONSTRAINT `users_organizations_organization` FOREIGN KEY (`organization_id`) REFERENCES `organizations` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "users" to new temporary table "new_users"
INSERT INTO `new_users` (`id`, `email`, `role`, `password_hash`, `password_changed_at`, `totp_secret`, `totp_pending_secret`, `totp_last_step`, `invited_by`, `created_at`, `last_sign_in_at`, `organization_id`) SELECT `id`, `email`, `role`, `password_hash`, `password_changed_at`, `totp_secret`, `totp_pending_secret`, `totp_last_step`, `invited_by`, `created_at`, `last_sign_in_at`, `organization_id` FROM `users`;
-- drop "users" table after copying rows
DROP TABLE `users`;
-- rename temporary table "new_users" to "users"
ALTER TABLE `new_users` RENAME TO `users`;
-- create index "users_email_key" to table: "users"
CREATE UNIQUE INDEX `users_email_key` ON `users` (`email`);
-- create index "user_organization_id_email" to table: "users"
CREATE INDEX `user_organization_id_email` ON `users` (`organization_id`, `email`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_organizations" table
CREATE TABLE `new_organizations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `name` text NOT NULL, `plan` text NOT NULL DEFAULT ('enterprise'), `currency` text NOT NULL DEFAULT ('CAD'), `block_unapproved_suppliers` bool NOT NULL DEFAULT (false), `manual_costing` bool NOT NULL DEFAULT (false));
-- copy rows from old table "organizations" to new temporary table "new_organizations"
INSERT INTO `new_organizations` (`id`, `created_at`, `updated_at`, `name`, `plan`, `currency`) SELECT `id`, `created_at`, `updated_at`, `name`, `plan`, `currency` FROM `organizations`;
-- drop "organizations" table after copying rows
DROP TABLE `organizations`;
-- rename temporary table "new_organizations" to "organizations"
ALTER TABLE `new_organizations` RENAME TO `organizations`;
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_salespeople" table
CREATE TABLE `new_salespeople` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NULL, `email` text NULL, `first_name` text NULL, `last_name` text NULL, `account_id` integer NOT NULL, CONSTRAINT `salespeople_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "salespeople" to new temporary table "new_salespeople"
INSERT INTO `new_salespeople` (`id`, `created_at`, `updated_at`, `active`, `code`, `email`, `first_name`, `last_name`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `code`, `email`, `first_name`, `last_name`, `account_id` FROM `salespeople`;
-- drop "salespeople" table after copying rows
DROP TABLE `salespeople`;
-- rename temporary table "new_salespeople" to "salespeople"
ALTER TABLE `new_salespeople` RENAME TO `salespeople`;
-- create index "salesperson_account_id_id" to table: "salespeople"
CREATE INDEX `salesperson_account_id_id` ON `salespeople` (`account_id`, `id`);
-- create index "salesperson_account_id_active" to table: "salespeople"
CREATE INDEX `salesperson_account_id_active` ON `salespeople` (`account_id`, `active`);
-- create index "salesperson_account_id_email" to table: "salespeople"
CREATE INDEX `salesperson_account_id_email` ON `salespeople` (`account_id`, `email`);
-- create index "salesperson_account_id_first_name" to table: "salespeople"
CREATE INDEX `salesperson_account_id_first_name` ON `salespeople` (`account_id`, `first_name`);
-- create index "salesperson_account_id_last_name" to table: "salespeople"
CREATE INDEX `salesperson_account_id_last_name` ON `salespeople` (`account_id`, `last_name`);
-- create index "salesperson_account_id_code" to table: "salespeople"
CREATE UNIQUE INDEX `salesperson_account_id_code` ON `salespeople` (`account_id`, `code`);
-- create "new_tax_rates" table
CREATE TABLE `new_tax_rates` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NULL, `description` text NULL, `name` text NULL, `tax_rate1` numeric NULL, `tax_rate1_label` text NULL, `tax_rate2` numeric NULL, `tax_rate2_label` text NULL, `account_id` integer NOT NULL, CONSTRAINT `tax_rates_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "tax_rates" to new temporary table "new_tax_rates"
INSERT INTO `new_tax_rates` (`id`, `created_at`, `updated_at`, `code`, `description`, `name`, `tax_rate1`, `tax_rate1_label`, `tax_rate2`, `tax_rate2_label`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `code`, `description`, `name`, `tax_rate1`, `tax_rate1_label`, `tax_rate2`, `tax_rate2_label`, `account_id` FROM `tax_rates`;
-- drop "tax_rates" table after copying rows
DROP TABLE `tax_rates`;
-- rename temporary table "new_tax_rates" to "tax_rates"
ALTER TABLE `new_tax_rates` RENAME TO `tax_rates`;
-- create index "taxrate_account_id_id" to table: "tax_rates"
CREATE INDEX `taxrate_account_id_id` ON `tax_rates` (`account_id`, `id`);
-- create index "taxrate_account_id_name" to table: "tax_rates"
CREATE INDEX `taxrate_account_id_name` ON `tax_rates` (`account_id`, `name`);
-- create index "taxrate_account_id_code" to table: "tax_rates"
CREATE UNIQUE INDEX `taxrate_account_id_code` ON `tax_rates` (`account_id`, `code`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

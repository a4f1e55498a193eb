-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_suppliers" table
CREATE TABLE `new_suppliers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `address` json NULL, `approval_expiry` datetime NULL, `approval_status` text NOT NULL DEFAULT ('PENDING'), `certification_expires_on` datetime NULL, `certification_scheme` text NULL, `company` text NULL, `contact_name` text NULL, `email` text NULL, `phone` text NULL, `supplier_code` text NULL, `website` text NULL, `account_id` integer NOT NULL, CONSTRAINT `suppliers_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "suppliers" to new temporary table "new_suppliers"
INSERT INTO `new_suppliers` (`id`, `created_at`, `updated_at`, `active`, `company`, `supplier_code`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `company`, `supplier_code`, `account_id` FROM `suppliers`;
-- drop "suppliers" table after copying rows
DROP TABLE `suppliers`;
-- rename temporary table "new_suppliers" to "suppliers"
ALTER TABLE `new_suppliers` RENAME TO `suppliers`;
-- create index "supplier_account_id" to table: "suppliers"
CREATE INDEX `supplier_account_id` ON `suppliers` (`account_id`);
-- create index "supplier_account_id_active" to table: "suppliers"
CREATE INDEX `supplier_account_id_active` ON `suppliers` (`account_id`, `active`);
-- create index "supplier_account_id_company" to table: "suppliers"
CREATE INDEX `supplier_account_id_company` ON `suppliers` (`account_id`, `company`);
-- create index "supplier_account_id_email" to table: "suppliers"
CREATE INDEX `supplier_account_id_email` ON `suppliers` (`account_id`, `email`);
-- create index "supplier_account_id_created_at" to table: "suppliers"
CREATE INDEX `supplier_account_id_created_at` ON `suppliers` (`account_id`, `created_at`);
-- create index "supplier_account_id_updated_at" to table: "suppliers"
CREATE INDEX `supplier_account_id_updated_at` ON `suppliers` (`account_id`, `updated_at`);
-- create index "supplier_account_id_supplier_code" to table: "suppliers"
CREATE UNIQUE INDEX `supplier_account_id_supplier_code` ON `suppliers` (`account_id`, `supplier_code`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_product_lots" table
CREATE TABLE `new_product_lots` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `product_name` text NULL, `location_key` integer NOT NULL DEFAULT (0), `lot_number` text NULL, `expiration_date` datetime NULL, `archived` bool NOT NULL DEFAULT (false), `lot_origin` text NULL, `qc_status` text NOT NULL DEFAULT ('AVAILABLE'), `qc_status_at` datetime NULL, `qc_status_note` text NULL, `qc_release_expires_at` datetime NULL, `quantity_base` numeric NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, `location_id` integer NULL, `warehouse_id` integer NULL, CONSTRAINT `product_lots_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_locations_location` FOREIGN KEY (`location_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_locations_warehouse` FOREIGN KEY (`warehouse_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "product_lots" to new temporary table "new_product_lots"
INSERT INTO `new_product_lots` (`id`, `created_at`, `updated_at`, `location_key`, `lot_number`, `expiration_date`, `archived`, `lot_origin`, `qc_status`, `qc_status_at`, `qc_status_note`, `qc_release_expires_at`, `quantity_base`, `account_id`, `product_id`, `location_id`, `warehouse_id`) SELECT `id`, `created_at`, `updated_at`, `location_key`, `lot_number`, `expiration_date`, `archived`, `lot_origin`, `qc_status`, `qc_status_at`, `qc_status_note`, `qc_release_expires_at`, `quantity_base`, `account_id`, `product_id`, `location_id`, `warehouse_id` FROM `product_lots`;
-- drop "product_lots" table after copying rows
DROP TABLE `product_lots`;
-- rename temporary table "new_product_lots" to "product_lots"
ALTER TABLE `new_product_lots` RENAME TO `product_lots`;
-- create index "productlot_account_id_id" to table: "product_lots"
CREATE INDEX `productlot_account_id_id` ON `product_lots` (`account_id`, `id`);
-- create index "productlot_account_id_product_id" to table: "product_lots"
CREATE INDEX `productlot_account_id_product_id` ON `product_lots` (`account_id`, `product_id`);
-- create index "productlot_account_id_location_id" to table: "product_lots"
CREATE INDEX `productlot_account_id_location_id` ON `product_lots` (`account_id`, `location_id`);
-- create index "productlot_account_id_warehouse_id" to table: "product_lots"
CREATE INDEX `productlot_account_id_warehouse_id` ON `product_lots` (`account_id`, `warehouse_id`);
-- create index "productlot_account_id_lot_number" to table: "product_lots"
CREATE INDEX `productlot_account_id_lot_number` ON `product_lots` (`account_id`, `lot_number`);
-- create index "productlot_account_id_expiration_date" to table: "product_lots"
CREATE INDEX `productlot_account_id_expiration_date` ON `product_lots` (`account_id`, `expiration_date`);
-- create index "productlot_account_id_archived" to table: "product_lots"
CREATE INDEX `productlot_account_id_archived` ON `product_lots` (`account_id`, `archived`);
-- create index "productlot_account_id_created_at" to table: "product_lots"
CREATE INDEX `productlot_account_id_created_at` ON `product_lots` (`account_id`, `created_at`);
-- create index "productlot_account_id_updated_at" to table: "product_lots"
CREATE INDEX `productlot_account_id_updated_at` ON `product_lots` (`account_id`, `updated_at`);
-- create index "productlot_account_id_quantity_base" to table: "product_lots"
CREATE INDEX `productlot_account_id_quantity_base` ON `product_lots` (`account_id`, `quantity_base`);
-- create index "productlot_account_id_product_name" to table: "product_lots"
CREATE INDEX `productlot_account_id_product_name` ON `product_lots` (`account_id`, `product_name`);
-- create index "productlot_account_id_product_id_expiration_date" to table: "product_lots"
CREATE INDEX `productlot_account_id_product_id_expiration_date` ON `product_lots` (`account_id`, `product_id`, `expiration_date`);
-- create index "productlot_product_id_location_key_lot_number" to table: "product_lots"
CREATE UNIQUE INDEX `productlot_product_id_location_key_lot_number` ON `product_lots` (`product_id`, `location_key`, `lot_number`);
-- create index "product_lots_unnumbered" to table: "product_lots"
CREATE UNIQUE INDEX `product_lots_unnumbered` ON `product_lots` (`account_id`, `product_id`) WHERE lot_number IS NULL;
-- create index "product_lots_lot_number_trgm" to table: "product_lots"
CREATE INDEX `product_lots_lot_number_trgm` ON `product_lots` (`lot_number`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
-- Backfill the copy of each lot's product name (hand-written).
UPDATE product_lots SET product_name = (SELECT products.name FROM products WHERE products.id = product_lots.product_id);

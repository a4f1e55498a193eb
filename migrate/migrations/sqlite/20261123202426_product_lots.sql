-- create "lot_corrections" table
CREATE TABLE `lot_corrections` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `quantity_before` numeric NOT NULL, `quantity_after` numeric NOT NULL, `source` text NOT NULL, `api_key_id` integer NULL, `request_id` text NULL, `created_at` datetime NOT NULL, `account_id` integer NOT NULL, `lot_id` integer NOT NULL, CONSTRAINT `lot_corrections_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `lot_corrections_product_lots_corrections` FOREIGN KEY (`lot_id`) REFERENCES `product_lots` (`id`) ON DELETE RESTRICT);
-- create index "lotcorrection_account_id" to table: "lot_corrections"
CREATE INDEX `lotcorrection_account_id` ON `lot_corrections` (`account_id`);
-- create index "lotcorrection_lot_id" to table: "lot_corrections"
CREATE INDEX `lotcorrection_lot_id` ON `lot_corrections` (`lot_id`);
-- create "product_lots" table
CREATE TABLE `product_lots` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `location_key` integer NOT NULL DEFAULT (0), `lot_number` text NULL, `expiration_date` datetime NULL, `archived` bool NOT NULL DEFAULT (false), `lot_origin` text NULL, `qc_status` text NOT NULL DEFAULT ('AVAILABLE'), `qc_status_at` datetime NULL, `qc_status_note` text NULL, `qc_release_expires_at` datetime NULL, `quantity_base` numeric NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, `location_id` integer NULL, `warehouse_id` integer NULL, CONSTRAINT `product_lots_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_locations_location` FOREIGN KEY (`location_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_locations_warehouse` FOREIGN KEY (`warehouse_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
-- create index "productlot_account_id" to table: "product_lots"
CREATE INDEX `productlot_account_id` ON `product_lots` (`account_id`);
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
-- create index "productlot_account_id_product_id_expiration_date" to table: "product_lots"
CREATE INDEX `productlot_account_id_product_id_expiration_date` ON `product_lots` (`account_id`, `product_id`, `expiration_date`);
-- create index "productlot_product_id_location_key_lot_number" to table: "product_lots"
CREATE UNIQUE INDEX `productlot_product_id_location_key_lot_number` ON `product_lots` (`product_id`, `location_key`, `lot_number`);
-- create index "product_lots_unnumbered" to table: "product_lots"
CREATE UNIQUE INDEX `product_lots_unnumbered` ON `product_lots` (`account_id`, `product_id`) WHERE lot_number IS NULL;
-- create "stock_movements" table
CREATE TABLE `stock_movements` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `type` text NOT NULL, `quantity_base` numeric NOT NULL, `document_type` text NULL, `document_id` integer NULL, `source` text NOT NULL, `api_key_id` integer NULL, `request_id` text NULL, `created_at` datetime NOT NULL, `lot_id` integer NOT NULL, `account_id` integer NOT NULL, `location_id` integer NULL, CONSTRAINT `stock_movements_product_lots_movements` FOREIGN KEY (`lot_id`) REFERENCES `product_lots` (`id`) ON DELETE RESTRICT, CONSTRAINT `stock_movements_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `stock_movements_locations_location` FOREIGN KEY (`location_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
-- create index "stockmovement_account_id" to table: "stock_movements"
CREATE INDEX `stockmovement_account_id` ON `stock_movements` (`account_id`);
-- create index "stockmovement_lot_id" to table: "stock_movements"
CREATE INDEX `stockmovement_lot_id` ON `stock_movements` (`lot_id`);
-- create index "stockmovement_location_id" to table: "stock_movements"
CREATE INDEX `stockmovement_location_id` ON `stock_movements` (`location_id`);

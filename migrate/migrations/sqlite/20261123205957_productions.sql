-- create "document_counters" table
CREATE TABLE `document_counters` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `document` text NOT NULL, `last` integer NOT NULL DEFAULT (0), `account_id` integer NOT NULL, CONSTRAINT `document_counters_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "documentcounter_account_id" to table: "document_counters"
CREATE INDEX `documentcounter_account_id` ON `document_counters` (`account_id`);
-- create index "documentcounter_account_id_document" to table: "document_counters"
CREATE UNIQUE INDEX `documentcounter_account_id_document` ON `document_counters` (`account_id`, `document`);
-- create "productions" table
CREATE TABLE `productions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `production_no` integer NOT NULL, `status` text NOT NULL DEFAULT ('PLANNED'), `signed` bool NOT NULL DEFAULT (false), `lot_number` text NULL, `start_date` datetime NULL, `end_date` datetime NULL, `expiration_date` datetime NULL, `production_qty_display_units` numeric NULL, `produced_qty_display_units` numeric NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, `production_line_id` integer NULL, `location_id` integer NULL, CONSTRAINT `productions_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `productions_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT, CONSTRAINT `productions_production_lines_production_line` FOREIGN KEY (`production_line_id`) REFERENCES `production_lines` (`id`) ON DELETE RESTRICT, CONSTRAINT `productions_locations_location` FOREIGN KEY (`location_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
-- create index "production_account_id" to table: "productions"
CREATE INDEX `production_account_id` ON `productions` (`account_id`);
-- create index "production_account_id_status" to table: "productions"
CREATE INDEX `production_account_id_status` ON `productions` (`account_id`, `status`);
-- create index "production_account_id_product_id" to table: "productions"
CREATE INDEX `production_account_id_product_id` ON `productions` (`account_id`, `product_id`);
-- create index "production_account_id_production_line_id" to table: "productions"
CREATE INDEX `production_account_id_production_line_id` ON `productions` (`account_id`, `production_line_id`);
-- create index "production_account_id_lot_number" to table: "productions"
CREATE INDEX `production_account_id_lot_number` ON `productions` (`account_id`, `lot_number`);
-- create index "production_account_id_start_date" to table: "productions"
CREATE INDEX `production_account_id_start_date` ON `productions` (`account_id`, `start_date`);
-- create index "production_account_id_end_date" to table: "productions"
CREATE INDEX `production_account_id_end_date` ON `productions` (`account_id`, `end_date`);
-- create index "production_account_id_production_no" to table: "productions"
CREATE UNIQUE INDEX `production_account_id_production_no` ON `productions` (`account_id`, `production_no`);
-- create index "production_location_id" to table: "productions"
CREATE INDEX `production_location_id` ON `productions` (`location_id`);
-- create "production_consumed_steps" table
CREATE TABLE `production_consumed_steps` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `quantity_base` numeric NULL, `production_id` integer NOT NULL, `account_id` integer NOT NULL, `lot_id` integer NULL, `product_id` integer NOT NULL, CONSTRAINT `production_consumed_steps_productions_consumed_steps` FOREIGN KEY (`production_id`) REFERENCES `productions` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_consumed_steps_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_consumed_steps_product_lots_lot` FOREIGN KEY (`lot_id`) REFERENCES `product_lots` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_consumed_steps_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT);
-- create index "productionconsumedstep_account_id" to table: "production_consumed_steps"
CREATE INDEX `productionconsumedstep_account_id` ON `production_consumed_steps` (`account_id`);
-- create index "productionconsumedstep_production_id" to table: "production_consumed_steps"
CREATE INDEX `productionconsumedstep_production_id` ON `production_consumed_steps` (`production_id`);
-- create index "productionconsumedstep_product_id" to table: "production_consumed_steps"
CREATE INDEX `productionconsumedstep_product_id` ON `production_consumed_steps` (`product_id`);
-- create index "productionconsumedstep_lot_id" to table: "production_consumed_steps"
CREATE INDEX `productionconsumedstep_lot_id` ON `production_consumed_steps` (`lot_id`);
-- create "production_planned_steps" table
CREATE TABLE `production_planned_steps` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `quantity_base` numeric NULL, `production_id` integer NOT NULL, `account_id` integer NOT NULL, `lot_id` integer NULL, `product_id` integer NOT NULL, CONSTRAINT `production_planned_steps_productions_planned_steps` FOREIGN KEY (`production_id`) REFERENCES `productions` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_planned_steps_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_planned_steps_product_lots_lot` FOREIGN KEY (`lot_id`) REFERENCES `product_lots` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_planned_steps_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT);
-- create index "productionplannedstep_account_id" to table: "production_planned_steps"
CREATE INDEX `productionplannedstep_account_id` ON `production_planned_steps` (`account_id`);
-- create index "productionplannedstep_production_id" to table: "production_planned_steps"
CREATE INDEX `productionplannedstep_production_id` ON `production_planned_steps` (`production_id`);
-- create index "productionplannedstep_product_id" to table: "production_planned_steps"
CREATE INDEX `productionplannedstep_product_id` ON `production_planned_steps` (`product_id`);
-- create index "productionplannedstep_lot_id" to table: "production_planned_steps"
CREATE INDEX `productionplannedstep_lot_id` ON `production_planned_steps` (`lot_id`);

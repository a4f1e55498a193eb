-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_product_allergens" table
CREATE TABLE `new_product_allergens` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `source` text NOT NULL DEFAULT ('declared'), `product_id` integer NOT NULL, `account_id` integer NOT NULL, `allergen_id` integer NOT NULL, CONSTRAINT `product_allergens_products_allergens` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `product_allergens_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_allergens_allergens_allergen` FOREIGN KEY (`allergen_id`) REFERENCES `allergens` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "product_allergens" to new temporary table "new_product_allergens"
INSERT INTO `new_product_allergens` (`id`, `source`, `product_id`, `account_id`, `allergen_id`) SELECT `id`, `source`, `product_id`, `account_id`, `allergen_id` FROM `product_allergens`;
-- drop "product_allergens" table after copying rows
DROP TABLE `product_allergens`;
-- rename temporary table "new_product_allergens" to "product_allergens"
ALTER TABLE `new_product_allergens` RENAME TO `product_allergens`;
-- create index "productallergen_account_id_id" to table: "product_allergens"
CREATE INDEX `productallergen_account_id_id` ON `product_allergens` (`account_id`, `id`);
-- create index "productallergen_account_id_product_id_allergen_id" to table: "product_allergens"
CREATE UNIQUE INDEX `productallergen_account_id_product_id_allergen_id` ON `product_allergens` (`account_id`, `product_id`, `allergen_id`);
-- create index "productallergen_allergen_id" to table: "product_allergens"
CREATE INDEX `productallergen_allergen_id` ON `product_allergens` (`allergen_id`);
-- create "new_product_banned_countries" table
CREATE TABLE `new_product_banned_countries` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `country_id` integer NOT NULL, CONSTRAINT `product_banned_countries_products_banned_countries` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `product_banned_countries_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_banned_countries_countries_country` FOREIGN KEY (`country_id`) REFERENCES `countries` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "product_banned_countries" to new temporary table "new_product_banned_countries"
INSERT INTO `new_product_banned_countries` (`id`, `product_id`, `account_id`, `country_id`) SELECT `id`, `product_id`, `account_id`, `country_id` FROM `product_banned_countries`;
-- drop "product_banned_countries" table after copying rows
DROP TABLE `product_banned_countries`;
-- rename temporary table "new_product_banned_countries" to "product_banned_countries"
ALTER TABLE `new_product_banned_countries` RENAME TO `product_banned_countries`;
-- create index "productbannedcountry_account_id_id" to table: "product_banned_countries"
CREATE INDEX `productbannedcountry_account_id_id` ON `product_banned_countries` (`account_id`, `id`);
-- create index "productbannedcountry_account_id_product_id_country_id" to table: "product_banned_countries"
CREATE UNIQUE INDEX `productbannedcountry_account_id_product_id_country_id` ON `product_banned_countries` (`account_id`, `product_id`, `country_id`);
-- create index "productbannedcountry_country_id" to table: "product_banned_countries"
CREATE INDEX `productbannedcountry_country_id` ON `product_banned_countries` (`country_id`);
-- create "new_product_byproducts" table
CREATE TABLE `new_product_byproducts` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `byproduct_id` integer NOT NULL, CONSTRAINT `product_byproducts_products_byproducts` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `product_byproducts_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_byproducts_products_byproduct` FOREIGN KEY (`account_id`, `byproduct_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "product_byproducts" to new temporary table "new_product_byproducts"
INSERT INTO `new_product_byproducts` (`id`, `product_id`, `account_id`, `byproduct_id`) SELECT `id`, `product_id`, `account_id`, `byproduct_id` FROM `product_byproducts`;
-- drop "product_byproducts" table after copying rows
DROP TABLE `product_byproducts`;
-- rename temporary table "new_product_byproducts" to "product_byproducts"
ALTER TABLE `new_product_byproducts` RENAME TO `product_byproducts`;
-- create index "productbyproduct_account_id_id" to table: "product_byproducts"
CREATE INDEX `productbyproduct_account_id_id` ON `product_byproducts` (`account_id`, `id`);
-- create index "productbyproduct_account_id_product_id_byproduct_id" to table: "product_byproducts"
CREATE UNIQUE INDEX `productbyproduct_account_id_product_id_byproduct_id` ON `product_byproducts` (`account_id`, `product_id`, `byproduct_id`);
-- create index "productbyproduct_byproduct_id" to table: "product_byproducts"
CREATE INDEX `productbyproduct_byproduct_id` ON `product_byproducts` (`byproduct_id`);
-- create "new_product_qc_checkpoints" table
CREATE TABLE `new_product_qc_checkpoints` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `qc_checkpoint_id` integer NOT NULL, CONSTRAINT `product_qc_checkpoints_products_qc_checkpoints` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `product_qc_checkpoints_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_qc_checkpoints_qc_checkpoints_qc_checkpoint` FOREIGN KEY (`account_id`, `qc_checkpoint_id`) REFERENCES `qc_checkpoints` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "product_qc_checkpoints" to new temporary table "new_product_qc_checkpoints"
INSERT INTO `new_product_qc_checkpoints` (`id`, `product_id`, `account_id`, `qc_checkpoint_id`) SELECT `id`, `product_id`, `account_id`, `qc_checkpoint_id` FROM `product_qc_checkpoints`;
-- drop "product_qc_checkpoints" table after copying rows
DROP TABLE `product_qc_checkpoints`;
-- rename temporary table "new_product_qc_checkpoints" to "product_qc_checkpoints"
ALTER TABLE `new_product_qc_checkpoints` RENAME TO `product_qc_checkpoints`;
-- create index "productqccheckpoint_account_id_id" to table: "product_qc_checkpoints"
CREATE INDEX `productqccheckpoint_account_id_id` ON `product_qc_checkpoints` (`account_id`, `id`);
-- create index "productqccheckpoint_account_id_product_id_qc_checkpoint_id" to table: "product_qc_checkpoints"
CREATE UNIQUE INDEX `productqccheckpoint_account_id_product_id_qc_checkpoint_id` ON `product_qc_checkpoints` (`account_id`, `product_id`, `qc_checkpoint_id`);
-- create index "productqccheckpoint_qc_checkpoint_id" to table: "product_qc_checkpoints"
CREATE INDEX `productqccheckpoint_qc_checkpoint_id` ON `product_qc_checkpoints` (`qc_checkpoint_id`);
-- create "new_product_substitutes" table
CREATE TABLE `new_product_substitutes` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `substitute_id` integer NOT NULL, CONSTRAINT `product_substitutes_products_substitutes` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `product_substitutes_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_substitutes_products_substitute` FOREIGN KEY (`account_id`, `substitute_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "product_substitutes" to new temporary table "new_product_substitutes"
INSERT INTO `new_product_substitutes` (`id`, `product_id`, `account_id`, `substitute_id`) SELECT `id`, `product_id`, `account_id`, `substitute_id` FROM `product_substitutes`;
-- drop "product_substitutes" table after copying rows
DROP TABLE `product_substitutes`;
-- rename temporary table "new_product_substitutes" to "product_substitutes"
ALTER TABLE `new_product_substitutes` RENAME TO `product_substitutes`;
-- create index "productsubstitute_account_id_id" to table: "product_substitutes"
CREATE INDEX `productsubstitute_account_id_id` ON `product_substitutes` (`account_id`, `id`);
-- create index "productsubstitute_account_id_product_id_substitute_id" to table: "product_substitutes"
CREATE UNIQUE INDEX `productsubstitute_account_id_product_id_substitute_id` ON `product_substitutes` (`account_id`, `product_id`, `substitute_id`);
-- create index "productsubstitute_substitute_id" to table: "product_substitutes"
CREATE INDEX `productsubstitute_substitute_id` ON `product_substitutes` (`substitute_id`);
-- create "new_product_suppliers" table
CREATE TABLE `new_product_suppliers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `supplier_id` integer NOT NULL, CONSTRAINT `product_suppliers_products_suppliers` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `product_suppliers_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_suppliers_suppliers_supplier` FOREIGN KEY (`account_id`, `supplier_id`) REFERENCES `suppliers` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "product_suppliers" to new temporary table "new_product_suppliers"
INSERT INTO `new_product_suppliers` (`id`, `product_id`, `account_id`, `supplier_id`) SELECT `id`, `product_id`, `account_id`, `supplier_id` FROM `product_suppliers`;
-- drop "product_suppliers" table after copying rows
DROP TABLE `product_suppliers`;
-- rename temporary table "new_product_suppliers" to "product_suppliers"
ALTER TABLE `new_product_suppliers` RENAME TO `product_suppliers`;
-- create index "productsupplier_account_id_id" to table: "product_suppliers"
CREATE INDEX `productsupplier_account_id_id` ON `product_suppliers` (`account_id`, `id`);
-- create index "productsupplier_account_id_product_id_supplier_id" to table: "product_suppliers"
CREATE UNIQUE INDEX `productsupplier_account_id_product_id_supplier_id` ON `product_suppliers` (`account_id`, `product_id`, `supplier_id`);
-- create index "productsupplier_supplier_id" to table: "product_suppliers"
CREATE INDEX `productsupplier_supplier_id` ON `product_suppliers` (`supplier_id`);
-- create "new_product_tags" table
CREATE TABLE `new_product_tags` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `tag_id` integer NOT NULL, CONSTRAINT `product_tags_products_tags` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `product_tags_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_tags_tags_tag` FOREIGN KEY (`account_id`, `tag_id`) REFERENCES `tags` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "product_tags" to new temporary table "new_product_tags"
INSERT INTO `new_product_tags` (`id`, `product_id`, `account_id`, `tag_id`) SELECT `id`, `product_id`, `account_id`, `tag_id` FROM `product_tags`;
-- drop "product_tags" table after copying rows
DROP TABLE `product_tags`;
-- rename temporary table "new_product_tags" to "product_tags"
ALTER TABLE `new_product_tags` RENAME TO `product_tags`;
-- create index "producttag_account_id_id" to table: "product_tags"
CREATE INDEX `producttag_account_id_id` ON `product_tags` (`account_id`, `id`);
-- create index "producttag_account_id_product_id_tag_id" to table: "product_tags"
CREATE UNIQUE INDEX `producttag_account_id_product_id_tag_id` ON `product_tags` (`account_id`, `product_id`, `tag_id`);
-- create index "producttag_tag_id" to table: "product_tags"
CREATE INDEX `producttag_tag_id` ON `product_tags` (`tag_id`);
-- create "new_lot_corrections" table
CREATE TABLE `new_lot_corrections` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `quantity_before` numeric NOT NULL, `quantity_after` numeric NOT NULL, `source` text NOT NULL, `api_key_id` integer NULL, `request_id` text NULL, `created_at` datetime NOT NULL, `account_id` integer NOT NULL, `lot_id` integer NOT NULL, CONSTRAINT `lot_corrections_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `lot_corrections_product_lots_corrections` FOREIGN KEY (`account_id`, `lot_id`) REFERENCES `product_lots` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "lot_corrections" to new temporary table "new_lot_corrections"
INSERT INTO `new_lot_corrections` (`id`, `quantity_before`, `quantity_after`, `source`, `api_key_id`, `request_id`, `created_at`, `account_id`, `lot_id`) SELECT `id`, `quantity_before`, `quantity_after`, `source`, `api_key_id`, `request_id`, `created_at`, `account_id`, `lot_id` FROM `lot_corrections`;
-- drop "lot_corrections" table after copying rows
DROP TABLE `lot_corrections`;
-- rename temporary table "new_lot_corrections" to "lot_corrections"
ALTER TABLE `new_lot_corrections` RENAME TO `lot_corrections`;
-- create index "lotcorrection_account_id_id" to table: "lot_corrections"
CREATE INDEX `lotcorrection_account_id_id` ON `lot_corrections` (`account_id`, `id`);
-- create index "lotcorrection_lot_id" to table: "lot_corrections"
CREATE INDEX `lotcorrection_lot_id` ON `lot_corrections` (`lot_id`);
-- create "new_stock_movements" table
CREATE TABLE `new_stock_movements` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `type` text NOT NULL, `quantity_base` numeric NOT NULL, `document_type` text NULL, `document_id` integer NULL, `source` text NOT NULL, `api_key_id` integer NULL, `request_id` text NULL, `created_at` datetime NOT NULL, `lot_id` integer NOT NULL, `account_id` integer NOT NULL, `location_id` integer NULL, CONSTRAINT `stock_movements_product_lots_movements` FOREIGN KEY (`account_id`, `lot_id`) REFERENCES `product_lots` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `stock_movements_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `stock_movements_locations_location` FOREIGN KEY (`account_id`, `location_id`) REFERENCES `locations` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "stock_movements" to new temporary table "new_stock_movements"
INSERT INTO `new_stock_movements` (`id`, `type`, `quantity_base`, `document_type`, `document_id`, `source`, `api_key_id`, `request_id`, `created_at`, `lot_id`, `account_id`, `location_id`) SELECT `id`, `type`, `quantity_base`, `document_type`, `document_id`, `source`, `api_key_id`, `request_id`, `created_at`, `lot_id`, `account_id`, `location_id` FROM `stock_movements`;
-- drop "stock_movements" table after copying rows
DROP TABLE `stock_movements`;
-- rename temporary table "new_stock_movements" to "stock_movements"
ALTER TABLE `new_stock_movements` RENAME TO `stock_movements`;
-- create index "stockmovement_account_id_id" to table: "stock_movements"
CREATE INDEX `stockmovement_account_id_id` ON `stock_movements` (`account_id`, `id`);
-- create index "stockmovement_lot_id" to table: "stock_movements"
CREATE INDEX `stockmovement_lot_id` ON `stock_movements` (`lot_id`);
-- create index "stockmovement_location_id" to table: "stock_movements"
CREATE INDEX `stockmovement_location_id` ON `stock_movements` (`location_id`);
-- create index "stockmovement_account_id_document_type_document_id" to table: "stock_movements"
CREATE INDEX `stockmovement_account_id_document_type_document_id` ON `stock_movements` (`account_id`, `document_type`, `document_id`);
-- create "new_production_consumed_steps" table
CREATE TABLE `new_production_consumed_steps` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `quantity_base` numeric NULL, `production_id` integer NOT NULL, `account_id` integer NOT NULL, `lot_id` integer NULL, `product_id` integer NOT NULL, CONSTRAINT `production_consumed_steps_productions_consumed_steps` FOREIGN KEY (`account_id`, `production_id`) REFERENCES `productions` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `production_consumed_steps_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_consumed_steps_product_lots_lot` FOREIGN KEY (`account_id`, `lot_id`) REFERENCES `product_lots` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `production_consumed_steps_products_product` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "production_consumed_steps" to new temporary table "new_production_consumed_steps"
INSERT INTO `new_production_consumed_steps` (`id`, `quantity_base`, `production_id`, `account_id`, `lot_id`, `product_id`) SELECT `id`, `quantity_base`, `production_id`, `account_id`, `lot_id`, `product_id` FROM `production_consumed_steps`;
-- drop "production_consumed_steps" table after copying rows
DROP TABLE `production_consumed_steps`;
-- rename temporary table "new_production_consumed_steps" to "production_consumed_steps"
ALTER TABLE `new_production_consumed_steps` RENAME TO `production_consumed_steps`;
-- create index "productionconsumedstep_account_id_id" to table: "production_consumed_steps"
CREATE INDEX `productionconsumedstep_account_id_id` ON `production_consumed_steps` (`account_id`, `id`);
-- create index "productionconsumedstep_production_id" to table: "production_consumed_steps"
CREATE INDEX `productionconsumedstep_production_id` ON `production_consumed_steps` (`production_id`);
-- create index "productionconsumedstep_product_id" to table: "production_consumed_steps"
CREATE INDEX `productionconsumedstep_product_id` ON `production_consumed_steps` (`product_id`);
-- create index "productionconsumedstep_lot_id" to table: "production_consumed_steps"
CREATE INDEX `productionconsumedstep_lot_id` ON `production_consumed_steps` (`lot_id`);
-- create "new_production_planned_steps" table
CREATE TABLE `new_production_planned_steps` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `quantity_base` numeric NULL, `production_id` integer NOT NULL, `account_id` integer NOT NULL, `lot_id` integer NULL, `product_id` integer NOT NULL, CONSTRAINT `production_planned_steps_productions_planned_steps` FOREIGN KEY (`account_id`, `production_id`) REFERENCES `productions` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `production_planned_steps_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_planned_steps_product_lots_lot` FOREIGN KEY (`account_id`, `lot_id`) REFERENCES `product_lots` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `production_planned_steps_products_product` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "production_planned_steps" to new temporary table "new_production_planned_steps"
INSERT INTO `new_production_planned_steps` (`id`, `quantity_base`, `production_id`, `account_id`, `lot_id`, `product_id`) SELECT `id`, `quantity_base`, `production_id`, `account_id`, `lot_id`, `product_id` FROM `production_planned_steps`;
-- drop "production_planned_steps" table after copying rows
DROP TABLE `production_planned_steps`;
-- rename temporary table "new_production_planned_steps" to "production_planned_steps"
ALTER TABLE `new_production_planned_steps` RENAME TO `production_planned_steps`;
-- create index "productionplannedstep_account_id_id" to table: "production_planned_steps"
CREATE INDEX `productionplannedstep_account_id_id` ON `production_planned_steps` (`account_id`, `id`);
-- create index "productionplannedstep_production_id" to table: "production_planned_steps"
CREATE INDEX `productionplannedstep_production_id` ON `production_planned_steps` (`production_id`);
-- create index "productionplannedstep_product_id" to table: "production_planned_steps"
CREATE INDEX `productionplannedstep_product_id` ON `production_planned_steps` (`product_id`);
-- create index "productionplannedstep_lot_id" to table: "production_planned_steps"
CREATE INDEX `productionplannedstep_lot_id` ON `production_planned_steps` (`lot_id`);
-- create "new_production_line_equipments" table
CREATE TABLE `new_production_line_equipments` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `production_line_id` integer NOT NULL, `account_id` integer NOT NULL, `equipment_id` integer NOT NULL, CONSTRAINT `production_line_equipments_production_lines_equipment` FOREIGN KEY (`account_id`, `production_line_id`) REFERENCES `production_lines` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `production_line_equipments_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_line_equipments_equipment_equipment` FOREIGN KEY (`account_id`, `equipment_id`) REFERENCES `equipment` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "production_line_equipments" to new temporary table "new_production_line_equipments"
INSERT INTO `new_production_line_equipments` (`id`, `production_line_id`, `account_id`, `equipment_id`) SELECT `id`, `production_line_id`, `account_id`, `equipment_id` FROM `production_line_equipments`;
-- drop "production_line_equipments" table after copying rows
DROP TABLE `production_line_equipments`;
-- rename temporary table "new_production_line_equipments" to "production_line_equipments"
ALTER TABLE `new_production_line_equipments` RENAME TO `production_line_equipments`;
-- create index "productionlineequipment_account_id_id" to table: "production_line_equipments"
CREATE INDEX `productionlineequipment_account_id_id` ON `production_line_equipments` (`account_id`, `id`);
-- create index "productionlineequipment_account_id_line_id_equipment_id" to table: "production_line_equipments"
CREATE UNIQUE INDEX `productionlineequipment_account_id_line_id_equipment_id` ON `production_line_equipments` (`account_id`, `production_line_id`, `equipment_id`);
-- create index "productionlineequipment_equipment_id" to table: "production_line_equipments"
CREATE INDEX `productionlineequipment_equipment_id` ON `production_line_equipments` (`equipment_id`);
-- create "new_production_operations" table
CREATE TABLE `new_production_operations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `position` integer NOT NULL, `production_id` integer NOT NULL, `account_id` integer NOT NULL, `operation_id` integer NOT NULL, `equipment_id` integer NULL, CONSTRAINT `production_operations_productions_operations` FOREIGN KEY (`account_id`, `production_id`) REFERENCES `productions` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `production_operations_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_operations_operations_operation` FOREIGN KEY (`account_id`, `operation_id`) REFERENCES `operations` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `production_operations_equipment_equipment` FOREIGN KEY (`account_id`, `equipment_id`) REFERENCES `equipment` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "production_operations" to new temporary table "new_production_operations"
INSERT INTO `new_production_operations` (`id`, `position`, `production_id`, `account_id`, `operation_id`, `equipment_id`) SELECT `id`, `position`, `production_id`, `account_id`, `operation_id`, `equipment_id` FROM `production_operations`;
-- drop "production_operations" table after copying rows
DROP TABLE `production_operations`;
-- rename temporary table "new_production_operations" to "production_operations"
ALTER TABLE `new_production_operations` RENAME TO `production_operations`;
-- create index "productionoperation_account_id_id" to table: "production_operations"
CREATE INDEX `productionoperation_account_id_id` ON `production_operations` (`account_id`, `id`);
-- create index "productionoperation_account_id_production_id_position" to table: "production_operations"
CREATE UNIQUE INDEX `productionoperation_account_id_production_id_position` ON `production_operations` (`account_id`, `production_id`, `position`);
-- create index "productionoperation_operation_id" to table: "production_operations"
CREATE INDEX `productionoperation_operation_id` ON `production_operations` (`operation_id`);
-- create index "productionoperation_equipment_id" to table: "production_operations"
CREATE INDEX `productionoperation_equipment_id` ON `production_operations` (`equipment_id`);
-- create "new_recipe_steps" table
CREATE TABLE `new_recipe_steps` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `position` integer NOT NULL, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `operation_id` integer NOT NULL, `equipment_id` integer NULL, CONSTRAINT `recipe_steps_products_recipe_steps` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `recipe_steps_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `recipe_steps_operations_operation` FOREIGN KEY (`account_id`, `operation_id`) REFERENCES `operations` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `recipe_steps_equipment_equipment` FOREIGN KEY (`account_id`, `equipment_id`) REFERENCES `equipment` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "recipe_steps" to new temporary table "new_recipe_steps"
INSERT INTO `new_recipe_steps` (`id`, `position`, `product_id`, `account_id`, `operation_id`, `equipment_id`) SELECT `id`, `position`, `product_id`, `account_id`, `operation_id`, `equipment_id` FROM `recipe_steps`;
-- drop "recipe_steps" table after copying rows
DROP TABLE `recipe_steps`;
-- rename temporary table "new_recipe_steps" to "recipe_steps"
ALTER TABLE `new_recipe_steps` RENAME TO `recipe_steps`;
-- create index "recipestep_account_id_id" to table: "recipe_steps"
CREATE INDEX `recipestep_account_id_id` ON `recipe_steps` (`account_id`, `id`);
-- create index "recipestep_account_id_product_id_position" to table: "recipe_steps"
CREATE UNIQUE INDEX `recipestep_account_id_product_id_position` ON `recipe_steps` (`account_id`, `product_id`, `position`);
-- create index "recipestep_operation_id" to table: "recipe_steps"
CREATE INDEX `recipestep_operation_id` ON `recipe_steps` (`operation_id`);
-- create index "recipestep_equipment_id" to table: "recipe_steps"
CREATE INDEX `recipestep_equipment_id` ON `recipe_steps` (`equipment_id`);
-- create "new_customer_tags" table
CREATE TABLE `new_customer_tags` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `customer_id` integer NOT NULL, `account_id` integer NOT NULL, `tag_id` integer NOT NULL, CONSTRAINT `customer_tags_customers_tags` FOREIGN KEY (`account_id`, `customer_id`) REFERENCES `customers` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `customer_tags_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `customer_tags_tags_tag` FOREIGN KEY (`account_id`, `tag_id`) REFERENCES `tags` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "customer_tags" to new temporary table "new_customer_tags"
INSERT INTO `new_customer_tags` (`id`, `customer_id`, `account_id`, `tag_id`) SELECT `id`, `customer_id`, `account_id`, `tag_id` FROM `customer_tags`;
-- drop "customer_tags" table after copying rows
DROP TABLE `customer_tags`;
-- rename temporary table "new_customer_tags" to "customer_tags"
ALTER TABLE `new_customer_tags` RENAME TO `customer_tags`;
-- create index "customertag_account_id_id" to table: "customer_tags"
CREATE INDEX `customertag_account_id_id` ON `customer_tags` (`account_id`, `id`);
-- create index "customertag_account_id_customer_id_tag_id" to table: "customer_tags"
CREATE UNIQUE INDEX `customertag_account_id_customer_id_tag_id` ON `customer_tags` (`account_id`, `customer_id`, `tag_id`);
-- create index "customertag_tag_id" to table: "customer_tags"
CREATE INDEX `customertag_tag_id` ON `customer_tags` (`tag_id`);
-- create "new_bill_lines" table
CREATE TABLE `new_bill_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `cost` numeric NULL, `discount_rate` numeric NULL, `expiration_date` datetime NULL, `product_code` text NULL, `product_name` text NULL, `quantity` numeric NULL, `quantity_base` numeric NULL, `supplier_partno` text NULL, `lot_number` text NOT NULL, `bill_id` integer NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, `location_id` integer NULL, `lot_id` integer NULL, CONSTRAINT `bill_lines_bills_lines` FOREIGN KEY (`account_id`, `bill_id`) REFERENCES `bills` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `bill_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `bill_lines_products_product` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `bill_lines_locations_location` FOREIGN KEY (`account_id`, `location_id`) REFERENCES `locations` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `bill_lines_product_lots_lot` FOREIGN KEY (`account_id`, `lot_id`) REFERENCES `product_lots` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "bill_lines" to new temporary table "new_bill_lines"
INSERT INTO `new_bill_lines` (`id`, `cost`, `discount_rate`, `expiration_date`, `product_code`, `product_name`, `quantity`, `quantity_base`, `supplier_partno`, `lot_number`, `bill_id`, `account_id`, `product_id`, `location_id`, `lot_id`) SELECT `id`, `cost`, `discount_rate`, `expiration_date`, `product_code`, `product_name`, `quantity`, `quantity_base`, `supplier_partno`, `lot_number`, `bill_id`, `account_id`, `product_id`, `location_id`, `lot_id` FROM `bill_lines`;
-- drop "bill_lines" table after copying rows
DROP TABLE `bill_lines`;
-- rename temporary table "new_bill_lines" to "bill_lines"
ALTER TABLE `new_bill_lines` RENAME TO `bill_lines`;
-- create index "billline_account_id_id" to table: "bill_lines"
CREATE INDEX `billline_account_id_id` ON `bill_lines` (`account_id`, `id`);
-- create index "billline_bill_id" to table: "bill_lines"
CREATE INDEX `billline_bill_id` ON `bill_lines` (`bill_id`);
-- create index "billline_product_id" to table: "bill_lines"
CREATE INDEX `billline_product_id` ON `bill_lines` (`product_id`);
-- create index "billline_location_id" to table: "bill_lines"
CREATE INDEX `billline_location_id` ON `bill_lines` (`location_id`);
-- create index "billline_lot_id" to table: "bill_lines"
CREATE INDEX `billline_lot_id` ON `bill_lines` (`lot_id`);
-- create "new_purchase_order_lines" table
CREATE TABLE `new_purchase_order_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `cost` numeric NULL, `discount_rate` numeric NULL, `expiration_date` datetime NULL, `lead_time` integer NULL, `notes` text NULL, `product_code` text NULL, `product_name` text NULL, `quantity` numeric NULL, `quantity_base` numeric NULL, `supplier_partno` text NULL, `purchase_order_id` integer NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, CONSTRAINT `purchase_order_lines_purchase_orders_lines` FOREIGN KEY (`account_id`, `purchase_order_id`) REFERENCES `purchase_orders` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `purchase_order_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `purchase_order_lines_products_product` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "purchase_order_lines" to new temporary table "new_purchase_order_lines"
INSERT INTO `new_purchase_order_lines` (`id`, `cost`, `discount_rate`, `expiration_date`, `lead_time`, `notes`, `product_code`, `product_name`, `quantity`, `quantity_base`, `supplier_partno`, `purchase_order_id`, `account_id`, `product_id`) SELECT `id`, `cost`, `discount_rate`, `expiration_date`, `lead_time`, `notes`, `product_code`, `product_name`, `quantity`, `quantity_base`, `supplier_partno`, `purchase_order_id`, `account_id`, `product_id` FROM `purchase_order_lines`;
-- drop "purchase_order_lines" table after copying rows
DROP TABLE `purchase_order_lines`;
-- rename temporary table "new_purchase_order_lines" to "purchase_order_lines"
ALTER TABLE `new_purchase_order_lines` RENAME TO `purchase_order_lines`;
-- create index "purchaseorderline_account_id_id" to table: "purchase_order_lines"
CREATE INDEX `purchaseorderline_account_id_id` ON `purchase_order_lines` (`account_id`, `id`);
-- create index "purchaseorderline_purchase_order_id" to table: "purchase_order_lines"
CREATE INDEX `purchaseorderline_purchase_order_id` ON `purchase_order_lines` (`purchase_order_id`);
-- create index "purchaseorderline_product_id" to table: "purchase_order_lines"
CREATE INDEX `purchaseorderline_product_id` ON `purchase_order_lines` (`product_id`);
-- create "new_sales_order_lines" table
CREATE TABLE `new_sales_order_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `cancelled_qty_base` numeric NULL, `discount_rate` numeric NULL, `notes` text NULL, `order_qty` numeric NULL, `order_qty_base` numeric NULL, `price` numeric NULL, `product_code` text NULL, `product_name` text NULL, `shipped_qty_base` numeric NULL, `tax1` bool NULL DEFAULT (false), `tax2` bool NULL DEFAULT (false), `uom_type` text NOT NULL DEFAULT ('BASE_UOM'), `sales_order_id` integer NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, CONSTRAINT `sales_order_lines_sales_orders_lines` FOREIGN KEY (`account_id`, `sales_order_id`) REFERENCES `sales_orders` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `sales_order_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `sales_order_lines_products_product` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "sales_order_lines" to new temporary table "new_sales_order_lines"
INSERT INTO `new_sales_order_lines` (`id`, `cancelled_qty_base`, `discount_rate`, `notes`, `order_qty`, `order_qty_base`, `price`, `product_code`, `product_name`, `shipped_qty_base`, `tax1`, `tax2`, `uom_type`, `sales_order_id`, `account_id`, `product_id`) SELECT `id`, `cancelled_qty_base`, `discount_rate`, `notes`, `order_qty`, `order_qty_base`, `price`, `product_code`, `product_name`, `shipped_qty_base`, `tax1`, `tax2`, `uom_type`, `sales_order_id`, `account_id`, `product_id` FROM `sales_order_lines`;
-- drop "sales_order_lines" table after copying rows
DROP TABLE `sales_order_lines`;
-- rename temporary table "new_sales_order_lines" to "sales_order_lines"
ALTER TABLE `new_sales_order_lines` RENAME TO `sales_order_lines`;
-- create index "salesorderline_account_id_id" to table: "sales_order_lines"
CREATE INDEX `salesorderline_account_id_id` ON `sales_order_lines` (`account_id`, `id`);
-- create index "salesorderline_sales_order_id" to table: "sales_order_lines"
CREATE INDEX `salesorderline_sales_order_id` ON `sales_order_lines` (`sales_order_id`);
-- create index "salesorderline_product_id" to table: "sales_order_lines"
CREATE INDEX `salesorderline_product_id` ON `sales_order_lines` (`product_id`);
-- create "new_invoice_lines" table
CREATE TABLE `new_invoice_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `discount_rate` numeric NULL, `price` numeric NULL, `product_code` text NULL, `product_name` text NULL, `shipped_qty` numeric NULL, `shipped_qty_base` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `uom_type` text NULL, `invoice_id` integer NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, CONSTRAINT `invoice_lines_invoices_lines` FOREIGN KEY (`account_id`, `invoice_id`) REFERENCES `invoices` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `invoice_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `invoice_lines_products_product` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "invoice_lines" to new temporary table "new_invoice_lines"
INSERT INTO `new_invoice_lines` (`id`, `discount_rate`, `price`, `product_code`, `product_name`, `shipped_qty`, `shipped_qty_base`, `tax1`, `tax2`, `uom_type`, `invoice_id`, `account_id`, `product_id`) SELECT `id`, `discount_rate`, `price`, `product_code`, `product_name`, `shipped_qty`, `shipped_qty_base`, `tax1`, `tax2`, `uom_type`, `invoice_id`, `account_id`, `product_id` FROM `invoice_lines`;
-- drop "invoice_lines" table after copying rows
DROP TABLE `invoice_lines`;
-- rename temporary table "new_invoice_lines" to "invoice_lines"
ALTER TABLE `new_invoice_lines` RENAME TO `invoice_lines`;
-- create index "invoiceline_account_id_id" to table: "invoice_lines"
CREATE INDEX `invoiceline_account_id_id` ON `invoice_lines` (`account_id`, `id`);
-- create index "invoiceline_invoice_id" to table: "invoice_lines"
CREATE INDEX `invoiceline_invoice_id` ON `invoice_lines` (`invoice_id`);
-- create index "invoiceline_product_id" to table: "invoice_lines"
CREATE INDEX `invoiceline_product_id` ON `invoice_lines` (`product_id`);
-- create "new_shipment_lines" table
CREATE TABLE `new_shipment_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `sales_order_line_id` integer NOT NULL, `quantity_base` numeric NULL, `shipment_id` integer NOT NULL, `account_id` integer NOT NULL, `lot_id` integer NULL, CONSTRAINT `shipment_lines_shipments_lines` FOREIGN KEY (`account_id`, `shipment_id`) REFERENCES `shipments` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `shipment_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shipment_lines_product_lots_lot` FOREIGN KEY (`account_id`, `lot_id`) REFERENCES `product_lots` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "shipment_lines" to new temporary table "new_shipment_lines"
INSERT INTO `new_shipment_lines` (`id`, `sales_order_line_id`, `quantity_base`, `shipment_id`, `account_id`, `lot_id`) SELECT `id`, `sales_order_line_id`, `quantity_base`, `shipment_id`, `account_id`, `lot_id` FROM `shipment_lines`;
-- drop "shipment_lines" table after copying rows
DROP TABLE `shipment_lines`;
-- rename temporary table "new_shipment_lines" to "shipment_lines"
ALTER TABLE `new_shipment_lines` RENAME TO `shipment_lines`;
-- create index "shipmentline_account_id_id" to table: "shipment_lines"
CREATE INDEX `shipmentline_account_id_id` ON `shipment_lines` (`account_id`, `id`);
-- create index "shipmentline_shipment_id" to table: "shipment_lines"
CREATE INDEX `shipmentline_shipment_id` ON `shipment_lines` (`shipment_id`);
-- create index "shipmentline_lot_id" to table: "shipment_lines"
CREATE INDEX `shipmentline_lot_id` ON `shipment_lines` (`lot_id`);
-- create "new_locations" table
CREATE TABLE `new_locations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `description` text NULL, `is_active` bool NOT NULL DEFAULT (true), `name` text NOT NULL, `path` text NOT NULL, `account_id` integer NOT NULL, `parent_id` integer NULL, CONSTRAINT `locations_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `locations_locations_children` FOREIGN KEY (`account_id`, `parent_id`) REFERENCES `locations` (`account_id`, `id`) ON DELETE CASCADE);
-- copy rows from old table "locations" to new temporary table "new_locations"
INSERT INTO `new_locations` (`id`, `created_at`, `updated_at`, `code`, `description`, `is_active`, `name`, `path`, `account_id`, `parent_id`) SELECT `id`, `created_at`, `updated_at`, `code`, `description`, `is_active`, `name`, `path`, `account_id`, `parent_id` FROM `locations`;
-- drop "locations" table after copying rows
DROP TABLE `locations`;
-- rename temporary table "new_locations" to "locations"
ALTER TABLE `new_locations` RENAME TO `locations`;
-- create index "location_account_id_id" to table: "locations"
CREATE UNIQUE INDEX `location_account_id_id` ON `locations` (`account_id`, `id`);
-- create index "location_account_id_name" to table: "locations"
CREATE INDEX `location_account_id_name` ON `locations` (`account_id`, `name`);
-- create index "location_account_id_path" to table: "locations"
CREATE INDEX `location_account_id_path` ON `locations` (`account_id`, `path`);
-- create index "location_account_id_code" to table: "locations"
CREATE UNIQUE INDEX `location_account_id_code` ON `locations` (`account_id`, `code`) WHERE parent_id IS NULL;
-- create index "location_account_id_parent_id_code" to table: "locations"
CREATE UNIQUE INDEX `location_account_id_parent_id_code` ON `locations` (`account_id`, `parent_id`, `code`);
-- create "new_equipment" table
CREATE TABLE `new_equipment` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `name` text NOT NULL, `out_of_service` bool NOT NULL DEFAULT (false), `account_id` integer NOT NULL, `warehouse_id` integer NULL, CONSTRAINT `equipment_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `equipment_locations_warehouse` FOREIGN KEY (`account_id`, `warehouse_id`) REFERENCES `locations` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "equipment" to new temporary table "new_equipment"
INSERT INTO `new_equipment` (`id`, `created_at`, `updated_at`, `code`, `name`, `out_of_service`, `account_id`, `warehouse_id`) SELECT `id`, `created_at`, `updated_at`, `code`, `name`, `out_of_service`, `account_id`, `warehouse_id` FROM `equipment`;
-- drop "equipment" table after copying rows
DROP TABLE `equipment`;
-- rename temporary table "new_equipment" to "equipment"
ALTER TABLE `new_equipment` RENAME TO `equipment`;
-- create index "equipment_account_id_id" to table: "equipment"
CREATE UNIQUE INDEX `equipment_account_id_id` ON `equipment` (`account_id`, `id`);
-- create index "equipment_account_id_name" to table: "equipment"
CREATE INDEX `equipment_account_id_name` ON `equipment` (`account_id`, `name`);
-- create index "equipment_account_id_out_of_service" to table: "equipment"
CREATE INDEX `equipment_account_id_out_of_service` ON `equipment` (`account_id`, `out_of_service`);
-- create index "equipment_account_id_code" to table: "equipment"
CREATE UNIQUE INDEX `equipment_account_id_code` ON `equipment` (`account_id`, `code`);
-- create index "equipment_warehouse_id" to table: "equipment"
CREATE INDEX `equipment_warehouse_id` ON `equipment` (`warehouse_id`);
-- create "new_production_lines" table
CREATE TABLE `new_production_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `deleted_at` datetime NULL, `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, `warehouse_id` integer NULL, CONSTRAINT `production_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_lines_locations_warehouse` FOREIGN KEY (`account_id`, `warehouse_id`) REFERENCES `locations` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "production_lines" to new temporary table "new_production_lines"
INSERT INTO `new_production_lines` (`id`, `created_at`, `updated_at`, `deleted_at`, `description`, `name`, `account_id`, `warehouse_id`) SELECT `id`, `created_at`, `updated_at`, `deleted_at`, `description`, `name`, `account_id`, `warehouse_id` FROM `production_lines`;
-- drop "production_lines" table after copying rows
DROP TABLE `production_lines`;
-- rename temporary table "new_production_lines" to "production_lines"
ALTER TABLE `new_production_lines` RENAME TO `production_lines`;
-- create index "productionline_account_id_id" to table: "production_lines"
CREATE UNIQUE INDEX `productionline_account_id_id` ON `production_lines` (`account_id`, `id`);
-- create index "productionline_account_id_name" to table: "production_lines"
CREATE UNIQUE INDEX `productionline_account_id_name` ON `production_lines` (`account_id`, `name`) WHERE deleted_at IS NULL;
-- create index "productionline_warehouse_id" to table: "production_lines"
CREATE INDEX `productionline_warehouse_id` ON `production_lines` (`warehouse_id`);
-- create "new_productions" table
CREATE TABLE `new_productions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `production_no` integer NOT NULL, `status` text NOT NULL DEFAULT ('PLANNED'), `signed` bool NOT NULL DEFAULT (false), `lot_number` text NULL, `start_date` datetime NULL, `end_date` datetime NULL, `expiration_date` datetime NULL, `production_qty_display_units` numeric NULL, `produced_qty_display_units` numeric NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, `production_line_id` integer NULL, `location_id` integer NULL, CONSTRAINT `productions_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `productions_products_product` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `productions_production_lines_production_line` FOREIGN KEY (`account_id`, `production_line_id`) REFERENCES `production_lines` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `productions_locations_location` FOREIGN KEY (`account_id`, `location_id`) REFERENCES `locations` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "productions" to new temporary table "new_productions"
INSERT INTO `new_productions` (`id`, `created_at`, `updated_at`, `production_no`, `status`, `signed`, `lot_number`, `start_date`, `end_date`, `expiration_date`, `production_qty_display_units`, `produced_qty_display_units`, `account_id`, `product_id`, `production_line_id`, `location_id`) SELECT `id`, `created_at`, `updated_at`, `production_no`, `status`, `signed`, `lot_number`, `start_date`, `end_date`, `expiration_date`, `production_qty_display_units`, `produced_qty_display_units`, `account_id`, `product_id`, `production_line_id`, `location_id` FROM `productions`;
-- drop "productions" table after copying rows
DROP TABLE `productions`;
-- rename temporary table "new_productions" to "productions"
ALTER TABLE `new_productions` RENAME TO `productions`;
-- create index "production_account_id_id" to table: "productions"
CREATE UNIQUE INDEX `production_account_id_id` ON `productions` (`account_id`, `id`);
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
-- create "new_customers" table
CREATE TABLE `new_customers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `address` json NULL, `company` text NULL, `contact` text NULL, `customer_code` text NULL, `email` text NULL, `phone` text NULL, `website` text NULL, `account_id` integer NOT NULL, `customer_type_id` integer NULL, `price_list_id` integer NULL, `salesperson_id` integer NULL, `shipping_method_id` integer NULL, `tax_rate_id` integer NULL, `territory_id` integer NULL, CONSTRAINT `customers_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_customer_types_customer_type` FOREIGN KEY (`account_id`, `customer_type_id`) REFERENCES `customer_types` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `customers_price_lists_price_list` FOREIGN KEY (`account_id`, `price_list_id`) REFERENCES `price_lists` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `customers_salespeople_salesperson` FOREIGN KEY (`account_id`, `salesperson_id`) REFERENCES `salespeople` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `customers_shipping_methods_shipping_method` FOREIGN KEY (`account_id`, `shipping_method_id`) REFERENCES `shipping_methods` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `customers_tax_rates_tax_rate` FOREIGN KEY (`account_id`, `tax_rate_id`) REFERENCES `tax_rates` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `customers_territories_territory` FOREIGN KEY (`account_id`, `territory_id`) REFERENCES `territories` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "customers" to new temporary table "new_customers"
INSERT INTO `new_customers` (`id`, `created_at`, `updated_at`, `active`, `address`, `company`, `contact`, `customer_code`, `email`, `phone`, `website`, `account_id`, `customer_type_id`, `price_list_id`, `salesperson_id`, `shipping_method_id`, `tax_rate_id`, `territory_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `address`, `company`, `contact`, `customer_code`, `email`, `phone`, `website`, `account_id`, `customer_type_id`, `price_list_id`, `salesperson_id`, `shipping_method_id`, `tax_rate_id`, `territory_id` FROM `customers`;
-- drop "customers" table after copying rows
DROP TABLE `customers`;
-- rename temporary table "new_customers" to "customers"
ALTER TABLE `new_customers` RENAME TO `customers`;
-- create index "customer_account_id_id" to table: "customers"
CREATE UNIQUE INDEX `customer_account_id_id` ON `customers` (`account_id`, `id`);
-- create index "customer_account_id_company" to table: "customers"
CREATE INDEX `customer_account_id_company` ON `customers` (`account_id`, `company`);
-- create index "customer_account_id_email" to table: "customers"
CREATE INDEX `customer_account_id_email` ON `customers` (`account_id`, `email`);
-- create index "customer_account_id_price_list_id" to table: "customers"
CREATE INDEX `customer_account_id_price_list_id` ON `customers` (`account_id`, `price_list_id`);
-- create index "customer_account_id_created_at" to table: "customers"
CREATE INDEX `customer_account_id_created_at` ON `customers` (`account_id`, `created_at`);
-- create index "customer_account_id_updated_at" to table: "customers"
CREATE INDEX `customer_account_id_updated_at` ON `customers` (`account_id`, `updated_at`);
-- create index "customer_account_id_customer_code" to table: "customers"
CREATE UNIQUE INDEX `customer_account_id_customer_code` ON `customers` (`account_id`, `customer_code`);
-- create "new_shipping_addresses" table
CREATE TABLE `new_shipping_addresses` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `address` json NOT NULL, `contact` text NULL, `is_default` bool NOT NULL DEFAULT (false), `phone` text NULL, `customer_id` integer NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `shipping_addresses_customers_shipping_addresses` FOREIGN KEY (`account_id`, `customer_id`) REFERENCES `customers` (`account_id`, `id`) ON DELETE CASCADE, CONSTRAINT `shipping_addresses_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "shipping_addresses" to new temporary table "new_shipping_addresses"
INSERT INTO `new_shipping_addresses` (`id`, `created_at`, `updated_at`, `address`, `contact`, `is_default`, `phone`, `customer_id`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `address`, `contact`, `is_default`, `phone`, `customer_id`, `account_id` FROM `shipping_addresses`;
-- drop "shipping_addresses" table after copying rows
DROP TABLE `shipping_addresses`;
-- rename temporary table "new_shipping_addresses" to "shipping_addresses"
ALTER TABLE `new_shipping_addresses` RENAME TO `shipping_addresses`;
-- create index "shippingaddress_account_id_id" to table: "shipping_addresses"
CREATE INDEX `shippingaddress_account_id_id` ON `shipping_addresses` (`account_id`, `id`);
-- create index "shippingaddress_customer_id" to table: "shipping_addresses"
CREATE INDEX `shippingaddress_customer_id` ON `shipping_addresses` (`customer_id`);
-- create index "shipping_addresses_one_default" to table: "shipping_addresses"
CREATE UNIQUE INDEX `shipping_addresses_one_default` ON `shipping_addresses` (`account_id`, `customer_id`) WHERE is_default;
-- create "new_product_lots" table
CREATE TABLE `new_product_lots` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `product_name` text NULL, `location_key` integer NOT NULL DEFAULT (0), `lot_number` text NULL, `expiration_date` datetime NULL, `archived` bool NOT NULL DEFAULT (false), `lot_origin` text NULL, `qc_status` text NOT NULL DEFAULT ('AVAILABLE'), `qc_status_at` datetime NULL, `qc_status_note` text NULL, `qc_release_expires_at` datetime NULL, `quantity_base` numeric NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, `location_id` integer NULL, `warehouse_id` integer NULL, CONSTRAINT `product_lots_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_products_product` FOREIGN KEY (`account_id`, `product_id`) REFERENCES `products` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_locations_location` FOREIGN KEY (`account_id`, `location_id`) REFERENCES `locations` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_locations_warehouse` FOREIGN KEY (`account_id`, `warehouse_id`) REFERENCES `locations` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "product_lots" to new temporary table "new_product_lots"
INSERT INTO `new_product_lots` (`id`, `created_at`, `updated_at`, `product_name`, `location_key`, `lot_number`, `expiration_date`, `archived`, `lot_origin`, `qc_status`, `qc_status_at`, `qc_status_note`, `qc_release_expires_at`, `quantity_base`, `account_id`, `product_id`, `location_id`, `warehouse_id`) SELECT `id`, `created_at`, `updated_at`, `product_name`, `location_key`, `lot_number`, `expiration_date`, `archived`, `lot_origin`, `qc_status`, `qc_status_at`, `qc_status_note`, `qc_release_expires_at`, `quantity_base`, `account_id`, `product_id`, `location_id`, `warehouse_id` FROM `product_lots`;
-- drop "product_lots" table after copying rows
DROP TABLE `product_lots`;
-- rename temporary table "new_product_lots" to "product_lots"
ALTER TABLE `new_product_lots` RENAME TO `product_lots`;
-- create index "productlot_account_id_id" to table: "product_lots"
CREATE UNIQUE INDEX `productlot_account_id_id` ON `product_lots` (`account_id`, `id`);
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
-- create index "productlot_account_id_product_id_expiration_date_id" to table: "product_lots"
CREATE INDEX `productlot_account_id_product_id_expiration_date_id` ON `product_lots` (`account_id`, `product_id`, `expiration_date`, `id`);
-- create index "productlot_account_id_product_id_location_key_lot_number" to table: "product_lots"
CREATE UNIQUE INDEX `productlot_account_id_product_id_location_key_lot_number` ON `product_lots` (`account_id`, `product_id`, `location_key`, `lot_number`);
-- create index "product_lots_unnumbered" to table: "product_lots"
CREATE UNIQUE INDEX `product_lots_unnumbered` ON `product_lots` (`account_id`, `product_id`) WHERE lot_number IS NULL;
-- create index "product_lots_lot_number_trgm" to table: "product_lots"
CREATE INDEX `product_lots_lot_number_trgm` ON `product_lots` (`lot_number`);
-- create "new_bills" table
CREATE TABLE `new_bills` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `bill_date` datetime NOT NULL, `bill_no` integer NOT NULL, `billing_address` json NULL, `cancelled_at` datetime NULL, `company` text NULL, `is_cancelled` bool NOT NULL DEFAULT (false), `notes` text NULL, `paid_amount` numeric NULL, `subtotal` numeric NULL, `supplier_reference` text NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `account_id` integer NOT NULL, `supplier_id` integer NOT NULL, `purchase_order_id` integer NULL, CONSTRAINT `bills_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `bills_suppliers_supplier` FOREIGN KEY (`account_id`, `supplier_id`) REFERENCES `suppliers` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `bills_purchase_orders_purchase_order` FOREIGN KEY (`account_id`, `purchase_order_id`) REFERENCES `purchase_orders` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "bills" to new temporary table "new_bills"
INSERT INTO `new_bills` (`id`, `created_at`, `updated_at`, `bill_date`, `bill_no`, `billing_address`, `cancelled_at`, `company`, `is_cancelled`, `notes`, `paid_amount`, `subtotal`, `supplier_reference`, `tax1`, `tax2`, `tax1_rate`, `tax2_rate`, `account_id`, `supplier_id`, `purchase_order_id`) SELECT `id`, `created_at`, `updated_at`, `bill_date`, `bill_no`, `billing_address`, `cancelled_at`, `company`, `is_cancelled`, `notes`, `paid_amount`, `subtotal`, `supplier_reference`, `tax1`, `tax2`, `tax1_rate`, `tax2_rate`, `account_id`, `supplier_id`, `purchase_order_id` FROM `bills`;
-- drop "bills" table after copying rows
DROP TABLE `bills`;
-- rename temporary table "new_bills" to "bills"
ALTER TABLE `new_bills` RENAME TO `bills`;
-- create index "bill_account_id_id" to table: "bills"
CREATE UNIQUE INDEX `bill_account_id_id` ON `bills` (`account_id`, `id`);
-- create index "bill_account_id_supplier_id" to table: "bills"
CREATE INDEX `bill_account_id_supplier_id` ON `bills` (`account_id`, `supplier_id`);
-- create index "bill_account_id_purchase_order_id" to table: "bills"
CREATE INDEX `bill_account_id_purchase_order_id` ON `bills` (`account_id`, `purchase_order_id`);
-- create index "bill_account_id_bill_date" to table: "bills"
CREATE INDEX `bill_account_id_bill_date` ON `bills` (`account_id`, `bill_date`);
-- create index "bill_account_id_bill_no" to table: "bills"
CREATE UNIQUE INDEX `bill_account_id_bill_no` ON `bills` (`account_id`, `bill_no`);
-- create index "bill_supplier_id" to table: "bills"
CREATE INDEX `bill_supplier_id` ON `bills` (`supplier_id`);
-- create index "bill_purchase_order_id" to table: "bills"
CREATE INDEX `bill_purchase_order_id` ON `bills` (`purchase_order_id`);
-- create "new_purchase_orders" table
CREATE TABLE `new_purchase_orders` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `purchase_order_no` integer NOT NULL, `status` text NOT NULL DEFAULT ('OPEN'), `billing_address` json NULL, `shipping_address` json NULL, `company` text NULL, `order_date` datetime NULL, `expected_date` datetime NULL, `received_date` datetime NULL, `supplier_reference` text NULL, `notes` text NULL, `subtotal` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `account_id` integer NOT NULL, `supplier_id` integer NOT NULL, CONSTRAINT `purchase_orders_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `purchase_orders_suppliers_supplier` FOREIGN KEY (`account_id`, `supplier_id`) REFERENCES `suppliers` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "purchase_orders" to new temporary table "new_purchase_orders"
INSERT INTO `new_purchase_orders` (`id`, `created_at`, `updated_at`, `purchase_order_no`, `status`, `billing_address`, `shipping_address`, `company`, `order_date`, `expected_date`, `received_date`, `supplier_reference`, `notes`, `subtotal`, `tax1`, `tax2`, `tax1_rate`, `tax2_rate`, `account_id`, `supplier_id`) SELECT `id`, `created_at`, `updated_at`, `purchase_order_no`, `status`, `billing_address`, `shipping_address`, `company`, `order_date`, `expected_date`, `received_date`, `supplier_reference`, `notes`, `subtotal`, `tax1`, `tax2`, `tax1_rate`, `tax2_rate`, `account_id`, `supplier_id` FROM `purchase_orders`;
-- drop "purchase_orders" table after copying rows
DROP TABLE `purchase_orders`;
-- rename temporary table "new_purchase_orders" to "purchase_orders"
ALTER TABLE `new_purchase_orders` RENAME TO `purchase_orders`;
-- create index "purchaseorder_account_id_id" to table: "purchase_orders"
CREATE UNIQUE INDEX `purchaseorder_account_id_id` ON `purchase_orders` (`account_id`, `id`);
-- create index "purchaseorder_account_id_status" to table: "purchase_orders"
CREATE INDEX `purchaseorder_account_id_status` ON `purchase_orders` (`account_id`, `status`);
-- create index "purchaseorder_account_id_supplier_id" to table: "purchase_orders"
CREATE INDEX `purchaseorder_account_id_supplier_id` ON `purchase_orders` (`account_id`, `supplier_id`);
-- create index "purchaseorder_account_id_order_date" to table: "purchase_orders"
CREATE INDEX `purchaseorder_account_id_order_date` ON `purchase_orders` (`account_id`, `order_date`);
-- create index "purchaseorder_account_id_expected_date" to table: "purchase_orders"
CREATE INDEX `purchaseorder_account_id_expected_date` ON `purchase_orders` (`account_id`, `expected_date`);
-- create index "purchaseorder_account_id_created_at" to table: "purchase_orders"
CREATE INDEX `purchaseorder_account_id_created_at` ON `purchase_orders` (`account_id`, `created_at`);
-- create index "purchaseorder_account_id_updated_at" to table: "purchase_orders"
CREATE INDEX `purchaseorder_account_id_updated_at` ON `purchase_orders` (`account_id`, `updated_at`);
-- create index "purchaseorder_account_id_purchase_order_no" to table: "purchase_orders"
CREATE UNIQUE INDEX `purchaseorder_account_id_purchase_order_no` ON `purchase_orders` (`account_id`, `purchase_order_no`);
-- create index "purchaseorder_supplier_id" to table: "purchase_orders"
CREATE INDEX `purchaseorder_supplier_id` ON `purchase_orders` (`supplier_id`);
-- create "new_sales_orders" table
CREATE TABLE `new_sales_orders` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `sales_order_no` integer NOT NULL, `status` text NOT NULL DEFAULT ('OPEN'), `billing_address` json NULL, `shipping_address` json NULL, `company` text NULL, `customer_purchase_order_no` text NULL, `order_date` datetime NULL, `expected_date` datetime NULL, `ship_date` datetime NULL, `subtotal` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `tracking_number` text NULL, `account_id` integer NOT NULL, `customer_id` integer NOT NULL, CONSTRAINT `sales_orders_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `sales_orders_customers_customer` FOREIGN KEY (`account_id`, `customer_id`) REFERENCES `customers` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "sales_orders" to new temporary table "new_sales_orders"
INSERT INTO `new_sales_orders` (`id`, `created_at`, `updated_at`, `sales_order_no`, `status`, `billing_address`, `shipping_address`, `company`, `customer_purchase_order_no`, `order_date`, `expected_date`, `ship_date`, `subtotal`, `tax1`, `tax2`, `tax1_rate`, `tax2_rate`, `tracking_number`, `account_id`, `customer_id`) SELECT `id`, `created_at`, `updated_at`, `sales_order_no`, `status`, `billing_address`, `shipping_address`, `company`, `customer_purchase_order_no`, `order_date`, `expected_date`, `ship_date`, `subtotal`, `tax1`, `tax2`, `tax1_rate`, `tax2_rate`, `tracking_number`, `account_id`, `customer_id` FROM `sales_orders`;
-- drop "sales_orders" table after copying rows
DROP TABLE `sales_orders`;
-- rename temporary table "new_sales_orders" to "sales_orders"
ALTER TABLE `new_sales_orders` RENAME TO `sales_orders`;
-- create index "salesorder_account_id_id" to table: "sales_orders"
CREATE UNIQUE INDEX `salesorder_account_id_id` ON `sales_orders` (`account_id`, `id`);
-- create index "salesorder_account_id_status" to table: "sales_orders"
CREATE INDEX `salesorder_account_id_status` ON `sales_orders` (`account_id`, `status`);
-- create index "salesorder_account_id_customer_id" to table: "sales_orders"
CREATE INDEX `salesorder_account_id_customer_id` ON `sales_orders` (`account_id`, `customer_id`);
-- create index "salesorder_account_id_order_date" to table: "sales_orders"
CREATE INDEX `salesorder_account_id_order_date` ON `sales_orders` (`account_id`, `order_date`);
-- create index "salesorder_account_id_expected_date" to table: "sales_orders"
CREATE INDEX `salesorder_account_id_expected_date` ON `sales_orders` (`account_id`, `expected_date`);
-- create index "salesorder_account_id_created_at" to table: "sales_orders"
CREATE INDEX `salesorder_account_id_created_at` ON `sales_orders` (`account_id`, `created_at`);
-- create index "salesorder_account_id_updated_at" to table: "sales_orders"
CREATE INDEX `salesorder_account_id_updated_at` ON `sales_orders` (`account_id`, `updated_at`);
-- create index "salesorder_account_id_sales_order_no" to table: "sales_orders"
CREATE UNIQUE INDEX `salesorder_account_id_sales_order_no` ON `sales_orders` (`account_id`, `sales_order_no`);
-- create index "salesorder_customer_id" to table: "sales_orders"
CREATE INDEX `salesorder_customer_id` ON `sales_orders` (`customer_id`);
-- create "new_invoices" table
CREATE TABLE `new_invoices` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `invoice_no` integer NOT NULL, `invoice_date` datetime NOT NULL, `billing_address` json NULL, `shipping_address` json NULL, `cancelled_at` datetime NULL, `company` text NULL, `is_cancelled` bool NOT NULL DEFAULT (false), `order_date` datetime NULL, `ship_date` datetime NULL, `paid_amount` numeric NULL, `subtotal` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `account_id` integer NOT NULL, `customer_id` integer NOT NULL, `sales_order_id` integer NOT NULL, CONSTRAINT `invoices_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `invoices_customers_customer` FOREIGN KEY (`account_id`, `customer_id`) REFERENCES `customers` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `invoices_sales_orders_sales_order` FOREIGN KEY (`account_id`, `sales_order_id`) REFERENCES `sales_orders` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "invoices" to new temporary table "new_invoices"
INSERT INTO `new_invoices` (`id`, `created_at`, `updated_at`, `invoice_no`, `invoice_date`, `billing_address`, `shipping_address`, `cancelled_at`, `company`, `is_cancelled`, `order_date`, `ship_date`, `paid_amount`, `subtotal`, `tax1`, `tax2`, `tax1_rate`, `tax2_rate`, `account_id`, `customer_id`, `sales_order_id`) SELECT `id`, `created_at`, `updated_at`, `invoice_no`, `invoice_date`, `billing_address`, `shipping_address`, `cancelled_at`, `company`, `is_cancelled`, `order_date`, `ship_date`, `paid_amount`, `subtotal`, `tax1`, `tax2`, `tax1_rate`, `tax2_rate`, `account_id`, `customer_id`, `sales_order_id` FROM `invoices`;
-- drop "invoices" table after copying rows
DROP TABLE `invoices`;
-- rename temporary table "new_invoices" to "invoices"
ALTER TABLE `new_invoices` RENAME TO `invoices`;
-- create index "invoice_account_id_id" to table: "invoices"
CREATE UNIQUE INDEX `invoice_account_id_id` ON `invoices` (`account_id`, `id`);
-- create index "invoice_account_id_customer_id" to table: "invoices"
CREATE INDEX `invoice_account_id_customer_id` ON `invoices` (`account_id`, `customer_id`);
-- create index "invoice_account_id_sales_order_id" to table: "invoices"
CREATE INDEX `invoice_account_id_sales_order_id` ON `invoices` (`account_id`, `sales_order_id`);
-- create index "invoice_account_id_invoice_date" to table: "invoices"
CREATE INDEX `invoice_account_id_invoice_date` ON `invoices` (`account_id`, `invoice_date`);
-- create index "invoice_account_id_order_date" to table: "invoices"
CREATE INDEX `invoice_account_id_order_date` ON `invoices` (`account_id`, `order_date`);
-- create index "invoice_account_id_ship_date" to table: "invoices"
CREATE INDEX `invoice_account_id_ship_date` ON `invoices` (`account_id`, `ship_date`);
-- create index "invoice_account_id_created_at" to table: "invoices"
CREATE INDEX `invoice_account_id_created_at` ON `invoices` (`account_id`, `created_at`);
-- create index "invoice_account_id_updated_at" to table: "invoices"
CREATE INDEX `invoice_account_id_updated_at` ON `invoices` (`account_id`, `updated_at`);
-- create index "invoice_account_id_invoice_no" to table: "invoices"
CREATE UNIQUE INDEX `invoice_account_id_invoice_no` ON `invoices` (`account_id`, `invoice_no`);
-- create index "invoice_customer_id" to table: "invoices"
CREATE INDEX `invoice_customer_id` ON `invoices` (`customer_id`);
-- create index "invoice_sales_order_id" to table: "invoices"
CREATE INDEX `invoice_sales_order_id` ON `invoices` (`sales_order_id`);
-- create "new_shipments" table
CREATE TABLE `new_shipments` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `ship_date` datetime NULL, `tracking_number` text NULL, `account_id` integer NOT NULL, `sales_order_id` integer NOT NULL, `invoice_id` integer NULL, CONSTRAINT `shipments_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shipments_sales_orders_sales_order` FOREIGN KEY (`account_id`, `sales_order_id`) REFERENCES `sales_orders` (`account_id`, `id`) ON DELETE RESTRICT, CONSTRAINT `shipments_invoices_invoice` FOREIGN KEY (`account_id`, `invoice_id`) REFERENCES `invoices` (`account_id`, `id`) ON DELETE RESTRICT);
-- copy rows from old table "shipments" to new temporary table "new_shipments"
INSERT INTO `new_shipments` (`id`, `created_at`, `updated_at`, `ship_date`, `tracking_number`, `account_id`, `sales_order_id`, `invoice_id`) SELECT `id`, `created_at`, `updated_at`, `ship_date`, `tracking_number`, `account_id`, `sales_order_id`, `invoice_id` FROM `shipments`;
-- drop "shipments" table after copying rows
DROP TABLE `shipments`;
-- rename temporary table "new_shipments" to "shipments"
ALTER TABLE `new_shipments` RENAME TO `shipments`;
-- create index "shipment_account_id_id" to table: "shipments"
CREATE UNIQUE INDEX `shipment_account_id_id` ON `shipments` (`account_id`, `id`);
-- create index "shipment_sales_order_id" to table: "shipments"
CREATE INDEX `shipment_sales_order_id` ON `shipments` (`sales_order_id`);
-- create index "shipment_invoice_id" to table: "shipments"
CREATE INDEX `shipment_invoice_id` ON `shipments` (`invoice_id`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_locations" table
CREATE TABLE `new_locations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `description` text NULL, `is_active` bool NOT NULL DEFAULT (true), `name` text NOT NULL, `path` text NOT NULL, `account_id` integer NOT NULL, `parent_id` integer NULL, CONSTRAINT `locations_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `locations_locations_children` FOREIGN KEY (`parent_id`) REFERENCES `locations` (`id`) ON DELETE CASCADE);
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
-- create "new_operations" table
CREATE TABLE `new_operations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `cost` numeric NULL, `name` text NOT NULL, `qty` real NULL, `account_id` integer NOT NULL, `unit_of_measure_id` integer NULL, CONSTRAINT `operations_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `operations_units_of_measure_unit_of_measure` FOREIGN KEY (`unit_of_measure_id`) REFERENCES `units_of_measure` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "operations" to new temporary table "new_operations"
INSERT INTO `new_operations` (`id`, `created_at`, `updated_at`, `code`, `cost`, `name`, `qty`, `account_id`, `unit_of_measure_id`) SELECT `id`, `created_at`, `updated_at`, `code`, `cost`, `name`, `qty`, `account_id`, `unit_of_measure_id` FROM `operations`;
-- drop "operations" table after copying rows
DROP TABLE `operations`;
-- rename temporary table "new_operations" to "operations"
ALTER TABLE `new_operations` RENAME TO `operations`;
-- create index "operation_account_id_id" to table: "operations"
CREATE UNIQUE INDEX `operation_account_id_id` ON `operations` (`account_id`, `id`);
-- create index "operation_account_id_name" to table: "operations"
CREATE INDEX `operation_account_id_name` ON `operations` (`account_id`, `name`);
-- create index "operation_account_id_unit_of_measure_id" to table: "operations"
CREATE INDEX `operation_account_id_unit_of_measure_id` ON `operations` (`account_id`, `unit_of_measure_id`);
-- create index "operation_account_id_code" to table: "operations"
CREATE UNIQUE INDEX `operation_account_id_code` ON `operations` (`account_id`, `code`);
-- create "new_tags" table
CREATE TABLE `new_tags` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `description` text NULL, `name` text NOT NULL, `ref_type` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `tags_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "tags" to new temporary table "new_tags"
INSERT INTO `new_tags` (`id`, `created_at`, `updated_at`, `description`, `name`, `ref_type`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `description`, `name`, `ref_type`, `account_id` FROM `tags`;
-- drop "tags" table after copying rows
DROP TABLE `tags`;
-- rename temporary table "new_tags" to "tags"
ALTER TABLE `new_tags` RENAME TO `tags`;
-- create index "tag_account_id_id" to table: "tags"
CREATE UNIQUE INDEX `tag_account_id_id` ON `tags` (`account_id`, `id`);
-- create index "tag_account_id_ref_type_name" to table: "tags"
CREATE UNIQUE INDEX `tag_account_id_ref_type_name` ON `tags` (`account_id`, `ref_type`, `name`);
-- create index "tag_account_id_name" to table: "tags"
CREATE INDEX `tag_account_id_name` ON `tags` (`account_id`, `name`);
-- create "new_products" table
CREATE TABLE `new_products` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `is_deleted` bool NOT NULL DEFAULT (false), `cost` numeric NULL, `operations_cost` numeric NULL, `description` text NULL, `name` text NULL, `product_code` text NULL, `kind` text NOT NULL, `product_type` text NOT NULL, `shelf_life` integer NULL, `uom_qty` real NULL, `uom_base_conversion` real NULL, `ingredients_en` text NULL, `ingredients_fr` text NULL, `portion_in_grams` real NULL, `recipe_grams_yield` real NULL, `account_id` integer NOT NULL, `unit_of_measure_id` integer NULL, `uom_base_id` integer NULL, `food_id` integer NULL, CONSTRAINT `products_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `products_units_of_measure_unit_of_measure` FOREIGN KEY (`unit_of_measure_id`) REFERENCES `units_of_measure` (`id`) ON DELETE RESTRICT, CONSTRAINT `products_units_of_measure_uom_base` FOREIGN KEY (`uom_base_id`) REFERENCES `units_of_measure` (`id`) ON DELETE RESTRICT, CONSTRAINT `products_foods_food` FOREIGN KEY (`food_id`) REFERENCES `foods` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "products" to new temporary table "new_products"
INSERT INTO `new_products` (`id`, `created_at`, `updated_at`, `active`, `is_deleted`, `cost`, `operations_cost`, `description`, `name`, `product_code`, `kind`, `product_type`, `shelf_life`, `uom_qty`, `uom_base_conversion`, `ingredients_en`, `ingredients_fr`, `portion_in_grams`, `recipe_grams_yield`, `account_id`, `unit_of_measure_id`, `uom_base_id`, `food_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `is_deleted`, `cost`, `operations_cost`, `description`, `name`, `product_code`, `kind`, `product_type`, `shelf_life`, `uom_qty`, `uom_base_conversion`, `ingredients_en`, `ingredients_fr`, `portion_in_grams`, `recipe_grams_yield`, `account_id`, `unit_of_measure_id`, `uom_base_id`, `food_id` FROM `products`;
-- drop "products" table after copying rows
DROP TABLE `products`;
-- rename temporary table "new_products" to "products"
ALTER TABLE `new_products` RENAME TO `products`;
-- create index "product_account_id_id" to table: "products"
CREATE UNIQUE INDEX `product_account_id_id` ON `products` (`account_id`, `id`);
-- create index "product_account_id_name" to table: "products"
CREATE INDEX `product_account_id_name` ON `products` (`account_id`, `name`);
-- create index "product_account_id_product_type" to table: "products"
CREATE INDEX `product_account_id_product_type` ON `products` (`account_id`, `product_type`);
-- create index "product_account_id_created_at" to table: "products"
CREATE INDEX `product_account_id_created_at` ON `products` (`account_id`, `created_at`);
-- create index "product_account_id_updated_at" to table: "products"
CREATE INDEX `product_account_id_updated_at` ON `products` (`account_id`, `updated_at`);
-- create index "product_account_id_unit_of_measure_id" to table: "products"
CREATE INDEX `product_account_id_unit_of_measure_id` ON `products` (`account_id`, `unit_of_measure_id`);
-- create index "product_account_id_uom_base_id" to table: "products"
CREATE INDEX `product_account_id_uom_base_id` ON `products` (`account_id`, `uom_base_id`);
-- create index "product_account_id_food_id" to table: "products"
CREATE INDEX `product_account_id_food_id` ON `products` (`account_id`, `food_id`);
-- create index "product_account_id_product_code" to table: "products"
CREATE UNIQUE INDEX `product_account_id_product_code` ON `products` (`account_id`, `product_code`);
-- drop index "productallergen_product_id_allergen_id" from table: "product_allergens"
DROP INDEX `productallergen_product_id_allergen_id`;
-- create index "productallergen_account_id_product_id_allergen_id" to table: "product_allergens"
CREATE UNIQUE INDEX `productallergen_account_id_product_id_allergen_id` ON `product_allergens` (`account_id`, `product_id`, `allergen_id`);
-- drop index "productbannedcountry_product_id_country_id" from table: "product_banned_countries"
DROP INDEX `productbannedcountry_product_id_country_id`;
-- create index "productbannedcountry_account_id_product_id_country_id" to table: "product_banned_countries"
CREATE UNIQUE INDEX `productbannedcountry_account_id_product_id_country_id` ON `product_banned_countries` (`account_id`, `product_id`, `country_id`);
-- drop index "productbyproduct_product_id_byproduct_id" from table: "product_byproducts"
DROP INDEX `productbyproduct_product_id_byproduct_id`;
-- create index "productbyproduct_account_id_product_id_byproduct_id" to table: "product_byproducts"
CREATE UNIQUE INDEX `productbyproduct_account_id_product_id_byproduct_id` ON `product_byproducts` (`account_id`, `product_id`, `byproduct_id`);
-- drop index "productqccheckpoint_product_id_qc_checkpoint_id" from table: "product_qc_checkpoints"
DROP INDEX `productqccheckpoint_product_id_qc_checkpoint_id`;
-- create index "productqccheckpoint_account_id_product_id_qc_checkpoint_id" to table: "product_qc_checkpoints"
CREATE UNIQUE INDEX `productqccheckpoint_account_id_product_id_qc_checkpoint_id` ON `product_qc_checkpoints` (`account_id`, `product_id`, `qc_checkpoint_id`);
-- drop index "productsubstitute_product_id_substitute_id" from table: "product_substitutes"
DROP INDEX `productsubstitute_product_id_substitute_id`;
-- create index "productsubstitute_account_id_product_id_substitute_id" to table: "product_substitutes"
CREATE UNIQUE INDEX `productsubstitute_account_id_product_id_substitute_id` ON `product_substitutes` (`account_id`, `product_id`, `substitute_id`);
-- drop index "productsupplier_product_id_supplier_id" from table: "product_suppliers"
DROP INDEX `productsupplier_product_id_supplier_id`;
-- create index "productsupplier_account_id_product_id_supplier_id" to table: "product_suppliers"
CREATE UNIQUE INDEX `productsupplier_account_id_product_id_supplier_id` ON `product_suppliers` (`account_id`, `product_id`, `supplier_id`);
-- drop index "producttag_product_id_tag_id" from table: "product_tags"
DROP INDEX `producttag_product_id_tag_id`;
-- create index "producttag_account_id_product_id_tag_id" to table: "product_tags"
CREATE UNIQUE INDEX `producttag_account_id_product_id_tag_id` ON `product_tags` (`account_id`, `product_id`, `tag_id`);
-- create "new_qc_checkpoints" table
CREATE TABLE `new_qc_checkpoints` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `description` text NULL, `input_type` text NULL, `is_critical` bool NOT NULL DEFAULT (false), `name` text NOT NULL, `pass_value` text NULL, `account_id` integer NOT NULL, `qc_unit_of_measure_id` integer NULL, CONSTRAINT `qc_checkpoints_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `qc_checkpoints_qc_units_of_measure_qc_unit_of_measure` FOREIGN KEY (`qc_unit_of_measure_id`) REFERENCES `qc_units_of_measure` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "qc_checkpoints" to new temporary table "new_qc_checkpoints"
INSERT INTO `new_qc_checkpoints` (`id`, `created_at`, `updated_at`, `code`, `description`, `input_type`, `is_critical`, `name`, `pass_value`, `account_id`, `qc_unit_of_measure_id`) SELECT `id`, `created_at`, `updated_at`, `code`, `description`, `input_type`, `is_critical`, `name`, `pass_value`, `account_id`, `qc_unit_of_measure_id` FROM `qc_checkpoints`;
-- drop "qc_checkpoints" table after copying rows
DROP TABLE `qc_checkpoints`;
-- rename temporary table "new_qc_checkpoints" to "qc_checkpoints"
ALTER TABLE `new_qc_checkpoints` RENAME TO `qc_checkpoints`;
-- create index "qccheckpoint_account_id_id" to table: "qc_checkpoints"
CREATE UNIQUE INDEX `qccheckpoint_account_id_id` ON `qc_checkpoints` (`account_id`, `id`);
-- create index "qccheckpoint_account_id_name" to table: "qc_checkpoints"
CREATE INDEX `qccheckpoint_account_id_name` ON `qc_checkpoints` (`account_id`, `name`);
-- create index "qccheckpoint_account_id_input_type" to table: "qc_checkpoints"
CREATE INDEX `qccheckpoint_account_id_input_type` ON `qc_checkpoints` (`account_id`, `input_type`);
-- create index "qccheckpoint_account_id_qc_unit_of_measure_id" to table: "qc_checkpoints"
CREATE INDEX `qccheckpoint_account_id_qc_unit_of_measure_id` ON `qc_checkpoints` (`account_id`, `qc_unit_of_measure_id`);
-- create index "qccheckpoint_account_id_code" to table: "qc_checkpoints"
CREATE UNIQUE INDEX `qccheckpoint_account_id_code` ON `qc_checkpoints` (`account_id`, `code`);
-- drop index "events_event_id_key" from table: "events"
DROP INDEX `events_event_id_key`;
-- create index "event_account_id_event_id" to table: "events"
CREATE UNIQUE INDEX `event_account_id_event_id` ON `events` (`account_id`, `event_id`);
-- create "new_equipment" table
CREATE TABLE `new_equipment` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `name` text NOT NULL, `out_of_service` bool NOT NULL DEFAULT (false), `account_id` integer NOT NULL, `warehouse_id` integer NULL, CONSTRAINT `equipment_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `equipment_locations_warehouse` FOREIGN KEY (`warehouse_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
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
CREATE TABLE `new_production_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `deleted_at` datetime NULL, `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, `warehouse_id` integer NULL, CONSTRAINT `production_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_lines_locations_warehouse` FOREIGN KEY (`warehouse_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
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
CREATE TABLE `new_productions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `production_no` integer NOT NULL, `status` text NOT NULL DEFAULT ('PLANNED'), `signed` bool NOT NULL DEFAULT (false), `lot_number` text NULL, `start_date` datetime NULL, `end_date` datetime NULL, `expiration_date` datetime NULL, `production_qty_display_units` numeric NULL, `produced_qty_display_units` numeric NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, `production_line_id` integer NULL, `location_id` integer NULL, CONSTRAINT `productions_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `productions_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT, CONSTRAINT `productions_production_lines_production_line` FOREIGN KEY (`production_line_id`) REFERENCES `production_lines` (`id`) ON DELETE RESTRICT, CONSTRAINT `productions_locations_location` FOREIGN KEY (`location_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
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
-- drop index "productionlineequipment_production_line_id_equipment_id" from table: "production_line_equipments"
DROP INDEX `productionlineequipment_production_line_id_equipment_id`;
-- create index "productionlineequipment_account_id_line_id_equipment_id" to table: "production_line_equipments"
CREATE UNIQUE INDEX `productionlineequipment_account_id_line_id_equipment_id` ON `production_line_equipments` (`account_id`, `production_line_id`, `equipment_id`);
-- drop index "productionoperation_production_id_position" from table: "production_operations"
DROP INDEX `productionoperation_production_id_position`;
-- create index "productionoperation_account_id_production_id_position" to table: "production_operations"
CREATE UNIQUE INDEX `productionoperation_account_id_production_id_position` ON `production_operations` (`account_id`, `production_id`, `position`);
-- drop index "recipestep_product_id_position" from table: "recipe_steps"
DROP INDEX `recipestep_product_id_position`;
-- create index "recipestep_account_id_product_id_position" to table: "recipe_steps"
CREATE UNIQUE INDEX `recipestep_account_id_product_id_position` ON `recipe_steps` (`account_id`, `product_id`, `position`);
-- create "new_suppliers" table
CREATE TABLE `new_suppliers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `address` json NULL, `approval_expiry` datetime NULL, `approval_status` text NOT NULL DEFAULT ('PENDING'), `certification_expires_on` datetime NULL, `certification_scheme` text NULL, `company` text NULL, `contact_name` text NULL, `email` text NULL, `phone` text NULL, `supplier_code` text NULL, `website` text NULL, `account_id` integer NOT NULL, CONSTRAINT `suppliers_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "suppliers" to new temporary table "new_suppliers"
INSERT INTO `new_suppliers` (`id`, `created_at`, `updated_at`, `active`, `address`, `approval_expiry`, `approval_status`, `certification_expires_on`, `certification_scheme`, `company`, `contact_name`, `email`, `phone`, `supplier_code`, `website`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `address`, `approval_expiry`, `approval_status`, `certification_expires_on`, `certification_scheme`, `company`, `contact_name`, `email`, `phone`, `supplier_code`, `website`, `account_id` FROM `suppliers`;
-- drop "suppliers" table after copying rows
DROP TABLE `suppliers`;
-- rename temporary table "new_suppliers" to "suppliers"
ALTER TABLE `new_suppliers` RENAME TO `suppliers`;
-- create index "supplier_account_id_id" to table: "suppliers"
CREATE UNIQUE INDEX `supplier_account_id_id` ON `suppliers` (`account_id`, `id`);
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
-- create "new_customer_types" table
CREATE TABLE `new_customer_types` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NOT NULL, `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `customer_types_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "customer_types" to new temporary table "new_customer_types"
INSERT INTO `new_customer_types` (`id`, `created_at`, `updated_at`, `active`, `code`, `description`, `name`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `code`, `description`, `name`, `account_id` FROM `customer_types`;
-- drop "customer_types" table after copying rows
DROP TABLE `customer_types`;
-- rename temporary table "new_customer_types" to "customer_types"
ALTER TABLE `new_customer_types` RENAME TO `customer_types`;
-- create index "customertype_account_id_id" to table: "customer_types"
CREATE UNIQUE INDEX `customertype_account_id_id` ON `customer_types` (`account_id`, `id`);
-- create index "customertype_account_id_name" to table: "customer_types"
CREATE INDEX `customertype_account_id_name` ON `customer_types` (`account_id`, `name`);
-- create index "customertype_account_id_code" to table: "customer_types"
CREATE UNIQUE INDEX `customertype_account_id_code` ON `customer_types` (`account_id`, `code`);
-- create "new_price_lists" table
CREATE TABLE `new_price_lists` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NOT NULL, `currency` text NOT NULL DEFAULT ('CAD'), `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `price_lists_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "price_lists" to new temporary table "new_price_lists"
INSERT INTO `new_price_lists` (`id`, `created_at`, `updated_at`, `active`, `code`, `currency`, `description`, `name`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `code`, `currency`, `description`, `name`, `account_id` FROM `price_lists`;
-- drop "price_lists" table after copying rows
DROP TABLE `price_lists`;
-- rename temporary table "new_price_lists" to "price_lists"
ALTER TABLE `new_price_lists` RENAME TO `price_lists`;
-- create index "pricelist_account_id_id" to table: "price_lists"
CREATE UNIQUE INDEX `pricelist_account_id_id` ON `price_lists` (`account_id`, `id`);
-- create index "pricelist_account_id_name" to table: "price_lists"
CREATE INDEX `pricelist_account_id_name` ON `price_lists` (`account_id`, `name`);
-- create index "pricelist_account_id_code" to table: "price_lists"
CREATE UNIQUE INDEX `pricelist_account_id_code` ON `price_lists` (`account_id`, `code`);
-- create "new_shipping_methods" table
CREATE TABLE `new_shipping_methods` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NOT NULL, `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `shipping_methods_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "shipping_methods" to new temporary table "new_shipping_methods"
INSERT INTO `new_shipping_methods` (`id`, `created_at`, `updated_at`, `active`, `code`, `description`, `name`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `code`, `description`, `name`, `account_id` FROM `shipping_methods`;
-- drop "shipping_methods" table after copying rows
DROP TABLE `shipping_methods`;
-- rename temporary table "new_shipping_methods" to "shipping_methods"
ALTER TABLE `new_shipping_methods` RENAME TO `shipping_methods`;
-- create index "shippingmethod_account_id_id" to table: "shipping_methods"
CREATE UNIQUE INDEX `shippingmethod_account_id_id` ON `shipping_methods` (`account_id`, `id`);
-- create index "shippingmethod_account_id_name" to table: "shipping_methods"
CREATE INDEX `shippingmethod_account_id_name` ON `shipping_methods` (`account_id`, `name`);
-- create index "shippingmethod_account_id_code" to table: "shipping_methods"
CREATE UNIQUE INDEX `shippingmethod_account_id_code` ON `shipping_methods` (`account_id`, `code`);
-- create "new_territories" table
CREATE TABLE `new_territories` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NOT NULL, `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `territories_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "territories" to new temporary table "new_territories"
INSERT INTO `new_territories` (`id`, `created_at`, `updated_at`, `active`, `code`, `description`, `name`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `code`, `description`, `name`, `account_id` FROM `territories`;
-- drop "territories" table after copying rows
DROP TABLE `territories`;
-- rename temporary table "new_territories" to "territories"
ALTER TABLE `new_territories` RENAME TO `territories`;
-- create index "territory_account_id_id" to table: "territories"
CREATE UNIQUE INDEX `territory_account_id_id` ON `territories` (`account_id`, `id`);
-- create index "territory_account_id_name" to table: "territories"
CREATE INDEX `territory_account_id_name` ON `territories` (`account_id`, `name`);
-- create index "territory_account_id_code" to table: "territories"
CREATE UNIQUE INDEX `territory_account_id_code` ON `territories` (`account_id`, `code`);
-- create "new_customers" table
CREATE TABLE `new_customers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `address` json NULL, `company` text NULL, `contact` text NULL, `customer_code` text NULL, `email` text NULL, `phone` text NULL, `website` text NULL, `account_id` integer NOT NULL, `customer_type_id` integer NULL, `price_list_id` integer NULL, `salesperson_id` integer NULL, `shipping_method_id` integer NULL, `tax_rate_id` integer NULL, `territory_id` integer NULL, CONSTRAINT `customers_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_customer_types_customer_type` FOREIGN KEY (`customer_type_id`) REFERENCES `customer_types` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_price_lists_price_list` FOREIGN KEY (`price_list_id`) REFERENCES `price_lists` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_salespeople_salesperson` FOREIGN KEY (`salesperson_id`) REFERENCES `salespeople` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_shipping_methods_shipping_method` FOREIGN KEY (`shipping_method_id`) REFERENCES `shipping_methods` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_tax_rates_tax_rate` FOREIGN KEY (`tax_rate_id`) REFERENCES `tax_rates` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_territories_territory` FOREIGN KEY (`territory_id`) REFERENCES `territories` (`id`) ON DELETE RESTRICT);
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
-- drop index "customertag_customer_id_tag_id" from table: "customer_tags"
DROP INDEX `customertag_customer_id_tag_id`;
-- create index "customertag_account_id_customer_id_tag_id" to table: "customer_tags"
CREATE UNIQUE INDEX `customertag_account_id_customer_id_tag_id` ON `customer_tags` (`account_id`, `customer_id`, `tag_id`);
-- create "new_shipping_addresses" table
CREATE TABLE `new_shipping_addresses` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `address` json NOT NULL, `contact` text NULL, `is_default` bool NOT NULL DEFAULT (false), `phone` text NULL, `customer_id` integer NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `shipping_addresses_customers_shipping_addresses` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE CASCADE, CONSTRAINT `shipping_addresses_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
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
CREATE TABLE `new_product_lots` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `product_name` text NULL, `location_key` integer NOT NULL DEFAULT (0), `lot_number` text NULL, `expiration_date` datetime NULL, `archived` bool NOT NULL DEFAULT (false), `lot_origin` text NULL, `qc_status` text NOT NULL DEFAULT ('AVAILABLE'), `qc_status_at` datetime NULL, `qc_status_note` text NULL, `qc_release_expires_at` datetime NULL, `quantity_base` numeric NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, `location_id` integer NULL, `warehouse_id` integer NULL, CONSTRAINT `product_lots_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_locations_location` FOREIGN KEY (`location_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_lots_locations_warehouse` FOREIGN KEY (`warehouse_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
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
CREATE TABLE `new_bills` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `bill_date` datetime NOT NULL, `bill_no` integer NOT NULL, `billing_address` json NULL, `cancelled_at` datetime NULL, `company` text NULL, `is_cancelled` bool NOT NULL DEFAULT (false), `notes` text NULL, `paid_amount` numeric NULL, `subtotal` numeric NULL, `supplier_reference` text NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `account_id` integer NOT NULL, `supplier_id` integer NOT NULL, `purchase_order_id` integer NULL, CONSTRAINT `bills_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `bills_suppliers_supplier` FOREIGN KEY (`supplier_id`) REFERENCES `suppliers` (`id`) ON DELETE RESTRICT, CONSTRAINT `bills_purchase_orders_purchase_order` FOREIGN KEY (`purchase_order_id`) REFERENCES `purchase_orders` (`id`) ON DELETE RESTRICT);
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
CREATE TABLE `new_purchase_orders` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `purchase_order_no` integer NOT NULL, `status` text NOT NULL DEFAULT ('OPEN'), `billing_address` json NULL, `shipping_address` json NULL, `company` text NULL, `order_date` datetime NULL, `expected_date` datetime NULL, `received_date` datetime NULL, `supplier_reference` text NULL, `notes` text NULL, `subtotal` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `account_id` integer NOT NULL, `supplier_id` integer NOT NULL, CONSTRAINT `purchase_orders_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `purchase_orders_suppliers_supplier` FOREIGN KEY (`supplier_id`) REFERENCES `suppliers` (`id`) ON DELETE RESTRICT);
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
CREATE TABLE `new_sales_orders` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `sales_order_no` integer NOT NULL, `status` text NOT NULL DEFAULT ('OPEN'), `billing_address` json NULL, `shipping_address` json NULL, `company` text NULL, `customer_purchase_order_no` text NULL, `order_date` datetime NULL, `expected_date` datetime NULL, `ship_date` datetime NULL, `subtotal` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `tracking_number` text NULL, `account_id` integer NOT NULL, `customer_id` integer NOT NULL, CONSTRAINT `sales_orders_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `sales_orders_customers_customer` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE RESTRICT);
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
CREATE TABLE `new_invoices` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `invoice_no` integer NOT NULL, `invoice_date` datetime NOT NULL, `billing_address` json NULL, `shipping_address` json NULL, `cancelled_at` datetime NULL, `company` text NULL, `is_cancelled` bool NOT NULL DEFAULT (false), `order_date` datetime NULL, `ship_date` datetime NULL, `paid_amount` numeric NULL, `subtotal` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `account_id` integer NOT NULL, `customer_id` integer NOT NULL, `sales_order_id` integer NOT NULL, CONSTRAINT `invoices_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `invoices_customers_customer` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE RESTRICT, CONSTRAINT `invoices_sales_orders_sales_order` FOREIGN KEY (`sales_order_id`) REFERENCES `sales_orders` (`id`) ON DELETE RESTRICT);
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
CREATE TABLE `new_shipments` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `ship_date` datetime NULL, `tracking_number` text NULL, `account_id` integer NOT NULL, `sales_order_id` integer NOT NULL, `invoice_id` integer NULL, CONSTRAINT `shipments_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shipments_sales_orders_sales_order` FOREIGN KEY (`sales_order_id`) REFERENCES `sales_orders` (`id`) ON DELETE RESTRICT, CONSTRAINT `shipments_invoices_invoice` FOREIGN KEY (`invoice_id`) REFERENCES `invoices` (`id`) ON DELETE RESTRICT);
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
-- create "new_salespeople" table
CREATE TABLE `new_salespeople` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NULL, `email` text NULL, `first_name` text NULL, `last_name` text NULL, `account_id` integer NOT NULL, CONSTRAINT `salespeople_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "salespeople" to new temporary table "new_salespeople"
INSERT INTO `new_salespeople` (`id`, `created_at`, `updated_at`, `active`, `code`, `email`, `first_name`, `last_name`, `account_id`) SELECT `id`, `created_at`, `updated_at`, `active`, `code`, `email`, `first_name`, `last_name`, `account_id` FROM `salespeople`;
-- drop "salespeople" table after copying rows
DROP TABLE `salespeople`;
-- rename temporary table "new_salespeople" to "salespeople"
ALTER TABLE `new_salespeople` RENAME TO `salespeople`;
-- create index "salesperson_account_id_id" to table: "salespeople"
CREATE UNIQUE INDEX `salesperson_account_id_id` ON `salespeople` (`account_id`, `id`);
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
CREATE UNIQUE INDEX `taxrate_account_id_id` ON `tax_rates` (`account_id`, `id`);
-- create index "taxrate_account_id_name" to table: "tax_rates"
CREATE INDEX `taxrate_account_id_name` ON `tax_rates` (`account_id`, `name`);
-- create index "taxrate_account_id_code" to table: "tax_rates"
CREATE UNIQUE INDEX `taxrate_account_id_code` ON `tax_rates` (`account_id`, `code`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

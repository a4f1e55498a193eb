-- create "countries" table
CREATE TABLE `countries` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `is_global` bool NOT NULL DEFAULT (false), `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `name` text NOT NULL, `name_fr` text NOT NULL, `account_id` integer NULL, CONSTRAINT `countries_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shared_or_owned` CHECK ((is_global AND account_id IS NULL) OR (NOT is_global AND account_id IS NOT NULL)));
-- create index "country_account_id" to table: "countries"
CREATE INDEX `country_account_id` ON `countries` (`account_id`);
-- create index "country_account_id_name" to table: "countries"
CREATE INDEX `country_account_id_name` ON `countries` (`account_id`, `name`);
-- create index "country_account_id_code" to table: "countries"
CREATE UNIQUE INDEX `country_account_id_code` ON `countries` (`account_id`, `code`);
-- create index "country_code" to table: "countries"
CREATE UNIQUE INDEX `country_code` ON `countries` (`code`) WHERE is_global;
-- create "foods" table
CREATE TABLE `foods` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `is_global` bool NOT NULL DEFAULT (false), `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `name` text NULL, `name_fr` text NULL, `source` text NULL, `suggested_yield_description` text NULL, `suggested_yield_pct` real NULL, `account_id` integer NULL, CONSTRAINT `foods_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shared_or_owned` CHECK ((is_global AND account_id IS NULL) OR (NOT is_global AND account_id IS NOT NULL)));
-- create index "food_account_id" to table: "foods"
CREATE INDEX `food_account_id` ON `foods` (`account_id`);
-- create index "food_account_id_name" to table: "foods"
CREATE INDEX `food_account_id_name` ON `foods` (`account_id`, `name`);
-- create index "food_account_id_name_fr" to table: "foods"
CREATE INDEX `food_account_id_name_fr` ON `foods` (`account_id`, `name_fr`);
-- create "food_nutrients" table
CREATE TABLE `food_nutrients` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `is_global` bool NOT NULL DEFAULT (false), `value` real NULL, `food_id` integer NOT NULL, `account_id` integer NULL, `nutrient_id` integer NOT NULL, CONSTRAINT `food_nutrients_foods_nutrients` FOREIGN KEY (`food_id`) REFERENCES `foods` (`id`) ON DELETE CASCADE, CONSTRAINT `food_nutrients_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `food_nutrients_nutrients_nutrient` FOREIGN KEY (`nutrient_id`) REFERENCES `nutrients` (`id`) ON DELETE RESTRICT, CONSTRAINT `shared_or_owned` CHECK ((is_global AND account_id IS NULL) OR (NOT is_global AND account_id IS NOT NULL)));
-- create index "foodnutrient_account_id" to table: "food_nutrients"
CREATE INDEX `foodnutrient_account_id` ON `food_nutrients` (`account_id`);
-- create index "foodnutrient_food_id_nutrient_id" to table: "food_nutrients"
CREATE UNIQUE INDEX `foodnutrient_food_id_nutrient_id` ON `food_nutrients` (`food_id`, `nutrient_id`);
-- create "nutrients" table
CREATE TABLE `nutrients` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `is_global` bool NOT NULL DEFAULT (false), `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `key` text NOT NULL, `is_major_nutrient` bool NOT NULL DEFAULT (false), `label` text NULL, `name` text NULL, `uom` text NULL, `account_id` integer NULL, CONSTRAINT `nutrients_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shared_or_owned` CHECK ((is_global AND account_id IS NULL) OR (NOT is_global AND account_id IS NOT NULL)));
-- create index "nutrient_account_id" to table: "nutrients"
CREATE INDEX `nutrient_account_id` ON `nutrients` (`account_id`);
-- create index "nutrient_account_id_name" to table: "nutrients"
CREATE INDEX `nutrient_account_id_name` ON `nutrients` (`account_id`, `name`);
-- create index "nutrient_account_id_key" to table: "nutrients"
CREATE UNIQUE INDEX `nutrient_account_id_key` ON `nutrients` (`account_id`, `key`);
-- create index "nutrient_key" to table: "nutrients"
CREATE UNIQUE INDEX `nutrient_key` ON `nutrients` (`key`) WHERE is_global;
-- create "preservations" table
CREATE TABLE `preservations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `is_global` bool NOT NULL DEFAULT (false), `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `description` text NULL, `name` text NULL, `account_id` integer NULL, CONSTRAINT `preservations_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shared_or_owned` CHECK ((is_global AND account_id IS NULL) OR (NOT is_global AND account_id IS NOT NULL)));
-- create index "preservation_account_id" to table: "preservations"
CREATE INDEX `preservation_account_id` ON `preservations` (`account_id`);
-- create index "preservation_account_id_name" to table: "preservations"
CREATE INDEX `preservation_account_id_name` ON `preservations` (`account_id`, `name`);
-- create index "preservation_account_id_code" to table: "preservations"
CREATE UNIQUE INDEX `preservation_account_id_code` ON `preservations` (`account_id`, `code`);
-- create index "preservation_code" to table: "preservations"
CREATE UNIQUE INDEX `preservation_code` ON `preservations` (`code`) WHERE is_global;
-- create "products" table
CREATE TABLE `products` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `is_deleted` bool NOT NULL DEFAULT (false), `cost` numeric NULL, `operations_cost` numeric NULL, `description` text NULL, `name` text NULL, `product_code` text NULL, `kind` text NOT NULL, `product_type` text NOT NULL, `shelf_life` integer NULL, `uom_qty` real NULL, `uom_base_conversion` real NULL, `ingredients_en` text NULL, `ingredients_fr` text NULL, `portion_in_grams` real NULL, `recipe_grams_yield` real NULL, `account_id` integer NOT NULL, `unit_of_measure_id` integer NULL, `uom_base_id` integer NULL, `food_id` integer NULL, CONSTRAINT `products_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `products_units_of_measure_unit_of_measure` FOREIGN KEY (`unit_of_measure_id`) REFERENCES `units_of_measure` (`id`) ON DELETE RESTRICT, CONSTRAINT `products_units_of_measure_uom_base` FOREIGN KEY (`uom_base_id`) REFERENCES `units_of_measure` (`id`) ON DELETE RESTRICT, CONSTRAINT `products_foods_food` FOREIGN KEY (`food_id`) REFERENCES `foods` (`id`) ON DELETE RESTRICT);
-- create index "product_account_id" to table: "products"
CREATE INDEX `product_account_id` ON `products` (`account_id`);
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
-- create "product_allergens" table
CREATE TABLE `product_allergens` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `source` text NOT NULL DEFAULT ('declared'), `product_id` integer NOT NULL, `account_id` integer NOT NULL, `allergen_id` integer NOT NULL, CONSTRAINT `product_allergens_products_allergens` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE CASCADE, CONSTRAINT `product_allergens_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_allergens_allergens_allergen` FOREIGN KEY (`allergen_id`) REFERENCES `allergens` (`id`) ON DELETE RESTRICT);
-- create index "productallergen_account_id" to table: "product_allergens"
CREATE INDEX `productallergen_account_id` ON `product_allergens` (`account_id`);
-- create index "productallergen_product_id_allergen_id" to table: "product_allergens"
CREATE UNIQUE INDEX `productallergen_product_id_allergen_id` ON `product_allergens` (`product_id`, `allergen_id`);
-- create index "productallergen_allergen_id" to table: "product_allergens"
CREATE INDEX `productallergen_allergen_id` ON `product_allergens` (`allergen_id`);
-- create "product_banned_countries" table
CREATE TABLE `product_banned_countries` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `country_id` integer NOT NULL, CONSTRAINT `product_banned_countries_products_banned_countries` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE CASCADE, CONSTRAINT `product_banned_countries_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_banned_countries_countries_country` FOREIGN KEY (`country_id`) REFERENCES `countries` (`id`) ON DELETE RESTRICT);
-- create index "productbannedcountry_account_id" to table: "product_banned_countries"
CREATE INDEX `productbannedcountry_account_id` ON `product_banned_countries` (`account_id`);
-- create index "productbannedcountry_product_id_country_id" to table: "product_banned_countries"
CREATE UNIQUE INDEX `productbannedcountry_product_id_country_id` ON `product_banned_countries` (`product_id`, `country_id`);
-- create index "productbannedcountry_country_id" to table: "product_banned_countries"
CREATE INDEX `productbannedcountry_country_id` ON `product_banned_countries` (`country_id`);
-- create "product_byproducts" table
CREATE TABLE `product_byproducts` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `byproduct_id` integer NOT NULL, CONSTRAINT `product_byproducts_products_byproducts` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE CASCADE, CONSTRAINT `product_byproducts_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_byproducts_products_byproduct` FOREIGN KEY (`byproduct_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT);
-- create index "productbyproduct_account_id" to table: "product_byproducts"
CREATE INDEX `productbyproduct_account_id` ON `product_byproducts` (`account_id`);
-- create index "productbyproduct_product_id_byproduct_id" to table: "product_byproducts"
CREATE UNIQUE INDEX `productbyproduct_product_id_byproduct_id` ON `product_byproducts` (`product_id`, `byproduct_id`);
-- create index "productbyproduct_byproduct_id" to table: "product_byproducts"
CREATE INDEX `productbyproduct_byproduct_id` ON `product_byproducts` (`byproduct_id`);
-- create "product_qc_checkpoints" table
CREATE TABLE `product_qc_checkpoints` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `qc_checkpoint_id` integer NOT NULL, CONSTRAINT `product_qc_checkpoints_products_qc_checkpoints` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE CASCADE, CONSTRAINT `product_qc_checkpoints_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_qc_checkpoints_qc_checkpoints_qc_checkpoint` FOREIGN KEY (`qc_checkpoint_id`) REFERENCES `qc_checkpoints` (`id`) ON DELETE RESTRICT);
-- create index "productqccheckpoint_account_id" to table: "product_qc_checkpoints"
CREATE INDEX `productqccheckpoint_account_id` ON `product_qc_checkpoints` (`account_id`);
-- create index "productqccheckpoint_product_id_qc_checkpoint_id" to table: "product_qc_checkpoints"
CREATE UNIQUE INDEX `productqccheckpoint_product_id_qc_checkpoint_id` ON `product_qc_checkpoints` (`product_id`, `qc_checkpoint_id`);
-- create index "productqccheckpoint_qc_checkpoint_id" to table: "product_qc_checkpoints"
CREATE INDEX `productqccheckpoint_qc_checkpoint_id` ON `product_qc_checkpoints` (`qc_checkpoint_id`);
-- create "product_substitutes" table
CREATE TABLE `product_substitutes` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `substitute_id` integer NOT NULL, CONSTRAINT `product_substitutes_products_substitutes` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE CASCADE, CONSTRAINT `product_substitutes_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_substitutes_products_substitute` FOREIGN KEY (`substitute_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT);
-- create index "productsubstitute_account_id" to table: "product_substitutes"
CREATE INDEX `productsubstitute_account_id` ON `product_substitutes` (`account_id`);
-- create index "productsubstitute_product_id_substitute_id" to table: "product_substitutes"
CREATE UNIQUE INDEX `productsubstitute_product_id_substitute_id` ON `product_substitutes` (`product_id`, `substitute_id`);
-- create index "productsubstitute_substitute_id" to table: "product_substitutes"
CREATE INDEX `productsubstitute_substitute_id` ON `product_substitutes` (`substitute_id`);
-- create "product_suppliers" table
CREATE TABLE `product_suppliers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `supplier_id` integer NOT NULL, CONSTRAINT `product_suppliers_products_suppliers` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE CASCADE, CONSTRAINT `product_suppliers_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_suppliers_suppliers_supplier` FOREIGN KEY (`supplier_id`) REFERENCES `suppliers` (`id`) ON DELETE RESTRICT);
-- create index "productsupplier_account_id" to table: "product_suppliers"
CREATE INDEX `productsupplier_account_id` ON `product_suppliers` (`account_id`);
-- create index "productsupplier_product_id_supplier_id" to table: "product_suppliers"
CREATE UNIQUE INDEX `productsupplier_product_id_supplier_id` ON `product_suppliers` (`product_id`, `supplier_id`);
-- create index "productsupplier_supplier_id" to table: "product_suppliers"
CREATE INDEX `productsupplier_supplier_id` ON `product_suppliers` (`supplier_id`);
-- create "product_tags" table
CREATE TABLE `product_tags` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `tag_id` integer NOT NULL, CONSTRAINT `product_tags_products_tags` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE CASCADE, CONSTRAINT `product_tags_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `product_tags_tags_tag` FOREIGN KEY (`tag_id`) REFERENCES `tags` (`id`) ON DELETE RESTRICT);
-- create index "producttag_account_id" to table: "product_tags"
CREATE INDEX `producttag_account_id` ON `product_tags` (`account_id`);
-- create index "producttag_product_id_tag_id" to table: "product_tags"
CREATE UNIQUE INDEX `producttag_product_id_tag_id` ON `product_tags` (`product_id`, `tag_id`);
-- create index "producttag_tag_id" to table: "product_tags"
CREATE INDEX `producttag_tag_id` ON `product_tags` (`tag_id`);
-- create "qc_checkpoints" table
CREATE TABLE `qc_checkpoints` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `description` text NULL, `input_type` text NULL, `is_critical` bool NOT NULL DEFAULT (false), `name` text NOT NULL, `pass_value` text NULL, `account_id` integer NOT NULL, `qc_unit_of_measure_id` integer NULL, CONSTRAINT `qc_checkpoints_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `qc_checkpoints_qc_units_of_measure_qc_unit_of_measure` FOREIGN KEY (`qc_unit_of_measure_id`) REFERENCES `qc_units_of_measure` (`id`) ON DELETE RESTRICT);
-- create index "qccheckpoint_account_id" to table: "qc_checkpoints"
CREATE INDEX `qccheckpoint_account_id` ON `qc_checkpoints` (`account_id`);
-- create index "qccheckpoint_account_id_name" to table: "qc_checkpoints"
CREATE INDEX `qccheckpoint_account_id_name` ON `qc_checkpoints` (`account_id`, `name`);
-- create index "qccheckpoint_account_id_input_type" to table: "qc_checkpoints"
CREATE INDEX `qccheckpoint_account_id_input_type` ON `qc_checkpoints` (`account_id`, `input_type`);
-- create index "qccheckpoint_account_id_qc_unit_of_measure_id" to table: "qc_checkpoints"
CREATE INDEX `qccheckpoint_account_id_qc_unit_of_measure_id` ON `qc_checkpoints` (`account_id`, `qc_unit_of_measure_id`);
-- create index "qccheckpoint_account_id_code" to table: "qc_checkpoints"
CREATE UNIQUE INDEX `qccheckpoint_account_id_code` ON `qc_checkpoints` (`account_id`, `code`);
-- create "qc_units_of_measure" table
CREATE TABLE `qc_units_of_measure` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `is_global` bool NOT NULL DEFAULT (false), `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `name` text NOT NULL, `account_id` integer NULL, CONSTRAINT `qc_units_of_measure_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shared_or_owned` CHECK ((is_global AND account_id IS NULL) OR (NOT is_global AND account_id IS NOT NULL)));
-- create index "qcunitofmeasure_account_id" to table: "qc_units_of_measure"
CREATE INDEX `qcunitofmeasure_account_id` ON `qc_units_of_measure` (`account_id`);
-- create index "qcunitofmeasure_account_id_name" to table: "qc_units_of_measure"
CREATE INDEX `qcunitofmeasure_account_id_name` ON `qc_units_of_measure` (`account_id`, `name`);
-- create index "qcunitofmeasure_account_id_code" to table: "qc_units_of_measure"
CREATE UNIQUE INDEX `qcunitofmeasure_account_id_code` ON `qc_units_of_measure` (`account_id`, `code`);
-- create index "qcunitofmeasure_code" to table: "qc_units_of_measure"
CREATE UNIQUE INDEX `qcunitofmeasure_code` ON `qc_units_of_measure` (`code`) WHERE is_global;
-- create "suppliers" table
CREATE TABLE `suppliers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `company` text NULL, `supplier_code` text NULL, `account_id` integer NOT NULL, CONSTRAINT `suppliers_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "supplier_account_id" to table: "suppliers"
CREATE INDEX `supplier_account_id` ON `suppliers` (`account_id`);
-- create index "supplier_account_id_supplier_code" to table: "suppliers"
CREATE UNIQUE INDEX `supplier_account_id_supplier_code` ON `suppliers` (`account_id`, `supplier_code`);

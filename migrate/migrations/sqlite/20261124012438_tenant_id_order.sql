-- drop index "allergen_account_id" from table: "allergens"
DROP INDEX `allergen_account_id`;
-- create index "allergen_account_id_id" to table: "allergens"
CREATE INDEX `allergen_account_id_id` ON `allergens` (`account_id`, `id`);
-- drop index "location_account_id" from table: "locations"
DROP INDEX `location_account_id`;
-- create index "location_account_id_id" to table: "locations"
CREATE INDEX `location_account_id_id` ON `locations` (`account_id`, `id`);
-- drop index "operation_account_id" from table: "operations"
DROP INDEX `operation_account_id`;
-- create index "operation_account_id_id" to table: "operations"
CREATE INDEX `operation_account_id_id` ON `operations` (`account_id`, `id`);
-- drop index "tag_account_id" from table: "tags"
DROP INDEX `tag_account_id`;
-- create index "tag_account_id_id" to table: "tags"
CREATE INDEX `tag_account_id_id` ON `tags` (`account_id`, `id`);
-- drop index "unitofmeasure_account_id" from table: "units_of_measure"
DROP INDEX `unitofmeasure_account_id`;
-- create index "unitofmeasure_account_id_id" to table: "units_of_measure"
CREATE INDEX `unitofmeasure_account_id_id` ON `units_of_measure` (`account_id`, `id`);
-- drop index "country_account_id" from table: "countries"
DROP INDEX `country_account_id`;
-- create index "country_account_id_id" to table: "countries"
CREATE INDEX `country_account_id_id` ON `countries` (`account_id`, `id`);
-- drop index "food_account_id" from table: "foods"
DROP INDEX `food_account_id`;
-- create index "food_account_id_id" to table: "foods"
CREATE INDEX `food_account_id_id` ON `foods` (`account_id`, `id`);
-- drop index "foodnutrient_account_id" from table: "food_nutrients"
DROP INDEX `foodnutrient_account_id`;
-- create index "foodnutrient_account_id_id" to table: "food_nutrients"
CREATE INDEX `foodnutrient_account_id_id` ON `food_nutrients` (`account_id`, `id`);
-- drop index "nutrient_account_id" from table: "nutrients"
DROP INDEX `nutrient_account_id`;
-- create index "nutrient_account_id_id" to table: "nutrients"
CREATE INDEX `nutrient_account_id_id` ON `nutrients` (`account_id`, `id`);
-- drop index "preservation_account_id" from table: "preservations"
DROP INDEX `preservation_account_id`;
-- create index "preservation_account_id_id" to table: "preservations"
CREATE INDEX `preservation_account_id_id` ON `preservations` (`account_id`, `id`);
-- drop index "product_account_id" from table: "products"
DROP INDEX `product_account_id`;
-- create index "product_account_id_id" to table: "products"
CREATE INDEX `product_account_id_id` ON `products` (`account_id`, `id`);
-- drop index "productallergen_account_id" from table: "product_allergens"
DROP INDEX `productallergen_account_id`;
-- create index "productallergen_account_id_id" to table: "product_allergens"
CREATE INDEX `productallergen_account_id_id` ON `product_allergens` (`account_id`, `id`);
-- drop index "productbannedcountry_account_id" from table: "product_banned_countries"
DROP INDEX `productbannedcountry_account_id`;
-- create index "productbannedcountry_account_id_id" to table: "product_banned_countries"
CREATE INDEX `productbannedcountry_account_id_id` ON `product_banned_countries` (`account_id`, `id`);
-- drop index "productbyproduct_account_id" from table: "product_byproducts"
DROP INDEX `productbyproduct_account_id`;
-- create index "productbyproduct_account_id_id" to table: "product_byproducts"
CREATE INDEX `productbyproduct_account_id_id` ON `product_byproducts` (`account_id`, `id`);
-- drop index "productqccheckpoint_account_id" from table: "product_qc_checkpoints"
DROP INDEX `productqccheckpoint_account_id`;
-- create index "productqccheckpoint_account_id_id" to table: "product_qc_checkpoints"
CREATE INDEX `productqccheckpoint_account_id_id` ON `product_qc_checkpoints` (`account_id`, `id`);
-- drop index "productsubstitute_account_id" from table: "product_substitutes"
DROP INDEX `productsubstitute_account_id`;
-- create index "productsubstitute_account_id_id" to table: "product_substitutes"
CREATE INDEX `productsubstitute_account_id_id` ON `product_substitutes` (`account_id`, `id`);
-- drop index "productsupplier_account_id" from table: "product_suppliers"
DROP INDEX `productsupplier_account_id`;
-- create index "productsupplier_account_id_id" to table: "product_suppliers"
CREATE INDEX `productsupplier_account_id_id` ON `product_suppliers` (`account_id`, `id`);
-- drop index "producttag_account_id" from table: "product_tags"
DROP INDEX `producttag_account_id`;
-- create index "producttag_account_id_id" to table: "product_tags"
CREATE INDEX `producttag_account_id_id` ON `product_tags` (`account_id`, `id`);
-- drop index "qccheckpoint_account_id" from table: "qc_checkpoints"
DROP INDEX `qccheckpoint_account_id`;
-- create index "qccheckpoint_account_id_id" to table: "qc_checkpoints"
CREATE INDEX `qccheckpoint_account_id_id` ON `qc_checkpoints` (`account_id`, `id`);
-- drop index "qcunitofmeasure_account_id" from table: "qc_units_of_measure"
DROP INDEX `qcunitofmeasure_account_id`;
-- create index "qcunitofmeasure_account_id_id" to table: "qc_units_of_measure"
CREATE INDEX `qcunitofmeasure_account_id_id` ON `qc_units_of_measure` (`account_id`, `id`);
-- drop index "lotcorrection_account_id" from table: "lot_corrections"
DROP INDEX `lotcorrection_account_id`;
-- create index "lotcorrection_account_id_id" to table: "lot_corrections"
CREATE INDEX `lotcorrection_account_id_id` ON `lot_corrections` (`account_id`, `id`);
-- drop index "productlot_account_id" from table: "product_lots"
DROP INDEX `productlot_account_id`;
-- create index "productlot_account_id_id" to table: "product_lots"
CREATE INDEX `productlot_account_id_id` ON `product_lots` (`account_id`, `id`);
-- drop index "stockmovement_account_id" from table: "stock_movements"
DROP INDEX `stockmovement_account_id`;
-- create index "stockmovement_account_id_id" to table: "stock_movements"
CREATE INDEX `stockmovement_account_id_id` ON `stock_movements` (`account_id`, `id`);
-- drop index "employee_account_id" from table: "employees"
DROP INDEX `employee_account_id`;
-- create index "employee_account_id_id" to table: "employees"
CREATE INDEX `employee_account_id_id` ON `employees` (`account_id`, `id`);
-- drop index "equipment_account_id" from table: "equipment"
DROP INDEX `equipment_account_id`;
-- create index "equipment_account_id_id" to table: "equipment"
CREATE INDEX `equipment_account_id_id` ON `equipment` (`account_id`, `id`);
-- drop index "productionline_account_id" from table: "production_lines"
DROP INDEX `productionline_account_id`;
-- create index "productionline_account_id_id" to table: "production_lines"
CREATE INDEX `productionline_account_id_id` ON `production_lines` (`account_id`, `id`);
-- drop index "documentcounter_account_id" from table: "document_counters"
DROP INDEX `documentcounter_account_id`;
-- create index "documentcounter_account_id_id" to table: "document_counters"
CREATE INDEX `documentcounter_account_id_id` ON `document_counters` (`account_id`, `id`);
-- drop index "production_account_id" from table: "productions"
DROP INDEX `production_account_id`;
-- create index "production_account_id_id" to table: "productions"
CREATE INDEX `production_account_id_id` ON `productions` (`account_id`, `id`);
-- drop index "productionconsumedstep_account_id" from table: "production_consumed_steps"
DROP INDEX `productionconsumedstep_account_id`;
-- create index "productionconsumedstep_account_id_id" to table: "production_consumed_steps"
CREATE INDEX `productionconsumedstep_account_id_id` ON `production_consumed_steps` (`account_id`, `id`);
-- drop index "productionplannedstep_account_id" from table: "production_planned_steps"
DROP INDEX `productionplannedstep_account_id`;
-- create index "productionplannedstep_account_id_id" to table: "production_planned_steps"
CREATE INDEX `productionplannedstep_account_id_id` ON `production_planned_steps` (`account_id`, `id`);
-- drop index "productionlineequipment_account_id" from table: "production_line_equipments"
DROP INDEX `productionlineequipment_account_id`;
-- create index "productionlineequipment_account_id_id" to table: "production_line_equipments"
CREATE INDEX `productionlineequipment_account_id_id` ON `production_line_equipments` (`account_id`, `id`);
-- drop index "productionoperation_account_id" from table: "production_operations"
DROP INDEX `productionoperation_account_id`;
-- create index "productionoperation_account_id_id" to table: "production_operations"
CREATE INDEX `productionoperation_account_id_id` ON `production_operations` (`account_id`, `id`);
-- drop index "recipestep_account_id" from table: "recipe_steps"
DROP INDEX `recipestep_account_id`;
-- create index "recipestep_account_id_id" to table: "recipe_steps"
CREATE INDEX `recipestep_account_id_id` ON `recipe_steps` (`account_id`, `id`);
-- drop index "supplier_account_id" from table: "suppliers"
DROP INDEX `supplier_account_id`;
-- create index "supplier_account_id_id" to table: "suppliers"
CREATE INDEX `supplier_account_id_id` ON `suppliers` (`account_id`, `id`);

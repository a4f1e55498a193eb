-- create "production_line_equipments" table
CREATE TABLE `production_line_equipments` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `production_line_id` integer NOT NULL, `account_id` integer NOT NULL, `equipment_id` integer NOT NULL, CONSTRAINT `production_line_equipments_production_lines_equipment` FOREIGN KEY (`production_line_id`) REFERENCES `production_lines` (`id`) ON DELETE CASCADE, CONSTRAINT `production_line_equipments_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_line_equipments_equipment_equipment` FOREIGN KEY (`equipment_id`) REFERENCES `equipment` (`id`) ON DELETE RESTRICT);
-- create index "productionlineequipment_account_id" to table: "production_line_equipments"
CREATE INDEX `productionlineequipment_account_id` ON `production_line_equipments` (`account_id`);
-- create index "productionlineequipment_production_line_id_equipment_id" to table: "production_line_equipments"
CREATE UNIQUE INDEX `productionlineequipment_production_line_id_equipment_id` ON `production_line_equipments` (`production_line_id`, `equipment_id`);
-- create index "productionlineequipment_equipment_id" to table: "production_line_equipments"
CREATE INDEX `productionlineequipment_equipment_id` ON `production_line_equipments` (`equipment_id`);
-- create "production_operations" table
CREATE TABLE `production_operations` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `position` integer NOT NULL, `production_id` integer NOT NULL, `account_id` integer NOT NULL, `operation_id` integer NOT NULL, `equipment_id` integer NULL, CONSTRAINT `production_operations_productions_operations` FOREIGN KEY (`production_id`) REFERENCES `productions` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_operations_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_operations_operations_operation` FOREIGN KEY (`operation_id`) REFERENCES `operations` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_operations_equipment_equipment` FOREIGN KEY (`equipment_id`) REFERENCES `equipment` (`id`) ON DELETE RESTRICT);
-- create index "productionoperation_account_id" to table: "production_operations"
CREATE INDEX `productionoperation_account_id` ON `production_operations` (`account_id`);
-- create index "productionoperation_production_id_position" to table: "production_operations"
CREATE UNIQUE INDEX `productionoperation_production_id_position` ON `production_operations` (`production_id`, `position`);
-- create index "productionoperation_operation_id" to table: "production_operations"
CREATE INDEX `productionoperation_operation_id` ON `production_operations` (`operation_id`);
-- create index "productionoperation_equipment_id" to table: "production_operations"
CREATE INDEX `productionoperation_equipment_id` ON `production_operations` (`equipment_id`);
-- create "recipe_steps" table
CREATE TABLE `recipe_steps` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `position` integer NOT NULL, `product_id` integer NOT NULL, `account_id` integer NOT NULL, `operation_id` integer NOT NULL, `equipment_id` integer NULL, CONSTRAINT `recipe_steps_products_recipe_steps` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE CASCADE, CONSTRAINT `recipe_steps_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `recipe_steps_operations_operation` FOREIGN KEY (`operation_id`) REFERENCES `operations` (`id`) ON DELETE RESTRICT, CONSTRAINT `recipe_steps_equipment_equipment` FOREIGN KEY (`equipment_id`) REFERENCES `equipment` (`id`) ON DELETE RESTRICT);
-- create index "recipestep_account_id" to table: "recipe_steps"
CREATE INDEX `recipestep_account_id` ON `recipe_steps` (`account_id`);
-- create index "recipestep_product_id_position" to table: "recipe_steps"
CREATE UNIQUE INDEX `recipestep_product_id_position` ON `recipe_steps` (`product_id`, `position`);
-- create index "recipestep_operation_id" to table: "recipe_steps"
CREATE INDEX `recipestep_operation_id` ON `recipe_steps` (`operation_id`);
-- create index "recipestep_equipment_id" to table: "recipe_steps"
CREATE INDEX `recipestep_equipment_id` ON `recipe_steps` (`equipment_id`);

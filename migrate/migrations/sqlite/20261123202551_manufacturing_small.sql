-- create "employees" table
CREATE TABLE `employees` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NOT NULL, `email` text NULL, `first_name` text NOT NULL, `last_name` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `employees_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "employee_account_id" to table: "employees"
CREATE INDEX `employee_account_id` ON `employees` (`account_id`);
-- create index "employee_account_id_last_name" to table: "employees"
CREATE INDEX `employee_account_id_last_name` ON `employees` (`account_id`, `last_name`);
-- create index "employee_account_id_code" to table: "employees"
CREATE UNIQUE INDEX `employee_account_id_code` ON `employees` (`account_id`, `code`);
-- create "equipment" table
CREATE TABLE `equipment` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NOT NULL, `name` text NOT NULL, `out_of_service` bool NOT NULL DEFAULT (false), `account_id` integer NOT NULL, `warehouse_id` integer NULL, CONSTRAINT `equipment_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `equipment_locations_warehouse` FOREIGN KEY (`warehouse_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
-- create index "equipment_account_id" to table: "equipment"
CREATE INDEX `equipment_account_id` ON `equipment` (`account_id`);
-- create index "equipment_account_id_name" to table: "equipment"
CREATE INDEX `equipment_account_id_name` ON `equipment` (`account_id`, `name`);
-- create index "equipment_account_id_out_of_service" to table: "equipment"
CREATE INDEX `equipment_account_id_out_of_service` ON `equipment` (`account_id`, `out_of_service`);
-- create index "equipment_account_id_code" to table: "equipment"
CREATE UNIQUE INDEX `equipment_account_id_code` ON `equipment` (`account_id`, `code`);
-- create index "equipment_warehouse_id" to table: "equipment"
CREATE INDEX `equipment_warehouse_id` ON `equipment` (`warehouse_id`);
-- create "production_lines" table
CREATE TABLE `production_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `deleted_at` datetime NULL, `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, `warehouse_id` integer NULL, CONSTRAINT `production_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `production_lines_locations_warehouse` FOREIGN KEY (`warehouse_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT);
-- create index "productionline_account_id" to table: "production_lines"
CREATE INDEX `productionline_account_id` ON `production_lines` (`account_id`);
-- create index "productionline_account_id_name" to table: "production_lines"
CREATE UNIQUE INDEX `productionline_account_id_name` ON `production_lines` (`account_id`, `name`) WHERE deleted_at IS NULL;
-- create index "productionline_warehouse_id" to table: "production_lines"
CREATE INDEX `productionline_warehouse_id` ON `production_lines` (`warehouse_id`);

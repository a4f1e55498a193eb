-- create "customer_types" table
CREATE TABLE `customer_types` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NOT NULL, `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `customer_types_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "customertype_account_id_id" to table: "customer_types"
CREATE INDEX `customertype_account_id_id` ON `customer_types` (`account_id`, `id`);
-- create index "customertype_account_id_name" to table: "customer_types"
CREATE INDEX `customertype_account_id_name` ON `customer_types` (`account_id`, `name`);
-- create index "customertype_account_id_code" to table: "customer_types"
CREATE UNIQUE INDEX `customertype_account_id_code` ON `customer_types` (`account_id`, `code`);
-- create "price_lists" table
CREATE TABLE `price_lists` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NOT NULL, `currency` text NOT NULL DEFAULT ('CAD'), `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `price_lists_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "pricelist_account_id_id" to table: "price_lists"
CREATE INDEX `pricelist_account_id_id` ON `price_lists` (`account_id`, `id`);
-- create index "pricelist_account_id_name" to table: "price_lists"
CREATE INDEX `pricelist_account_id_name` ON `price_lists` (`account_id`, `name`);
-- create index "pricelist_account_id_code" to table: "price_lists"
CREATE UNIQUE INDEX `pricelist_account_id_code` ON `price_lists` (`account_id`, `code`);
-- create "salespeople" table
CREATE TABLE `salespeople` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NULL, `email` text NULL, `first_name` text NULL, `last_name` text NULL, `account_id` integer NOT NULL, CONSTRAINT `salespeople_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "salesperson_account_id_id" to table: "salespeople"
CREATE INDEX `salesperson_account_id_id` ON `salespeople` (`account_id`, `id`);
-- create index "salesperson_account_id_active" to table: "salespeople"
CREATE INDEX `salesperson_account_id_active` ON `salespeople` (`account_id`, `active`);
-- create index "salesperson_account_id_code" to table: "salespeople"
CREATE INDEX `salesperson_account_id_code` ON `salespeople` (`account_id`, `code`);
-- create index "salesperson_account_id_email" to table: "salespeople"
CREATE INDEX `salesperson_account_id_email` ON `salespeople` (`account_id`, `email`);
-- create index "salesperson_account_id_first_name" to table: "salespeople"
CREATE INDEX `salesperson_account_id_first_name` ON `salespeople` (`account_id`, `first_name`);
-- create index "salesperson_account_id_last_name" to table: "salespeople"
CREATE INDEX `salesperson_account_id_last_name` ON `salespeople` (`account_id`, `last_name`);
-- create "shipping_methods" table
CREATE TABLE `shipping_methods` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NOT NULL, `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `shipping_methods_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "shippingmethod_account_id_id" to table: "shipping_methods"
CREATE INDEX `shippingmethod_account_id_id` ON `shipping_methods` (`account_id`, `id`);
-- create index "shippingmethod_account_id_name" to table: "shipping_methods"
CREATE INDEX `shippingmethod_account_id_name` ON `shipping_methods` (`account_id`, `name`);
-- create index "shippingmethod_account_id_code" to table: "shipping_methods"
CREATE UNIQUE INDEX `shippingmethod_account_id_code` ON `shipping_methods` (`account_id`, `code`);
-- create "tax_rates" table
CREATE TABLE `tax_rates` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `code` text NULL, `description` text NULL, `name` text NULL, `tax_rate1` numeric NULL, `tax_rate1_label` text NULL, `tax_rate2` numeric NULL, `tax_rate2_label` text NULL, `account_id` integer NOT NULL, CONSTRAINT `tax_rates_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "taxrate_account_id_id" to table: "tax_rates"
CREATE INDEX `taxrate_account_id_id` ON `tax_rates` (`account_id`, `id`);
-- create index "taxrate_account_id_code" to table: "tax_rates"
CREATE INDEX `taxrate_account_id_code` ON `tax_rates` (`account_id`, `code`);
-- create index "taxrate_account_id_name" to table: "tax_rates"
CREATE INDEX `taxrate_account_id_name` ON `tax_rates` (`account_id`, `name`);
-- create "territories" table
CREATE TABLE `territories` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `code` text NOT NULL, `description` text NULL, `name` text NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `territories_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "territory_account_id_id" to table: "territories"
CREATE INDEX `territory_account_id_id` ON `territories` (`account_id`, `id`);
-- create index "territory_account_id_name" to table: "territories"
CREATE INDEX `territory_account_id_name` ON `territories` (`account_id`, `name`);
-- create index "territory_account_id_code" to table: "territories"
CREATE UNIQUE INDEX `territory_account_id_code` ON `territories` (`account_id`, `code`);

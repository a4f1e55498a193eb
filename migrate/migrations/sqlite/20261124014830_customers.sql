-- create "customers" table
CREATE TABLE `customers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `active` bool NOT NULL DEFAULT (true), `address` json NULL, `company` text NULL, `contact` text NULL, `customer_code` text NULL, `email` text NULL, `phone` text NULL, `website` text NULL, `account_id` integer NOT NULL, `customer_type_id` integer NULL, `price_list_id` integer NULL, `salesperson_id` integer NULL, `shipping_method_id` integer NULL, `tax_rate_id` integer NULL, `territory_id` integer NULL, CONSTRAINT `customers_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_customer_types_customer_type` FOREIGN KEY (`customer_type_id`) REFERENCES `customer_types` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_price_lists_price_list` FOREIGN KEY (`price_list_id`) REFERENCES `price_lists` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_salespeople_salesperson` FOREIGN KEY (`salesperson_id`) REFERENCES `salespeople` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_shipping_methods_shipping_method` FOREIGN KEY (`shipping_method_id`) REFERENCES `shipping_methods` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_tax_rates_tax_rate` FOREIGN KEY (`tax_rate_id`) REFERENCES `tax_rates` (`id`) ON DELETE RESTRICT, CONSTRAINT `customers_territories_territory` FOREIGN KEY (`territory_id`) REFERENCES `territories` (`id`) ON DELETE RESTRICT);
-- create index "customer_account_id_id" to table: "customers"
CREATE INDEX `customer_account_id_id` ON `customers` (`account_id`, `id`);
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
-- create "customer_tags" table
CREATE TABLE `customer_tags` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `customer_id` integer NOT NULL, `account_id` integer NOT NULL, `tag_id` integer NOT NULL, CONSTRAINT `customer_tags_customers_tags` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE CASCADE, CONSTRAINT `customer_tags_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `customer_tags_tags_tag` FOREIGN KEY (`tag_id`) REFERENCES `tags` (`id`) ON DELETE RESTRICT);
-- create index "customertag_account_id_id" to table: "customer_tags"
CREATE INDEX `customertag_account_id_id` ON `customer_tags` (`account_id`, `id`);
-- create index "customertag_customer_id_tag_id" to table: "customer_tags"
CREATE UNIQUE INDEX `customertag_customer_id_tag_id` ON `customer_tags` (`customer_id`, `tag_id`);
-- create index "customertag_tag_id" to table: "customer_tags"
CREATE INDEX `customertag_tag_id` ON `customer_tags` (`tag_id`);

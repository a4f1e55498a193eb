-- create "shipping_addresses" table
CREATE TABLE `shipping_addresses` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `address` json NOT NULL, `contact` text NULL, `is_default` bool NOT NULL DEFAULT (false), `phone` text NULL, `customer_id` integer NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `shipping_addresses_customers_shipping_addresses` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE CASCADE, CONSTRAINT `shipping_addresses_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "shippingaddress_account_id_id" to table: "shipping_addresses"
CREATE INDEX `shippingaddress_account_id_id` ON `shipping_addresses` (`account_id`, `id`);
-- create index "shippingaddress_customer_id" to table: "shipping_addresses"
CREATE INDEX `shippingaddress_customer_id` ON `shipping_addresses` (`customer_id`);
-- create index "shipping_addresses_one_default" to table: "shipping_addresses"
CREATE UNIQUE INDEX `shipping_addresses_one_default` ON `shipping_addresses` (`customer_id`) WHERE is_default;

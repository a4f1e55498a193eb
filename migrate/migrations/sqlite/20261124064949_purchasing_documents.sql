-- create "bills" table
CREATE TABLE `bills` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `bill_date` datetime NOT NULL, `bill_no` integer NOT NULL, `billing_address` json NULL, `cancelled_at` datetime NULL, `company` text NULL, `is_cancelled` bool NOT NULL DEFAULT (false), `notes` text NULL, `paid_amount` numeric NULL, `subtotal` numeric NULL, `supplier_reference` text NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `account_id` integer NOT NULL, `supplier_id` integer NOT NULL, `purchase_order_id` integer NULL, CONSTRAINT `bills_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `bills_suppliers_supplier` FOREIGN KEY (`supplier_id`) REFERENCES `suppliers` (`id`) ON DELETE RESTRICT, CONSTRAINT `bills_purchase_orders_purchase_order` FOREIGN KEY (`purchase_order_id`) REFERENCES `purchase_orders` (`id`) ON DELETE RESTRICT);
-- create index "bill_account_id_id" to table: "bills"
CREATE INDEX `bill_account_id_id` ON `bills` (`account_id`, `id`);
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
-- create "bill_lines" table
CREATE TABLE `bill_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `cost` numeric NULL, `discount_rate` numeric NULL, `expiration_date` datetime NULL, `product_code` text NULL, `product_name` text NULL, `quantity` numeric NULL, `quantity_base` numeric NULL, `supplier_partno` text NULL, `lot_number` text NOT NULL, `bill_id` integer NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, `location_id` integer NULL, `lot_id` integer NULL, CONSTRAINT `bill_lines_bills_lines` FOREIGN KEY (`bill_id`) REFERENCES `bills` (`id`) ON DELETE CASCADE, CONSTRAINT `bill_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `bill_lines_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT, CONSTRAINT `bill_lines_locations_location` FOREIGN KEY (`location_id`) REFERENCES `locations` (`id`) ON DELETE RESTRICT, CONSTRAINT `bill_lines_product_lots_lot` FOREIGN KEY (`lot_id`) REFERENCES `product_lots` (`id`) ON DELETE RESTRICT);
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
-- create "purchase_orders" table
CREATE TABLE `purchase_orders` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `purchase_order_no` integer NOT NULL, `status` text NOT NULL DEFAULT ('OPEN'), `billing_address` json NULL, `shipping_address` json NULL, `company` text NULL, `order_date` datetime NULL, `expected_date` datetime NULL, `received_date` datetime NULL, `supplier_reference` text NULL, `notes` text NULL, `subtotal` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `account_id` integer NOT NULL, `supplier_id` integer NOT NULL, CONSTRAINT `purchase_orders_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `purchase_orders_suppliers_supplier` FOREIGN KEY (`supplier_id`) REFERENCES `suppliers` (`id`) ON DELETE RESTRICT);
-- create index "purchaseorder_account_id_id" to table: "purchase_orders"
CREATE INDEX `purchaseorder_account_id_id` ON `purchase_orders` (`account_id`, `id`);
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
-- create "purchase_order_lines" table
CREATE TABLE `purchase_order_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `cost` numeric NULL, `discount_rate` numeric NULL, `expiration_date` datetime NULL, `lead_time` integer NULL, `notes` text NULL, `product_code` text NULL, `product_name` text NULL, `quantity` numeric NULL, `quantity_base` numeric NULL, `supplier_partno` text NULL, `purchase_order_id` integer NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, CONSTRAINT `purchase_order_lines_purchase_orders_lines` FOREIGN KEY (`purchase_order_id`) REFERENCES `purchase_orders` (`id`) ON DELETE CASCADE, CONSTRAINT `purchase_order_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `purchase_order_lines_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT);
-- create index "purchaseorderline_account_id_id" to table: "purchase_order_lines"
CREATE INDEX `purchaseorderline_account_id_id` ON `purchase_order_lines` (`account_id`, `id`);
-- create index "purchaseorderline_purchase_order_id" to table: "purchase_order_lines"
CREATE INDEX `purchaseorderline_purchase_order_id` ON `purchase_order_lines` (`purchase_order_id`);
-- create index "purchaseorderline_product_id" to table: "purchase_order_lines"
CREATE INDEX `purchaseorderline_product_id` ON `purchase_order_lines` (`product_id`);

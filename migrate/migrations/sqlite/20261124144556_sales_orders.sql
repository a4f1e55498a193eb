-- create "sales_orders" table
CREATE TABLE `sales_orders` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `sales_order_no` integer NOT NULL, `status` text NOT NULL DEFAULT ('OPEN'), `billing_address` json NULL, `shipping_address` json NULL, `company` text NULL, `customer_purchase_order_no` text NULL, `order_date` datetime NULL, `expected_date` datetime NULL, `ship_date` datetime NULL, `subtotal` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `tracking_number` text NULL, `account_id` integer NOT NULL, `customer_id` integer NOT NULL, CONSTRAINT `sales_orders_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `sales_orders_customers_customer` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE RESTRICT);
-- create index "salesorder_account_id_id" to table: "sales_orders"
CREATE INDEX `salesorder_account_id_id` ON `sales_orders` (`account_id`, `id`);
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
-- create "sales_order_lines" table
CREATE TABLE `sales_order_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `cancelled_qty_base` numeric NULL, `discount_rate` numeric NULL, `notes` text NULL, `order_qty` numeric NULL, `order_qty_base` numeric NULL, `price` numeric NULL, `product_code` text NULL, `product_name` text NULL, `shipped_qty_base` numeric NULL, `tax1` bool NULL DEFAULT (false), `tax2` bool NULL DEFAULT (false), `uom_type` text NOT NULL DEFAULT ('BASE_UOM'), `sales_order_id` integer NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, CONSTRAINT `sales_order_lines_sales_orders_lines` FOREIGN KEY (`sales_order_id`) REFERENCES `sales_orders` (`id`) ON DELETE CASCADE, CONSTRAINT `sales_order_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `sales_order_lines_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT);
-- create index "salesorderline_account_id_id" to table: "sales_order_lines"
CREATE INDEX `salesorderline_account_id_id` ON `sales_order_lines` (`account_id`, `id`);
-- create index "salesorderline_sales_order_id" to table: "sales_order_lines"
CREATE INDEX `salesorderline_sales_order_id` ON `sales_order_lines` (`sales_order_id`);
-- create index "salesorderline_product_id" to table: "sales_order_lines"
CREATE INDEX `salesorderline_product_id` ON `sales_order_lines` (`product_id`);

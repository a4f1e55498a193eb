-- create "invoices" table
CREATE TABLE `invoices` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `invoice_no` integer NOT NULL, `invoice_date` datetime NOT NULL, `billing_address` json NULL, `shipping_address` json NULL, `cancelled_at` datetime NULL, `company` text NULL, `is_cancelled` bool NOT NULL DEFAULT (false), `order_date` datetime NULL, `ship_date` datetime NULL, `paid_amount` numeric NULL, `subtotal` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `tax1_rate` numeric NULL, `tax2_rate` numeric NULL, `account_id` integer NOT NULL, `customer_id` integer NOT NULL, `sales_order_id` integer NOT NULL, CONSTRAINT `invoices_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `invoices_customers_customer` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE RESTRICT, CONSTRAINT `invoices_sales_orders_sales_order` FOREIGN KEY (`sales_order_id`) REFERENCES `sales_orders` (`id`) ON DELETE RESTRICT);
-- create index "invoice_account_id_id" to table: "invoices"
CREATE INDEX `invoice_account_id_id` ON `invoices` (`account_id`, `id`);
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
-- create "invoice_lines" table
CREATE TABLE `invoice_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `discount_rate` numeric NULL, `price` numeric NULL, `product_code` text NULL, `product_name` text NULL, `shipped_qty` numeric NULL, `shipped_qty_base` numeric NULL, `tax1` bool NULL, `tax2` bool NULL, `uom_type` text NULL, `invoice_id` integer NOT NULL, `account_id` integer NOT NULL, `product_id` integer NOT NULL, CONSTRAINT `invoice_lines_invoices_lines` FOREIGN KEY (`invoice_id`) REFERENCES `invoices` (`id`) ON DELETE CASCADE, CONSTRAINT `invoice_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `invoice_lines_products_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ON DELETE RESTRICT);
-- create index "invoiceline_account_id_id" to table: "invoice_lines"
CREATE INDEX `invoiceline_account_id_id` ON `invoice_lines` (`account_id`, `id`);
-- create index "invoiceline_invoice_id" to table: "invoice_lines"
CREATE INDEX `invoiceline_invoice_id` ON `invoice_lines` (`invoice_id`);
-- create index "invoiceline_product_id" to table: "invoice_lines"
CREATE INDEX `invoiceline_product_id` ON `invoice_lines` (`product_id`);
-- create "shipments" table
CREATE TABLE `shipments` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `ship_date` datetime NULL, `tracking_number` text NULL, `account_id` integer NOT NULL, `sales_order_id` integer NOT NULL, `invoice_id` integer NULL, CONSTRAINT `shipments_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shipments_sales_orders_sales_order` FOREIGN KEY (`sales_order_id`) REFERENCES `sales_orders` (`id`) ON DELETE RESTRICT, CONSTRAINT `shipments_invoices_invoice` FOREIGN KEY (`invoice_id`) REFERENCES `invoices` (`id`) ON DELETE RESTRICT);
-- create index "shipment_account_id_id" to table: "shipments"
CREATE INDEX `shipment_account_id_id` ON `shipments` (`account_id`, `id`);
-- create index "shipment_sales_order_id" to table: "shipments"
CREATE INDEX `shipment_sales_order_id` ON `shipments` (`sales_order_id`);
-- create index "shipment_invoice_id" to table: "shipments"
CREATE INDEX `shipment_invoice_id` ON `shipments` (`invoice_id`);
-- create "shipment_lines" table
CREATE TABLE `shipment_lines` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `sales_order_line_id` integer NOT NULL, `quantity_base` numeric NULL, `shipment_id` integer NOT NULL, `account_id` integer NOT NULL, `lot_id` integer NULL, CONSTRAINT `shipment_lines_shipments_lines` FOREIGN KEY (`shipment_id`) REFERENCES `shipments` (`id`) ON DELETE CASCADE, CONSTRAINT `shipment_lines_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT, CONSTRAINT `shipment_lines_product_lots_lot` FOREIGN KEY (`lot_id`) REFERENCES `product_lots` (`id`) ON DELETE RESTRICT);
-- create index "shipmentline_account_id_id" to table: "shipment_lines"
CREATE INDEX `shipmentline_account_id_id` ON `shipment_lines` (`account_id`, `id`);
-- create index "shipmentline_shipment_id" to table: "shipment_lines"
CREATE INDEX `shipmentline_shipment_id` ON `shipment_lines` (`shipment_id`);
-- create index "shipmentline_lot_id" to table: "shipment_lines"
CREATE INDEX `shipmentline_lot_id` ON `shipment_lines` (`lot_id`);

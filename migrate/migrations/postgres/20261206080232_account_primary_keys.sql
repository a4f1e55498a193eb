-- modify "api_request_hours" table
ALTER TABLE "api_request_hours" DROP CONSTRAINT "api_request_hours_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "api_request_hours_by_id" to table: "api_request_hours"
CREATE INDEX "api_request_hours_by_id" ON "api_request_hours" ("id");
-- drop index "billline_account_id_id" from table: "bill_lines"
DROP INDEX "billline_account_id_id";
-- modify "bill_lines" table
ALTER TABLE "bill_lines" DROP CONSTRAINT "bill_lines_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "bill_lines_by_id" to table: "bill_lines"
CREATE INDEX "bill_lines_by_id" ON "bill_lines" ("id");
-- the primary key of "bills" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "bills" DROP CONSTRAINT "bills_pkey";
ALTER TABLE "bills" ADD CONSTRAINT "bills_pkey" PRIMARY KEY USING INDEX "bill_account_id_id";
-- create index "bills_by_id" to table: "bills"
CREATE INDEX "bills_by_id" ON "bills" ("id");
-- drop index "customertag_account_id_id" from table: "customer_tags"
DROP INDEX "customertag_account_id_id";
-- modify "customer_tags" table
ALTER TABLE "customer_tags" DROP CONSTRAINT "customer_tags_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "customer_tags_by_id" to table: "customer_tags"
CREATE INDEX "customer_tags_by_id" ON "customer_tags" ("id");
-- the primary key of "customer_types" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "customer_types" DROP CONSTRAINT "customer_types_pkey";
ALTER TABLE "customer_types" ADD CONSTRAINT "customer_types_pkey" PRIMARY KEY USING INDEX "customertype_account_id_id";
-- create index "customer_types_by_id" to table: "customer_types"
CREATE INDEX "customer_types_by_id" ON "customer_types" ("id");
-- the primary key of "customers" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "customers" DROP CONSTRAINT "customers_pkey";
ALTER TABLE "customers" ADD CONSTRAINT "customers_pkey" PRIMARY KEY USING INDEX "customer_account_id_id";
-- create index "customers_by_id" to table: "customers"
CREATE INDEX "customers_by_id" ON "customers" ("id");
-- drop index "documentcounter_account_id_id" from table: "document_counters"
DROP INDEX "documentcounter_account_id_id";
-- modify "document_counters" table
ALTER TABLE "document_counters" DROP CONSTRAINT "document_counters_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "document_counters_by_id" to table: "document_counters"
CREATE INDEX "document_counters_by_id" ON "document_counters" ("id");
-- drop index "employee_account_id_id" from table: "employees"
DROP INDEX "employee_account_id_id";
-- modify "employees" table
ALTER TABLE "employees" DROP CONSTRAINT "employees_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "employees_by_id" to table: "employees"
CREATE INDEX "employees_by_id" ON "employees" ("id");
-- the primary key of "equipment" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "equipment" DROP CONSTRAINT "equipment_pkey";
ALTER TABLE "equipment" ADD CONSTRAINT "equipment_pkey" PRIMARY KEY USING INDEX "equipment_account_id_id";
-- create index "equipment_by_id" to table: "equipment"
CREATE INDEX "equipment_by_id" ON "equipment" ("id");
-- the primary key of "events" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "events" DROP CONSTRAINT "events_pkey";
ALTER TABLE "events" ADD CONSTRAINT "events_pkey" PRIMARY KEY USING INDEX "event_account_id_id";
-- create index "events_by_id" to table: "events"
CREATE INDEX "events_by_id" ON "events" ("id");
-- drop index "idempotencykey_account_id_id" from table: "idempotency_keys"
DROP INDEX "idempotencykey_account_id_id";
-- modify "idempotency_keys" table
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "idempotency_keys_by_id" to table: "idempotency_keys"
CREATE INDEX "idempotency_keys_by_id" ON "idempotency_keys" ("id");
-- drop index "invoiceline_account_id_id" from table: "invoice_lines"
DROP INDEX "invoiceline_account_id_id";
-- modify "invoice_lines" table
ALTER TABLE "invoice_lines" DROP CONSTRAINT "invoice_lines_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "invoice_lines_by_id" to table: "invoice_lines"
CREATE INDEX "invoice_lines_by_id" ON "invoice_lines" ("id");
-- the primary key of "invoices" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "invoices" DROP CONSTRAINT "invoices_pkey";
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_pkey" PRIMARY KEY USING INDEX "invoice_account_id_id";
-- create index "invoices_by_id" to table: "invoices"
CREATE INDEX "invoices_by_id" ON "invoices" ("id");
-- the primary key of "locations" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "locations" DROP CONSTRAINT "locations_pkey";
ALTER TABLE "locations" ADD CONSTRAINT "locations_pkey" PRIMARY KEY USING INDEX "location_account_id_id";
-- create index "locations_by_id" to table: "locations"
CREATE INDEX "locations_by_id" ON "locations" ("id");
-- drop index "lotcorrection_account_id_id" from table: "lot_corrections"
DROP INDEX "lotcorrection_account_id_id";
-- modify "lot_corrections" table
ALTER TABLE "lot_corrections" DROP CONSTRAINT "lot_corrections_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "lot_corrections_by_id" to table: "lot_corrections"
CREATE INDEX "lot_corrections_by_id" ON "lot_corrections" ("id");
-- the primary key of "operations" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "operations" DROP CONSTRAINT "operations_pkey";
ALTER TABLE "operations" ADD CONSTRAINT "operations_pkey" PRIMARY KEY USING INDEX "operation_account_id_id";
-- create index "operations_by_id" to table: "operations"
CREATE INDEX "operations_by_id" ON "operations" ("id");
-- the primary key of "price_lists" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "price_lists" DROP CONSTRAINT "price_lists_pkey";
ALTER TABLE "price_lists" ADD CONSTRAINT "price_lists_pkey" PRIMARY KEY USING INDEX "pricelist_account_id_id";
-- create index "price_lists_by_id" to table: "price_lists"
CREATE INDEX "price_lists_by_id" ON "price_lists" ("id");
-- drop index "productallergen_account_id_id" from table: "product_allergens"
DROP INDEX "productallergen_account_id_id";
-- modify "product_allergens" table
ALTER TABLE "product_allergens" DROP CONSTRAINT "product_allergens_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "product_allergens_by_id" to table: "product_allergens"
CREATE INDEX "product_allergens_by_id" ON "product_allergens" ("id");
-- drop index "productbannedcountry_account_id_id" from table: "product_banned_countries"
DROP INDEX "productbannedcountry_account_id_id";
-- modify "product_banned_countries" table
ALTER TABLE "product_banned_countries" DROP CONSTRAINT "product_banned_countries_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "product_banned_countries_by_id" to table: "product_banned_countries"
CREATE INDEX "product_banned_countries_by_id" ON "product_banned_countries" ("id");
-- drop index "productbyproduct_account_id_id" from table: "product_byproducts"
DROP INDEX "productbyproduct_account_id_id";
-- modify "product_byproducts" table
ALTER TABLE "product_byproducts" DROP CONSTRAINT "product_byproducts_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "product_byproducts_by_id" to table: "product_byproducts"
CREATE INDEX "product_byproducts_by_id" ON "product_byproducts" ("id");
-- the primary key of "product_lots" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "product_lots" DROP CONSTRAINT "product_lots_pkey";
ALTER TABLE "product_lots" ADD CONSTRAINT "product_lots_pkey" PRIMARY KEY USING INDEX "productlot_account_id_id";
-- create index "product_lots_by_id" to table: "product_lots"
CREATE INDEX "product_lots_by_id" ON "product_lots" ("id");
-- drop index "productqccheckpoint_account_id_id" from table: "product_qc_checkpoints"
DROP INDEX "productqccheckpoint_account_id_id";
-- modify "product_qc_checkpoints" table
ALTER TABLE "product_qc_checkpoints" DROP CONSTRAINT "product_qc_checkpoints_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "product_qc_checkpoints_by_id" to table: "product_qc_checkpoints"
CREATE INDEX "product_qc_checkpoints_by_id" ON "product_qc_checkpoints" ("id");
-- drop index "productsubstitute_account_id_id" from table: "product_substitutes"
DROP INDEX "productsubstitute_account_id_id";
-- modify "product_substitutes" table
ALTER TABLE "product_substitutes" DROP CONSTRAINT "product_substitutes_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "product_substitutes_by_id" to table: "product_substitutes"
CREATE INDEX "product_substitutes_by_id" ON "product_substitutes" ("id");
-- drop index "productsupplier_account_id_id" from table: "product_suppliers"
DROP INDEX "productsupplier_account_id_id";
-- modify "product_suppliers" table
ALTER TABLE "product_suppliers" DROP CONSTRAINT "product_suppliers_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "product_suppliers_by_id" to table: "product_suppliers"
CREATE INDEX "product_suppliers_by_id" ON "product_suppliers" ("id");
-- drop index "producttag_account_id_id" from table: "product_tags"
DROP INDEX "producttag_account_id_id";
-- modify "product_tags" table
ALTER TABLE "product_tags" DROP CONSTRAINT "product_tags_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "product_tags_by_id" to table: "product_tags"
CREATE INDEX "product_tags_by_id" ON "product_tags" ("id");
-- drop index "productionconsumedstep_account_id_id" from table: "production_consumed_steps"
DROP INDEX "productionconsumedstep_account_id_id";
-- modify "production_consumed_steps" table
ALTER TABLE "production_consumed_steps" DROP CONSTRAINT "production_consumed_steps_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "production_consumed_steps_by_id" to table: "production_consumed_steps"
CREATE INDEX "production_consumed_steps_by_id" ON "production_consumed_steps" ("id");
-- drop index "productionlineequipment_account_id_id" from table: "production_line_equipments"
DROP INDEX "productionlineequipment_account_id_id";
-- modify "production_line_equipments" table
ALTER TABLE "production_line_equipments" DROP CONSTRAINT "production_line_equipments_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "production_line_equipments_by_id" to table: "production_line_equipments"
CREATE INDEX "production_line_equipments_by_id" ON "production_line_equipments" ("id");
-- the primary key of "production_lines" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "production_lines" DROP CONSTRAINT "production_lines_pkey";
ALTER TABLE "production_lines" ADD CONSTRAINT "production_lines_pkey" PRIMARY KEY USING INDEX "productionline_account_id_id";
-- create index "production_lines_by_id" to table: "production_lines"
CREATE INDEX "production_lines_by_id" ON "production_lines" ("id");
-- drop index "productionoperation_account_id_id" from table: "production_operations"
DROP INDEX "productionoperation_account_id_id";
-- modify "production_operations" table
ALTER TABLE "production_operations" DROP CONSTRAINT "production_operations_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "production_operations_by_id" to table: "production_operations"
CREATE INDEX "production_operations_by_id" ON "production_operations" ("id");
-- drop index "productionplannedstep_account_id_id" from table: "production_planned_steps"
DROP INDEX "productionplannedstep_account_id_id";
-- modify "production_planned_steps" table
ALTER TABLE "production_planned_steps" DROP CONSTRAINT "production_planned_steps_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "production_planned_steps_by_id" to table: "production_planned_steps"
CREATE INDEX "production_planned_steps_by_id" ON "production_planned_steps" ("id");
-- the primary key of "productions" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "productions" DROP CONSTRAINT "productions_pkey";
ALTER TABLE "productions" ADD CONSTRAINT "productions_pkey" PRIMARY KEY USING INDEX "production_account_id_id";
-- create index "productions_by_id" to table: "productions"
CREATE INDEX "productions_by_id" ON "productions" ("id");
-- the primary key of "products" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "products" DROP CONSTRAINT "products_pkey";
ALTER TABLE "products" ADD CONSTRAINT "products_pkey" PRIMARY KEY USING INDEX "product_account_id_id";
-- create index "products_by_id" to table: "products"
CREATE INDEX "products_by_id" ON "products" ("id");
-- drop index "purchaseorderline_account_id_id" from table: "purchase_order_lines"
DROP INDEX "purchaseorderline_account_id_id";
-- modify "purchase_order_lines" table
ALTER TABLE "purchase_order_lines" DROP CONSTRAINT "purchase_order_lines_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "purchase_order_lines_by_id" to table: "purchase_order_lines"
CREATE INDEX "purchase_order_lines_by_id" ON "purchase_order_lines" ("id");
-- the primary key of "purchase_orders" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "purchase_orders" DROP CONSTRAINT "purchase_orders_pkey";
ALTER TABLE "purchase_orders" ADD CONSTRAINT "purchase_orders_pkey" PRIMARY KEY USING INDEX "purchaseorder_account_id_id";
-- create index "purchase_orders_by_id" to table: "purchase_orders"
CREATE INDEX "purchase_orders_by_id" ON "purchase_orders" ("id");
-- the primary key of "qc_checkpoints" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "qc_checkpoints" DROP CONSTRAINT "qc_checkpoints_pkey";
ALTER TABLE "qc_checkpoints" ADD CONSTRAINT "qc_checkpoints_pkey" PRIMARY KEY USING INDEX "qccheckpoint_account_id_id";
-- create index "qc_checkpoints_by_id" to table: "qc_checkpoints"
CREATE INDEX "qc_checkpoints_by_id" ON "qc_checkpoints" ("id");
-- drop index "recipestep_account_id_id" from table: "recipe_steps"
DROP INDEX "recipestep_account_id_id";
-- modify "recipe_steps" table
ALTER TABLE "recipe_steps" DROP CONSTRAINT "recipe_steps_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "recipe_steps_by_id" to table: "recipe_steps"
CREATE INDEX "recipe_steps_by_id" ON "recipe_steps" ("id");
-- drop index "salesorderline_account_id_id" from table: "sales_order_lines"
DROP INDEX "salesorderline_account_id_id";
-- modify "sales_order_lines" table
ALTER TABLE "sales_order_lines" DROP CONSTRAINT "sales_order_lines_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "sales_order_lines_by_id" to table: "sales_order_lines"
CREATE INDEX "sales_order_lines_by_id" ON "sales_order_lines" ("id");
-- the primary key of "sales_orders" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "sales_orders" DROP CONSTRAINT "sales_orders_pkey";
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_pkey" PRIMARY KEY USING INDEX "salesorder_account_id_id";
-- create index "sales_orders_by_id" to table: "sales_orders"
CREATE INDEX "sales_orders_by_id" ON "sales_orders" ("id");
-- the primary key of "salespeople" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "salespeople" DROP CONSTRAINT "salespeople_pkey";
ALTER TABLE "salespeople" ADD CONSTRAINT "salespeople_pkey" PRIMARY KEY USING INDEX "salesperson_account_id_id";
-- create index "salespeople_by_id" to table: "salespeople"
CREATE INDEX "salespeople_by_id" ON "salespeople" ("id");
-- drop index "shipmentline_account_id_id" from table: "shipment_lines"
DROP INDEX "shipmentline_account_id_id";
-- modify "shipment_lines" table
ALTER TABLE "shipment_lines" DROP CONSTRAINT "shipment_lines_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "shipment_lines_by_id" to table: "shipment_lines"
CREATE INDEX "shipment_lines_by_id" ON "shipment_lines" ("id");
-- the primary key of "shipments" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "shipments" DROP CONSTRAINT "shipments_pkey";
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_pkey" PRIMARY KEY USING INDEX "shipment_account_id_id";
-- create index "shipments_by_id" to table: "shipments"
CREATE INDEX "shipments_by_id" ON "shipments" ("id");
-- drop index "shippingaddress_account_id_id" from table: "shipping_addresses"
DROP INDEX "shippingaddress_account_id_id";
-- modify "shipping_addresses" table
ALTER TABLE "shipping_addresses" DROP CONSTRAINT "shipping_addresses_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "shipping_addresses_by_id" to table: "shipping_addresses"
CREATE INDEX "shipping_addresses_by_id" ON "shipping_addresses" ("id");
-- the primary key of "shipping_methods" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "shipping_methods" DROP CONSTRAINT "shipping_methods_pkey";
ALTER TABLE "shipping_methods" ADD CONSTRAINT "shipping_methods_pkey" PRIMARY KEY USING INDEX "shippingmethod_account_id_id";
-- create index "shipping_methods_by_id" to table: "shipping_methods"
CREATE INDEX "shipping_methods_by_id" ON "shipping_methods" ("id");
-- drop index "stockmovement_account_id_id" from table: "stock_movements"
DROP INDEX "stockmovement_account_id_id";
-- modify "stock_movements" table
ALTER TABLE "stock_movements" DROP CONSTRAINT "stock_movements_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "stock_movements_by_id" to table: "stock_movements"
CREATE INDEX "stock_movements_by_id" ON "stock_movements" ("id");
-- the primary key of "suppliers" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "suppliers" DROP CONSTRAINT "suppliers_pkey";
ALTER TABLE "suppliers" ADD CONSTRAINT "suppliers_pkey" PRIMARY KEY USING INDEX "supplier_account_id_id";
-- create index "suppliers_by_id" to table: "suppliers"
CREATE INDEX "suppliers_by_id" ON "suppliers" ("id");
-- the primary key of "tags" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "tags" DROP CONSTRAINT "tags_pkey";
ALTER TABLE "tags" ADD CONSTRAINT "tags_pkey" PRIMARY KEY USING INDEX "tag_account_id_id";
-- create index "tags_by_id" to table: "tags"
CREATE INDEX "tags_by_id" ON "tags" ("id");
-- the primary key of "tax_rates" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "tax_rates" DROP CONSTRAINT "tax_rates_pkey";
ALTER TABLE "tax_rates" ADD CONSTRAINT "tax_rates_pkey" PRIMARY KEY USING INDEX "taxrate_account_id_id";
-- create index "tax_rates_by_id" to table: "tax_rates"
CREATE INDEX "tax_rates_by_id" ON "tax_rates" ("id");
-- the primary key of "territories" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "territories" DROP CONSTRAINT "territories_pkey";
ALTER TABLE "territories" ADD CONSTRAINT "territories_pkey" PRIMARY KEY USING INDEX "territory_account_id_id";
-- create index "territories_by_id" to table: "territories"
CREATE INDEX "territories_by_id" ON "territories" ("id");
-- modify "webhook_attempts" table
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_pkey", ADD PRIMARY KEY ("account_id", "id");
-- create index "webhook_attempts_by_id" to table: "webhook_attempts"
CREATE INDEX "webhook_attempts_by_id" ON "webhook_attempts" ("id");
-- the primary key of "webhook_deliveries" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey";
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY USING INDEX "webhookdelivery_account_id_id";
-- create index "webhook_deliveries_by_id" to table: "webhook_deliveries"
CREATE INDEX "webhook_deliveries_by_id" ON "webhook_deliveries" ("id");
-- the primary key of "webhook_endpoints" becomes its unique index on (account_id, id), which foreign keys refer to
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_pkey";
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY USING INDEX "webhookendpoint_account_id_id";
-- create index "webhook_endpoints_by_id" to table: "webhook_endpoints"
CREATE INDEX "webhook_endpoints_by_id" ON "webhook_endpoints" ("id");

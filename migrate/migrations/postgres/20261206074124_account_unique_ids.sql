-- drop index "bill_account_id_id" from table: "bills"
DROP INDEX "bill_account_id_id";
-- create index "bill_account_id_id" to table: "bills"
CREATE UNIQUE INDEX "bill_account_id_id" ON "bills" ("account_id", "id");
-- drop index "customertag_customer_id_tag_id" from table: "customer_tags"
DROP INDEX "customertag_customer_id_tag_id";
-- create index "customertag_account_id_customer_id_tag_id" to table: "customer_tags"
CREATE UNIQUE INDEX "customertag_account_id_customer_id_tag_id" ON "customer_tags" ("account_id", "customer_id", "tag_id");
-- drop index "customertype_account_id_id" from table: "customer_types"
DROP INDEX "customertype_account_id_id";
-- create index "customertype_account_id_id" to table: "customer_types"
CREATE UNIQUE INDEX "customertype_account_id_id" ON "customer_types" ("account_id", "id");
-- drop index "customer_account_id_id" from table: "customers"
DROP INDEX "customer_account_id_id";
-- create index "customer_account_id_id" to table: "customers"
CREATE UNIQUE INDEX "customer_account_id_id" ON "customers" ("account_id", "id");
-- drop index "equipment_account_id_id" from table: "equipment"
DROP INDEX "equipment_account_id_id";
-- create index "equipment_account_id_id" to table: "equipment"
CREATE UNIQUE INDEX "equipment_account_id_id" ON "equipment" ("account_id", "id");
-- drop index "events_event_id_key" from table: "events"
DROP INDEX "events_event_id_key";
-- create index "event_account_id_event_id" to table: "events"
CREATE UNIQUE INDEX "event_account_id_event_id" ON "events" ("account_id", "event_id");
-- drop index "invoice_account_id_id" from table: "invoices"
DROP INDEX "invoice_account_id_id";
-- create index "invoice_account_id_id" to table: "invoices"
CREATE UNIQUE INDEX "invoice_account_id_id" ON "invoices" ("account_id", "id");
-- drop index "location_account_id_id" from table: "locations"
DROP INDEX "location_account_id_id";
-- drop index "location_parent_id_code" from table: "locations"
DROP INDEX "location_parent_id_code";
-- create index "location_account_id_id" to table: "locations"
CREATE UNIQUE INDEX "location_account_id_id" ON "locations" ("account_id", "id");
-- create index "location_account_id_parent_id_code" to table: "locations"
CREATE UNIQUE INDEX "location_account_id_parent_id_code" ON "locations" ("account_id", "parent_id", "code");
-- drop index "operation_account_id_id" from table: "operations"
DROP INDEX "operation_account_id_id";
-- create index "operation_account_id_id" to table: "operations"
CREATE UNIQUE INDEX "operation_account_id_id" ON "operations" ("account_id", "id");
-- drop index "pricelist_account_id_id" from table: "price_lists"
DROP INDEX "pricelist_account_id_id";
-- create index "pricelist_account_id_id" to table: "price_lists"
CREATE UNIQUE INDEX "pricelist_account_id_id" ON "price_lists" ("account_id", "id");
-- drop index "productallergen_product_id_allergen_id" from table: "product_allergens"
DROP INDEX "productallergen_product_id_allergen_id";
-- create index "productallergen_account_id_product_id_allergen_id" to table: "product_allergens"
CREATE UNIQUE INDEX "productallergen_account_id_product_id_allergen_id" ON "product_allergens" ("account_id", "product_id", "allergen_id");
-- drop index "productbannedcountry_product_id_country_id" from table: "product_banned_countries"
DROP INDEX "productbannedcountry_product_id_country_id";
-- create index "productbannedcountry_account_id_product_id_country_id" to table: "product_banned_countries"
CREATE UNIQUE INDEX "productbannedcountry_account_id_product_id_country_id" ON "product_banned_countries" ("account_id", "product_id", "country_id");
-- drop index "productbyproduct_product_id_byproduct_id" from table: "product_byproducts"
DROP INDEX "productbyproduct_product_id_byproduct_id";
-- create index "productbyproduct_account_id_product_id_byproduct_id" to table: "product_byproducts"
CREATE UNIQUE INDEX "productbyproduct_account_id_product_id_byproduct_id" ON "product_byproducts" ("account_id", "product_id", "byproduct_id");
-- drop index "productlot_account_id_id" from table: "product_lots"
DROP INDEX "productlot_account_id_id";
-- drop index "productlot_product_id_location_key_lot_number" from table: "product_lots"
DROP INDEX "productlot_product_id_location_key_lot_number";
-- create index "productlot_account_id_id" to table: "product_lots"
CREATE UNIQUE INDEX "productlot_account_id_id" ON "product_lots" ("account_id", "id");
-- create index "productlot_account_id_product_id_location_key_lot_number" to table: "product_lots"
CREATE UNIQUE INDEX "productlot_account_id_product_id_location_key_lot_number" ON "product_lots" ("account_id", "product_id", "location_key", "lot_number");
-- drop index "productqccheckpoint_product_id_qc_checkpoint_id" from table: "product_qc_checkpoints"
DROP INDEX "productqccheckpoint_product_id_qc_checkpoint_id";
-- create index "productqccheckpoint_account_id_product_id_qc_checkpoint_id" to table: "product_qc_checkpoints"
CREATE UNIQUE INDEX "productqccheckpoint_account_id_product_id_qc_checkpoint_id" ON "product_qc_checkpoints" ("account_id", "product_id", "qc_checkpoint_id");
-- drop index "productsubstitute_product_id_substitute_id" from table: "product_substitutes"
DROP INDEX "productsubstitute_product_id_substitute_id";
-- create index "productsubstitute_account_id_product_id_substitute_id" to table: "product_substitutes"
CREATE UNIQUE INDEX "productsubstitute_account_id_product_id_substitute_id" ON "product_substitutes" ("account_id", "product_id", "substitute_id");
-- drop index "productsupplier_product_id_supplier_id" from table: "product_suppliers"
DROP INDEX "productsupplier_product_id_supplier_id";
-- create index "productsupplier_account_id_product_id_supplier_id" to table: "product_suppliers"
CREATE UNIQUE INDEX "productsupplier_account_id_product_id_supplier_id" ON "product_suppliers" ("account_id", "product_id", "supplier_id");
-- drop index "producttag_product_id_tag_id" from table: "product_tags"
DROP INDEX "producttag_product_id_tag_id";
-- create index "producttag_account_id_product_id_tag_id" to table: "product_tags"
CREATE UNIQUE INDEX "producttag_account_id_product_id_tag_id" ON "product_tags" ("account_id", "product_id", "tag_id");
-- drop index "productionlineequipment_production_line_id_equipment_id" from table: "production_line_equipments"
DROP INDEX "productionlineequipment_production_line_id_equipment_id";
-- create index "productionlineequipment_account_id_line_id_equipment_id" to table: "production_line_equipments"
CREATE UNIQUE INDEX "productionlineequipment_account_id_line_id_equipment_id" ON "production_line_equipments" ("account_id", "production_line_id", "equipment_id");
-- drop index "productionline_account_id_id" from table: "production_lines"
DROP INDEX "productionline_account_id_id";
-- create index "productionline_account_id_id" to table: "production_lines"
CREATE UNIQUE INDEX "productionline_account_id_id" ON "production_lines" ("account_id", "id");
-- drop index "productionoperation_production_id_position" from table: "production_operations"
DROP INDEX "productionoperation_production_id_position";
-- create index "productionoperation_account_id_production_id_position" to table: "production_operations"
CREATE UNIQUE INDEX "productionoperation_account_id_production_id_position" ON "production_operations" ("account_id", "production_id", "position");
-- drop index "production_account_id_id" from table: "productions"
DROP INDEX "production_account_id_id";
-- create index "production_account_id_id" to table: "productions"
CREATE UNIQUE INDEX "production_account_id_id" ON "productions" ("account_id", "id");
-- drop index "product_account_id_id" from table: "products"
DROP INDEX "product_account_id_id";
-- create index "product_account_id_id" to table: "products"
CREATE UNIQUE INDEX "product_account_id_id" ON "products" ("account_id", "id");
-- drop index "purchaseorder_account_id_id" from table: "purchase_orders"
DROP INDEX "purchaseorder_account_id_id";
-- create index "purchaseorder_account_id_id" to table: "purchase_orders"
CREATE UNIQUE INDEX "purchaseorder_account_id_id" ON "purchase_orders" ("account_id", "id");
-- drop index "qccheckpoint_account_id_id" from table: "qc_checkpoints"
DROP INDEX "qccheckpoint_account_id_id";
-- create index "qccheckpoint_account_id_id" to table: "qc_checkpoints"
CREATE UNIQUE INDEX "qccheckpoint_account_id_id" ON "qc_checkpoints" ("account_id", "id");
-- drop index "recipestep_product_id_position" from table: "recipe_steps"
DROP INDEX "recipestep_product_id_position";
-- create index "recipestep_account_id_product_id_position" to table: "recipe_steps"
CREATE UNIQUE INDEX "recipestep_account_id_product_id_position" ON "recipe_steps" ("account_id", "product_id", "position");
-- drop index "salesorder_account_id_id" from table: "sales_orders"
DROP INDEX "salesorder_account_id_id";
-- create index "salesorder_account_id_id" to table: "sales_orders"
CREATE UNIQUE INDEX "salesorder_account_id_id" ON "sales_orders" ("account_id", "id");
-- drop index "salesperson_account_id_id" from table: "salespeople"
DROP INDEX "salesperson_account_id_id";
-- create index "salesperson_account_id_id" to table: "salespeople"
CREATE UNIQUE INDEX "salesperson_account_id_id" ON "salespeople" ("account_id", "id");
-- drop index "shipment_account_id_id" from table: "shipments"
DROP INDEX "shipment_account_id_id";
-- create index "shipment_account_id_id" to table: "shipments"
CREATE UNIQUE INDEX "shipment_account_id_id" ON "shipments" ("account_id", "id");
-- drop index "shipping_addresses_one_default" from table: "shipping_addresses"
DROP INDEX "shipping_addresses_one_default";
-- create index "shipping_addresses_one_default" to table: "shipping_addresses"
CREATE UNIQUE INDEX "shipping_addresses_one_default" ON "shipping_addresses" ("account_id", "customer_id") WHERE is_default;
-- drop index "shippingmethod_account_id_id" from table: "shipping_methods"
DROP INDEX "shippingmethod_account_id_id";
-- create index "shippingmethod_account_id_id" to table: "shipping_methods"
CREATE UNIQUE INDEX "shippingmethod_account_id_id" ON "shipping_methods" ("account_id", "id");
-- drop index "supplier_account_id_id" from table: "suppliers"
DROP INDEX "supplier_account_id_id";
-- create index "supplier_account_id_id" to table: "suppliers"
CREATE UNIQUE INDEX "supplier_account_id_id" ON "suppliers" ("account_id", "id");
-- drop index "tag_account_id_id" from table: "tags"
DROP INDEX "tag_account_id_id";
-- create index "tag_account_id_id" to table: "tags"
CREATE UNIQUE INDEX "tag_account_id_id" ON "tags" ("account_id", "id");
-- drop index "taxrate_account_id_id" from table: "tax_rates"
DROP INDEX "taxrate_account_id_id";
-- create index "taxrate_account_id_id" to table: "tax_rates"
CREATE UNIQUE INDEX "taxrate_account_id_id" ON "tax_rates" ("account_id", "id");
-- drop index "territory_account_id_id" from table: "territories"
DROP INDEX "territory_account_id_id";
-- create index "territory_account_id_id" to table: "territories"
CREATE UNIQUE INDEX "territory_account_id_id" ON "territories" ("account_id", "id");

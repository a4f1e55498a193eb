-- drop index "productlot_account_id_product_id_expiration_date" from table: "product_lots"
DROP INDEX "productlot_account_id_product_id_expiration_date";
-- create index "productlot_account_id_product_id_expiration_date_id" to table: "product_lots"
CREATE INDEX "productlot_account_id_product_id_expiration_date_id" ON "product_lots" ("account_id", "product_id", "expiration_date", "id");

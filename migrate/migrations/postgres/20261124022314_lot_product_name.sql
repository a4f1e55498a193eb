-- modify "product_lots" table
ALTER TABLE "product_lots" ADD COLUMN "product_name" character varying NULL;
-- create index "productlot_account_id_product_name" to table: "product_lots"
CREATE INDEX "productlot_account_id_product_name" ON "product_lots" ("account_id", "product_name");
-- Backfill the copy of each lot's product name (hand-written).
UPDATE product_lots SET product_name = (SELECT products.name FROM products WHERE products.id = product_lots.product_id);

-- create index "stockmovement_account_id_document_type_document_id" to table: "stock_movements"
CREATE INDEX "stockmovement_account_id_document_type_document_id" ON "stock_movements" ("account_id", "document_type", "document_id");

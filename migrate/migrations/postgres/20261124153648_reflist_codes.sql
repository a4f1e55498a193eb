-- drop index "salesperson_account_id_code" from table: "salespeople"
DROP INDEX "salesperson_account_id_code";
-- create index "salesperson_account_id_code" to table: "salespeople"
CREATE UNIQUE INDEX "salesperson_account_id_code" ON "salespeople" ("account_id", "code");
-- drop index "taxrate_account_id_code" from table: "tax_rates"
DROP INDEX "taxrate_account_id_code";
-- create index "taxrate_account_id_code" to table: "tax_rates"
CREATE UNIQUE INDEX "taxrate_account_id_code" ON "tax_rates" ("account_id", "code");

-- modify "suppliers" table
ALTER TABLE "suppliers" ADD COLUMN "address" json NULL, ADD COLUMN "approval_expiry" timestamptz NULL, ADD COLUMN "approval_status" character varying NOT NULL DEFAULT 'PENDING', ADD COLUMN "certification_expires_on" timestamptz NULL, ADD COLUMN "certification_scheme" character varying NULL, ADD COLUMN "contact_name" character varying NULL, ADD COLUMN "email" character varying NULL, ADD COLUMN "phone" character varying NULL, ADD COLUMN "website" character varying NULL;
-- create index "supplier_account_id_active" to table: "suppliers"
CREATE INDEX "supplier_account_id_active" ON "suppliers" ("account_id", "active");
-- create index "supplier_account_id_company" to table: "suppliers"
CREATE INDEX "supplier_account_id_company" ON "suppliers" ("account_id", "company");
-- create index "supplier_account_id_created_at" to table: "suppliers"
CREATE INDEX "supplier_account_id_created_at" ON "suppliers" ("account_id", "created_at");
-- create index "supplier_account_id_email" to table: "suppliers"
CREATE INDEX "supplier_account_id_email" ON "suppliers" ("account_id", "email");
-- create index "supplier_account_id_updated_at" to table: "suppliers"
CREATE INDEX "supplier_account_id_updated_at" ON "suppliers" ("account_id", "updated_at");

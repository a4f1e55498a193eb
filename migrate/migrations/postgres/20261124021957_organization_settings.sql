-- modify "organizations" table
ALTER TABLE "organizations" ADD COLUMN "block_unapproved_suppliers" boolean NOT NULL DEFAULT false, ADD COLUMN "manual_costing" boolean NOT NULL DEFAULT false;

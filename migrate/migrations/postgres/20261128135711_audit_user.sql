-- modify "audit_records" table
ALTER TABLE "audit_records" ADD COLUMN "user_id" bigint NULL;

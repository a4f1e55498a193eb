-- modify "idempotency_keys" table
ALTER TABLE "idempotency_keys" ADD COLUMN "holder" character varying NOT NULL DEFAULT '', ADD COLUMN "lease_until" timestamptz NULL;

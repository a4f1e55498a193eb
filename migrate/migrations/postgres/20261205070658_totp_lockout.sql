-- modify "users" table
ALTER TABLE "users" ADD COLUMN "totp_failures" bigint NOT NULL DEFAULT 0, ADD COLUMN "totp_failed_at" timestamptz NULL;

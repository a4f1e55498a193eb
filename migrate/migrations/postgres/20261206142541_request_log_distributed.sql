-- drop index "api_request_reads_by_id" from table: "api_request_reads"
DROP INDEX "api_request_reads_by_id";
-- failed authentications belong to account 0, which no account has
UPDATE "api_requests" SET "account_id" = 0 WHERE "account_id" IS NULL;
-- modify "api_requests" table
ALTER TABLE "api_requests" DROP CONSTRAINT "api_requests_pkey", ALTER COLUMN "account_id" SET NOT NULL, ADD PRIMARY KEY ("account_id", "id", "created_at");

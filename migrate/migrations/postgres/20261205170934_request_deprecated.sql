-- modify "api_requests" table
ALTER TABLE "api_requests" ADD COLUMN "deprecated" character varying NOT NULL DEFAULT '';
-- create index "apirequest_deprecated" to table: "api_requests"
CREATE INDEX "apirequest_deprecated" ON "api_requests" ("account_id", "api_key_id", "deprecated") WHERE ((deprecated)::text <> ''::text);

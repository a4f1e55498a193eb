-- create index "event_account_id_id" to table: "events"
CREATE UNIQUE INDEX "event_account_id_id" ON "events" ("account_id", "id");
-- drop index "webhookendpoint_account_id" from table: "webhook_endpoints"
DROP INDEX "webhookendpoint_account_id";
-- create index "webhookendpoint_account_id_id" to table: "webhook_endpoints"
CREATE UNIQUE INDEX "webhookendpoint_account_id_id" ON "webhook_endpoints" ("account_id", "id");
-- add "account_id" to "webhook_deliveries" and "webhook_attempts", each row with its event's account
ALTER TABLE "webhook_deliveries" ADD COLUMN "account_id" bigint NULL;
UPDATE "webhook_deliveries" AS d SET "account_id" = e."account_id" FROM "events" AS e WHERE e."id" = d."event_id";
ALTER TABLE "webhook_deliveries" ALTER COLUMN "account_id" SET NOT NULL;
ALTER TABLE "webhook_attempts" ADD COLUMN "account_id" bigint NULL;
UPDATE "webhook_attempts" AS a SET "account_id" = d."account_id" FROM "webhook_deliveries" AS d WHERE d."id" = a."delivery_id";
ALTER TABLE "webhook_attempts" ALTER COLUMN "account_id" SET NOT NULL;
-- drop index "webhookdelivery_event_id_endpoint_id" from table: "webhook_deliveries"
DROP INDEX "webhookdelivery_event_id_endpoint_id";
-- modify "webhook_deliveries" table
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_events_deliveries", DROP CONSTRAINT "webhook_deliveries_webhook_endpoints_deliveries", ADD CONSTRAINT "webhook_deliveries_events_deliveries" FOREIGN KEY ("account_id", "event_id") REFERENCES "events" ("account_id", "id") ON UPDATE NO ACTION ON DELETE RESTRICT, ADD CONSTRAINT "webhook_deliveries_webhook_endpoints_deliveries" FOREIGN KEY ("account_id", "endpoint_id") REFERENCES "webhook_endpoints" ("account_id", "id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "webhook_deliveries_accounts_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON UPDATE NO ACTION ON DELETE RESTRICT;
-- create index "webhookdelivery_account_id_event_id_endpoint_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX "webhookdelivery_account_id_event_id_endpoint_id" ON "webhook_deliveries" ("account_id", "event_id", "endpoint_id");
-- create index "webhookdelivery_account_id_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX "webhookdelivery_account_id_id" ON "webhook_deliveries" ("account_id", "id");
-- modify "webhook_attempts" table
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_webhook_deliveries_attempts", ADD CONSTRAINT "webhook_attempts_webhook_deliveries_attempts" FOREIGN KEY ("account_id", "delivery_id") REFERENCES "webhook_deliveries" ("account_id", "id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "webhook_attempts_accounts_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON UPDATE NO ACTION ON DELETE RESTRICT;

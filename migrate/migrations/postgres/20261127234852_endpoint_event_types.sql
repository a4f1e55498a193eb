-- modify "webhook_endpoints" table
ALTER TABLE "webhook_endpoints" ADD COLUMN "event_types" json NULL;

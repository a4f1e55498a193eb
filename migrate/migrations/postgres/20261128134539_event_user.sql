-- modify "events" table
ALTER TABLE "events" ADD COLUMN "user_id" bigint NULL;

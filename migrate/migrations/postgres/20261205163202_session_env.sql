-- modify "sessions" table
ALTER TABLE "sessions" ADD COLUMN "env" character varying NULL;

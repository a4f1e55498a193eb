-- The encoded reads of a row of api_request_reads (about 15 kB for a
-- writer's batch of 500) are compressed with LZ4 rather than PostgreSQL's
-- default pglz, which costs the writer's backend more CPU for the same rows.
-- The partitioned table passes the setting to the day partitions made later;
-- those there are now are set one by one. A server built without LZ4 keeps
-- pglz.
DO $$
DECLARE
  part regclass;
BEGIN
  ALTER TABLE "api_request_reads" ALTER COLUMN "entries" SET COMPRESSION lz4;
  FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'api_request_reads'::regclass LOOP
    EXECUTE format('ALTER TABLE %s ALTER COLUMN "entries" SET COMPRESSION lz4', part);
  END LOOP;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this PostgreSQL has no LZ4: api_request_reads.entries stays compressed with pglz';
END $$;

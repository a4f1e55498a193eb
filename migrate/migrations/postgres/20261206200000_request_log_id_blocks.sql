-- The ids of api_requests step by 1024 on PostgreSQL: one value drawn from
-- the identity's sequence reserves the 1,024 ids from it up. The request
-- log's writer gives a batch's plain reads (at most 500) the ids of one
-- value, where it drew a value for each; a request stored as a row of its
-- own takes a value, as before. Ids still rise in the order they are drawn,
-- whichever server draws them.
--
-- Citus alters no identity of a table it has distributed: there the ids
-- keep stepping by 1, and the writer, which reads the increment, draws a
-- value for each plain read, as before.
DO $$
BEGIN
  ALTER TABLE "api_requests" ALTER COLUMN "id" SET INCREMENT BY 1024;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'api_requests is distributed: its ids keep stepping by 1';
END $$;

-- The ids of api_requests step by 1024 on PostgreSQL: one value drawn from
-- the identity's sequence reserves the 1,024 ids from it up. The request
-- log's writer gives a batch's plain reads (at most 500) the ids of one
-- value, where it drew a value for each; a request stored as a row of its
-- own takes a value, as before. Ids still rise in the order they are drawn,
-- whichever server draws them.
ALTER TABLE "api_requests" ALTER COLUMN "id" SET INCREMENT BY 1024;

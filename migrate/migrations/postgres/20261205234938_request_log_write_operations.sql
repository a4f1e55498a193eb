-- The writes' partial index carries the operation after the time, so that a
-- write operation's search reads the writes alone. Rebuilt on every day
-- partition in one statement, during which the request log's writes wait.
-- drop index "apirequest_kept" from table: "api_requests"
DROP INDEX "apirequest_kept";
-- create index "apirequest_kept" to table: "api_requests"
CREATE INDEX "apirequest_kept" ON "api_requests" ("account_id", "method", "created_at", "id", "operation") WHERE (request_body IS NOT NULL);

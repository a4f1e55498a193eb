-- A request is found by its id through the account's time index, in the
-- seconds its id's time gives (reqlog.Find): the request id's own index cost
-- every logged request an entry.
-- drop index "apirequest_request_id" from table: "api_requests"
DROP INDEX `apirequest_request_id`;

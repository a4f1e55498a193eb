-- drop index "apirequest_account_id_created_at_id" from table: "api_requests"
DROP INDEX `apirequest_account_id_created_at_id`;
-- drop index "apirequest_account_id_api_key_id_created_at_id" from table: "api_requests"
DROP INDEX `apirequest_account_id_api_key_id_created_at_id`;
-- drop index "apirequest_account_id_operation_created_at_id" from table: "api_requests"
DROP INDEX `apirequest_account_id_operation_created_at_id`;
-- create index "apirequest_account_time" to table: "api_requests"
CREATE INDEX `apirequest_account_time` ON `api_requests` (`account_id`, `created_at`, `id`, `api_key_id`, `operation`);

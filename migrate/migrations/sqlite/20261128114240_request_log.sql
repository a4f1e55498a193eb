-- create index "event_request_id" to table: "events"
CREATE INDEX `event_request_id` ON `events` (`request_id`);
-- create "api_requests" table
CREATE TABLE `api_requests` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `account_id` integer NULL, `api_key_id` integer NULL, `method` text NOT NULL, `operation` text NOT NULL DEFAULT (''), `path` text NOT NULL, `status` integer NOT NULL, `status_class` integer NOT NULL, `error_code` text NOT NULL DEFAULT (''), `request_id` text NOT NULL, `client_request_id` text NOT NULL DEFAULT (''), `duration_us` integer NOT NULL, `client_addr` text NOT NULL DEFAULT (''), `user_agent` text NOT NULL DEFAULT (''), `request_body` blob NULL, `response_body` blob NULL, `truncated` bool NOT NULL DEFAULT (false));
-- create index "apirequest_account_id_created_at_id" to table: "api_requests"
CREATE INDEX `apirequest_account_id_created_at_id` ON `api_requests` (`account_id`, `created_at`, `id`);
-- create index "apirequest_account_id_api_key_id_created_at_id" to table: "api_requests"
CREATE INDEX `apirequest_account_id_api_key_id_created_at_id` ON `api_requests` (`account_id`, `api_key_id`, `created_at`, `id`);
-- create index "apirequest_account_id_operation_created_at_id" to table: "api_requests"
CREATE INDEX `apirequest_account_id_operation_created_at_id` ON `api_requests` (`account_id`, `operation`, `created_at`, `id`);
-- create index "apirequest_not_ok" to table: "api_requests"
CREATE INDEX `apirequest_not_ok` ON `api_requests` (`account_id`, `status_class`, `created_at`, `id`) WHERE status >= 300;
-- create index "apirequest_errors" to table: "api_requests"
CREATE INDEX `apirequest_errors` ON `api_requests` (`account_id`, `error_code`, `created_at`, `id`) WHERE status >= 400;
-- create index "apirequest_kept" to table: "api_requests"
CREATE INDEX `apirequest_kept` ON `api_requests` (`account_id`, `method`, `created_at`, `id`) WHERE request_body IS NOT NULL;
-- create index "apirequest_request_id" to table: "api_requests"
CREATE INDEX `apirequest_request_id` ON `api_requests` (`request_id`);
-- create index "apirequest_created_at" to table: "api_requests"
CREATE INDEX `apirequest_created_at` ON `api_requests` (`created_at`);

-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- failed authentications belong to account 0, which no account has
UPDATE `api_requests` SET `account_id` = 0 WHERE `account_id` IS NULL;
-- create "new_api_requests" table
CREATE TABLE `new_api_requests` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `account_id` integer NOT NULL, `api_key_id` integer NULL, `method` text NOT NULL, `operation` text NOT NULL DEFAULT (''), `path` text NOT NULL, `status` integer NOT NULL, `status_class` integer NOT NULL, `error_code` text NOT NULL DEFAULT (''), `request_id` text NOT NULL, `client_request_id` text NOT NULL DEFAULT (''), `duration_us` integer NOT NULL, `client_addr` text NOT NULL DEFAULT (''), `user_agent` text NOT NULL DEFAULT (''), `request_body` blob NULL, `response_body` blob NULL, `truncated` bool NOT NULL DEFAULT (false), `deprecated` text NOT NULL DEFAULT (''));
-- copy rows from old table "api_requests" to new temporary table "new_api_requests"
INSERT INTO `new_api_requests` (`id`, `created_at`, `account_id`, `api_key_id`, `method`, `operation`, `path`, `status`, `status_class`, `error_code`, `request_id`, `client_request_id`, `duration_us`, `client_addr`, `user_agent`, `request_body`, `response_body`, `truncated`, `deprecated`) SELECT `id`, `created_at`, `account_id`, `api_key_id`, `method`, `operation`, `path`, `status`, `status_class`, `error_code`, `request_id`, `client_request_id`, `duration_us`, `client_addr`, `user_agent`, `request_body`, `response_body`, `truncated`, `deprecated` FROM `api_requests`;
-- keep the ids' counter, which the plain reads' rows draw from past the last row's id
DELETE FROM `sqlite_sequence` WHERE `name` = 'new_api_requests';
INSERT INTO `sqlite_sequence` (`name`, `seq`) SELECT 'new_api_requests', `seq` FROM `sqlite_sequence` WHERE `name` = 'api_requests';
-- drop "api_requests" table after copying rows
DROP TABLE `api_requests`;
-- rename temporary table "new_api_requests" to "api_requests"
ALTER TABLE `new_api_requests` RENAME TO `api_requests`;
-- create index "apirequest_account_time" to table: "api_requests"
CREATE INDEX `apirequest_account_time` ON `api_requests` (`account_id`, `created_at`, `id`, `api_key_id`, `operation`);
-- create index "apirequest_not_ok" to table: "api_requests"
CREATE INDEX `apirequest_not_ok` ON `api_requests` (`account_id`, `status_class`, `created_at`, `id`) WHERE status >= 300;
-- create index "apirequest_errors" to table: "api_requests"
CREATE INDEX `apirequest_errors` ON `api_requests` (`account_id`, `error_code`, `created_at`, `id`) WHERE status >= 400;
-- create index "apirequest_kept" to table: "api_requests"
CREATE INDEX `apirequest_kept` ON `api_requests` (`account_id`, `method`, `created_at`, `id`, `operation`) WHERE request_body IS NOT NULL;
-- create index "apirequest_deprecated" to table: "api_requests"
CREATE INDEX `apirequest_deprecated` ON `api_requests` (`account_id`, `api_key_id`, `deprecated`) WHERE deprecated <> '';
-- create index "apirequest_created_at" to table: "api_requests"
CREATE INDEX `apirequest_created_at` ON `api_requests` (`created_at`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

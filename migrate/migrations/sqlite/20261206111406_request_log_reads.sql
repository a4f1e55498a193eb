-- create "api_request_reads" table
CREATE TABLE `api_request_reads` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `account_id` integer NOT NULL, `api_key_id` integer NOT NULL, `method` text NOT NULL, `operation` text NOT NULL, `first_at` datetime NOT NULL, `last_at` datetime NOT NULL, `first_id` integer NOT NULL, `last_id` integer NOT NULL, `requests` integer NOT NULL, `entries` blob NOT NULL);
-- create index "apirequestread_account_time" to table: "api_request_reads"
CREATE INDEX `apirequestread_account_time` ON `api_request_reads` (`account_id`, `last_at`, `id`, `api_key_id`, `operation`);
-- create index "apirequestread_account_ids" to table: "api_request_reads"
CREATE INDEX `apirequestread_account_ids` ON `api_request_reads` (`account_id`, `first_id`, `last_id`);
-- create index "apirequestread_last_at" to table: "api_request_reads"
CREATE INDEX `apirequestread_last_at` ON `api_request_reads` (`last_at`);

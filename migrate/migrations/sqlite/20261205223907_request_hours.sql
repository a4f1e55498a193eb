-- create "api_request_hours" table
CREATE TABLE `api_request_hours` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `account_id` integer NOT NULL, `hour` datetime NOT NULL, `requests` integer NOT NULL DEFAULT (0), `errors` integer NOT NULL DEFAULT (0));
-- create index "apirequesthour_account_id_hour" to table: "api_request_hours"
CREATE UNIQUE INDEX `apirequesthour_account_id_hour` ON `api_request_hours` (`account_id`, `hour`);
-- count the requests the log already holds
INSERT INTO `api_request_hours` (`account_id`, `hour`, `requests`, `errors`) SELECT `account_id`, strftime('%Y-%m-%d %H:00:00+00:00', `created_at`), count(*), sum(`status` >= 400) FROM `api_requests` WHERE `account_id` IS NOT NULL GROUP BY 1, 2;

-- create "idempotency_keys" table
CREATE TABLE `idempotency_keys` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `key` text NOT NULL, `operation` text NOT NULL, `fingerprint` text NOT NULL, `done` bool NOT NULL DEFAULT (false), `status` integer NULL, `response` blob NULL, `started_at` datetime NOT NULL, `created_at` datetime NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `idempotency_keys_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- create index "idempotencykey_account_id_id" to table: "idempotency_keys"
CREATE INDEX `idempotencykey_account_id_id` ON `idempotency_keys` (`account_id`, `id`);
-- create index "idempotencykey_account_id_key" to table: "idempotency_keys"
CREATE UNIQUE INDEX `idempotencykey_account_id_key` ON `idempotency_keys` (`account_id`, `key`);
-- create index "idempotencykey_created_at" to table: "idempotency_keys"
CREATE INDEX `idempotencykey_created_at` ON `idempotency_keys` (`created_at`);

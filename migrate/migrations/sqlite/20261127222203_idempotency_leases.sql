-- disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- create "new_idempotency_keys" table
CREATE TABLE `new_idempotency_keys` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `key` text NOT NULL, `operation` text NOT NULL, `fingerprint` text NOT NULL, `done` bool NOT NULL DEFAULT (false), `status` integer NULL, `response` blob NULL, `started_at` datetime NOT NULL, `holder` text NOT NULL DEFAULT (''), `lease_until` datetime NULL, `created_at` datetime NOT NULL, `account_id` integer NOT NULL, CONSTRAINT `idempotency_keys_accounts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`) ON DELETE RESTRICT);
-- copy rows from old table "idempotency_keys" to new temporary table "new_idempotency_keys"
INSERT INTO `new_idempotency_keys` (`id`, `key`, `operation`, `fingerprint`, `done`, `status`, `response`, `started_at`, `created_at`, `account_id`) SELECT `id`, `key`, `operation`, `fingerprint`, `done`, `status`, `response`, `started_at`, `created_at`, `account_id` FROM `idempotency_keys`;
-- drop "idempotency_keys" table after copying rows
DROP TABLE `idempotency_keys`;
-- rename temporary table "new_idempotency_keys" to "idempotency_keys"
ALTER TABLE `new_idempotency_keys` RENAME TO `idempotency_keys`;
-- create index "idempotencykey_account_id_id" to table: "idempotency_keys"
CREATE INDEX `idempotencykey_account_id_id` ON `idempotency_keys` (`account_id`, `id`);
-- create index "idempotencykey_account_id_key" to table: "idempotency_keys"
CREATE UNIQUE INDEX `idempotencykey_account_id_key` ON `idempotency_keys` (`account_id`, `key`);
-- create index "idempotencykey_created_at" to table: "idempotency_keys"
CREATE INDEX `idempotencykey_created_at` ON `idempotency_keys` (`created_at`);
-- enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;

-- create "recovery_codes" table
CREATE TABLE `recovery_codes` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `code_hash` text NOT NULL, `created_at` datetime NOT NULL, `used_at` datetime NULL, `organization_id` integer NOT NULL, `user_id` integer NOT NULL, CONSTRAINT `recovery_codes_organizations_organization` FOREIGN KEY (`organization_id`) REFERENCES `organizations` (`id`) ON DELETE CASCADE, CONSTRAINT `recovery_codes_users_user` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE CASCADE);
-- create index "recovery_codes_code_hash_key" to table: "recovery_codes"
CREATE UNIQUE INDEX `recovery_codes_code_hash_key` ON `recovery_codes` (`code_hash`);
-- create index "recoverycode_user_id" to table: "recovery_codes"
CREATE INDEX `recoverycode_user_id` ON `recovery_codes` (`user_id`);

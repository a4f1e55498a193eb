-- create "import_checks" table
CREATE TABLE `import_checks` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `environment` text NOT NULL, `list` text NOT NULL, `format` text NOT NULL, `file_name` text NOT NULL DEFAULT (''), `sha256` text NOT NULL, `content` blob NOT NULL, `created_at` datetime NOT NULL, `expires_at` datetime NOT NULL, `organization_id` integer NOT NULL, `user_id` integer NOT NULL, CONSTRAINT `import_checks_organizations_organization` FOREIGN KEY (`organization_id`) REFERENCES `organizations` (`id`) ON DELETE CASCADE, CONSTRAINT `import_checks_users_user` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE CASCADE);
-- create index "importcheck_organization_id_user_id" to table: "import_checks"
CREATE INDEX `importcheck_organization_id_user_id` ON `import_checks` (`organization_id`, `user_id`);
-- create index "importcheck_expires_at" to table: "import_checks"
CREATE INDEX `importcheck_expires_at` ON `import_checks` (`expires_at`);

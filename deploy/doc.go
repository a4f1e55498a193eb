// Package deploy is Larder's deployment kit: systemd units, the settings
// they read, HAProxy and PgBouncer configurations and a Containerfile (see
// docs/operators.md, "Several processes"). Its tests keep the files true to
// the binary: every flag and variable they use exists, HAProxy accepts its
// configuration, PgBouncer's pools fit the servers, and a database dumped
// and restored as "Backups and restore" says serves again.
package deploy

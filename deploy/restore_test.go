package deploy

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"larder.dev/larder/ent/organization"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// What "Backups and restore" says works: a PostgreSQL database dumped with
// pg_dump -Fc and restored with pg_restore into a new database, or a SQLite
// file copied by SQLite's online backup while its server has it open, needs
// no migration, holds the organization, its seeded catalog and its key, and
// serves them: /readyz ready, the key answered.
func TestBackupAndRestore(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			var src, dst string
			if b == dbtest.Postgres {
				for _, tool := range []string{"pg_dump", "pg_restore"} {
					if _, err := exec.LookPath(tool); err != nil {
						t.Skipf("%s is not installed: no PostgreSQL backup to test", tool)
					}
				}
				src = dbtest.Scratch(t, "backup")
			} else {
				if _, err := exec.LookPath("sqlite3"); err != nil {
					t.Skip("sqlite3 is not installed: no online backup to test")
				}
				src = "sqlite://" + filepath.Join(t.TempDir(), "larder.db")
			}
			st, _ := openMigrated(t, src, 0)
			org := dbtest.NewSeededOrg(t, st)
			key := org.Key(t, policy.Live, "read-all")
			products := countProducts(t, st, org)

			if b == dbtest.Postgres {
				dump := filepath.Join(t.TempDir(), "larder.dump")
				run(t, "pg_dump", "-Fc", "-f", dump, "--dbname", src)
				dst = dbtest.Scratch(t, "restore")
				run(t, "pg_restore", "--no-owner", "--exit-on-error", "--dbname", dst, dump)
			} else {
				// The server (st) has the file open meanwhile.
				path := filepath.Join(t.TempDir(), "larder-backup.db")
				run(t, "sqlite3", strings.TrimPrefix(src, "sqlite://"), ".backup "+path)
				dst = "sqlite://" + path
			}

			rst, applied := openMigrated(t, dst, 0)
			if len(applied) != 0 {
				t.Fatalf("the restored database needed migrations %v", applied)
			}
			// System viewer: organizations are system-only; the test reads the restored one by id.
			got, err := rst.Client.Organization.Query().Where(organization.ID(org.Org.ID)).Only(policy.System(org.Ctx(policy.Live)))
			if err != nil || got.Name != org.Org.Name {
				t.Fatalf("restored organization: %v %v", got, err)
			}
			if n := countProducts(t, rst, org); n != products || n == 0 {
				t.Fatalf("restored %d products of %d", n, products)
			}
			base := serveStore(t, rst, config.Defaults())
			if s := get(t, base, "/readyz", ""); s != 200 {
				t.Fatalf("/readyz on the restored database: %d", s)
			}
			if s := get(t, base, "/v1/organization", key); s != 200 {
				t.Fatalf("GET /v1/organization with the key made before the backup: %d", s)
			}
			if s := get(t, base, "/v1/organization", key+"x"); s != 401 {
				t.Fatalf("a wrong key: %d", s)
			}
		})
	}
}

// countProducts counts the products of org's test account.
func countProducts(t *testing.T, st *store.Store, org *dbtest.Org) int {
	t.Helper()
	n, err := st.Client.Product.Query().Count(org.Ctx(policy.Test))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

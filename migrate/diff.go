package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	atlas "ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/schema"

	entmigrate "larder.dev/larder/ent/migrate"
)

// Diff writes the migration NAME of both dialects into root (postgres/ and
// sqlite/ below it): the changes from replaying the existing files to the
// compiled ent schema. Both files share one version. devURL is a PostgreSQL
// database the diff may drop and recreate; its name must end in _dev.
// It reports whether a migration was written (false: nothing changed).
func Diff(ctx context.Context, root, name, devURL string) (bool, error) {
	version := time.Now().UTC().Format("20060102150405")
	wrote := false
	for _, dia := range []string{dialect.Postgres, dialect.SQLite} {
		dir, err := atlas.NewLocalDir(filepath.Join(root, Subdir(dia)))
		if err != nil {
			return false, err
		}
		changed, err := diffInto(ctx, dir, dia, devURL, version, name)
		if err != nil {
			return false, fmt.Errorf("%s: %w", dia, err)
		}
		wrote = wrote || changed
	}
	return wrote, nil
}

// Pending reports the statements a diff of the embedded directory of dia would
// write: empty when the committed migrations match the schema.
func Pending(ctx context.Context, dia, devURL string) (string, error) {
	dir, err := Embedded(dia)
	if err != nil {
		return "", err
	}
	before := map[string]bool{}
	files, err := dir.Files()
	if err != nil {
		return "", err
	}
	for _, f := range files {
		before[f.Name()] = true
	}
	if _, err := diffInto(ctx, dir, dia, devURL, "99999999999999", "pending"); err != nil {
		return "", err
	}
	files, err = dir.Files()
	if err != nil {
		return "", err
	}
	var out []string
	for _, f := range files {
		if !before[f.Name()] {
			out = append(out, string(f.Bytes()))
		}
	}
	return strings.Join(out, "\n"), nil
}

// diffInto writes the next migration of dir, returning whether it wrote one.
func diffInto(ctx context.Context, dir atlas.Dir, dia, devURL, version, name string) (bool, error) {
	db, err := devDatabase(ctx, dia, devURL)
	if err != nil {
		return false, err
	}
	defer db.Close()
	f, err := atlas.NewTemplateFormatter(
		template.Must(template.New("name").Parse(version+"{{ with .Name }}_{{ . }}{{ end }}.sql")),
		template.Must(template.New("content").Parse(`{{ range .Changes }}{{ with .Comment }}-- {{ . }}
{{ end }}{{ .Cmd }};
{{ end }}`)),
	)
	if err != nil {
		return false, err
	}
	opts := []schema.MigrateOption{
		schema.WithDir(dir),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dia),
		schema.WithFormatter(f),
		schema.WithDropColumn(true),
		schema.WithDropIndex(true),
		schema.WithErrNoPlan(true),
	}
	opts = append(opts, schema.WithDiffHook(accountKeys(dia)))
	if dia == dialect.Postgres {
		opts = append(opts, schema.WithDiffHook(partitioned))
	}
	err = entmigrate.NewSchema(entsql.OpenDB(dia, db)).NamedDiff(ctx, name, opts...)
	if errors.Is(err, atlas.ErrNoPlan) {
		return false, nil
	}
	return err == nil, err
}

// devDatabase opens an empty database to replay migrations on: a private
// in-memory SQLite, or the PostgreSQL database of devURL, recreated.
func devDatabase(ctx context.Context, dia, devURL string) (*sql.DB, error) {
	// Direct SQL: `migrate diff` drops and creates its scratch database (the name must end in _dev).
	if dia == dialect.SQLite {
		db, err := sql.Open("sqlite", "file:larder_dev?mode=memory&_pragma=foreign_keys(1)")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1) // one connection: one private in-memory database
		return db, nil
	}
	u, err := url.Parse(devURL)
	if err != nil {
		return nil, fmt.Errorf("dev database URL: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if !strings.HasSuffix(name, "_dev") {
		return nil, fmt.Errorf("dev database %q: its name must end in _dev, because the diff drops and recreates it", name)
	}
	admin := *u
	admin.Path = "/postgres"
	adb, err := sql.Open("postgres", admin.String())
	if err != nil {
		return nil, err
	}
	defer adb.Close()
	if _, err := adb.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+name+`"`); err != nil {
		return nil, fmt.Errorf("recreate dev database: %w", err)
	}
	if _, err := adb.ExecContext(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		return nil, fmt.Errorf("recreate dev database: %w", err)
	}
	return sql.Open("postgres", devURL)
}

// Hash rewrites atlas.sum of both dialects under root after a hand-written
// migration was added.
func Hash(root string) error {
	for _, dia := range []string{dialect.Postgres, dialect.SQLite} {
		d, err := atlas.NewLocalDir(filepath.Join(root, Subdir(dia)))
		if err != nil {
			return err
		}
		sum, err := d.Checksum()
		if err != nil {
			return err
		}
		if err := atlas.WriteSumFile(d, sum); err != nil {
			return err
		}
	}
	return nil
}

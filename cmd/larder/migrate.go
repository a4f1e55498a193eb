package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/migrate"
)

func migrateApply(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("migrate")
	if err != nil {
		return err
	}
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	e.creates = true
	st, applied, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	human := "database is up to date"
	if len(applied) > 0 {
		human = "applied " + strings.Join(applied, ", ")
	}
	return e.print(map[string]any{"applied": applied}, human)
}

func dirFlag(fs *flag.FlagSet) *string {
	return fs.String("dir", "migrate/migrations", "migration directories root (postgres/ and sqlite/ below it)")
}

func migrateDiff(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("migrate diff", config.Options{"dev-database"})
	if err != nil {
		return err
	}
	dir := dirFlag(fs)
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("migrate diff needs exactly one NAME, e.g. larder migrate diff add_lot_notes")
	}
	wrote, err := migrate.Diff(ctx, *dir, pos[0], e.cfg.DevDatabase)
	if err != nil {
		return err
	}
	human := "no changes: the migrations match the schema"
	if wrote {
		human = "wrote migration " + pos[0] + " for postgres and sqlite under " + *dir + "; rebuild to embed it"
	}
	return e.print(map[string]any{"written": wrote, "name": pos[0]}, human)
}

func migrateHash(_ context.Context, e *env, args []string) error {
	fs, err := e.flags("migrate hash")
	if err != nil {
		return err
	}
	dir := dirFlag(fs)
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if err := migrate.Hash(*dir); err != nil {
		return err
	}
	return e.print(map[string]any{"hashed": *dir}, "rewrote atlas.sum under "+*dir)
}

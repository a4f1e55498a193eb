package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/migrate"
)

func migrateApply(ctx context.Context, e *env, args []string) error {
	c := e.command("migrate", needs{store: true, creates: true})
	return c.run(ctx, args, nil, func(context.Context, *store.Store) error {
		human := "database is up to date"
		if len(c.applied) > 0 {
			human = "applied " + strings.Join(c.applied, ", ")
		}
		return e.print(map[string]any{"applied": c.applied}, human)
	})
}

func dirFlag(fs *flag.FlagSet) *string {
	return fs.String("dir", "migrate/migrations", "migration directories root (postgres/ and sqlite/ below it)")
}

func migrateDiff(ctx context.Context, e *env, args []string) error {
	c := e.command("migrate diff", needs{opts: []config.Options{{"dev-database"}}})
	dir := dirFlag(c.FlagSet)
	return c.run(ctx, args, func() error {
		if len(c.pos) != 1 {
			return fmt.Errorf("migrate diff needs exactly one NAME, e.g. larder migrate diff add_lot_notes")
		}
		return nil
	}, func(ctx context.Context, _ *store.Store) error {
		name := c.pos[0]
		wrote, err := migrate.Diff(ctx, *dir, name, e.cfg.DevDatabase)
		if err != nil {
			return err
		}
		human := "no changes: the migrations match the schema"
		if wrote {
			human = "wrote migration " + name + " for postgres and sqlite under " + *dir + "; rebuild to embed it"
		}
		return e.print(map[string]any{"written": wrote, "name": name}, human)
	})
}

func migrateHash(ctx context.Context, e *env, args []string) error {
	c := e.command("migrate hash", needs{})
	dir := dirFlag(c.FlagSet)
	return c.run(ctx, args, nil, func(context.Context, *store.Store) error {
		if err := migrate.Hash(*dir); err != nil {
			return err
		}
		return e.print(map[string]any{"hashed": *dir}, "rewrote atlas.sum under "+*dir)
	})
}

func migrateDistribute(ctx context.Context, e *env, args []string) error {
	c := e.command("migrate distribute", needs{store: true})
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		if st.Dialect != dialect.Postgres {
			return fmt.Errorf("migrate distribute places tables on a Citus cluster: --database must be its PostgreSQL coordinator")
		}
		p, err := migrate.Distribute(ctx, st.DB)
		if err != nil {
			return err
		}
		return e.print(p, fmt.Sprintf("%d reference tables, %d distributed by account_id, %d local; %d foreign keys added again",
			len(p.Reference), len(p.Distributed), len(p.Local), p.ForeignKeys))
	})
}

package main

import (
	"context"

	"larder.dev/larder/internal/generators/access"
	"larder.dev/larder/internal/platform/store"
)

// accessReport prints who can read or change what (docs/ACCESS.md) from this
// binary: Markdown, or with --json one object to diff two releases.
func accessReport(ctx context.Context, e *env, args []string) error {
	return e.command("access-report", needs{}).run(ctx, args, nil, func(context.Context, *store.Store) error {
		r, err := access.Build()
		if err != nil {
			return err
		}
		if e.json {
			return e.print(r, "")
		}
		return r.Markdown(e.stdout)
	})
}

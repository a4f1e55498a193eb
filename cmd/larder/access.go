package main

import (
	"context"

	"larder.dev/larder/internal/generators/access"
)

// accessReport prints who can read or change what (docs/ACCESS.md) from this
// binary: Markdown, or with --json one object to diff two releases.
func accessReport(_ context.Context, e *env, args []string) error {
	fs, err := e.flags("access-report")
	if err != nil {
		return err
	}
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	r, err := access.Build()
	if err != nil {
		return err
	}
	if e.json {
		return e.print(r, "")
	}
	return r.Markdown(e.stdout)
}

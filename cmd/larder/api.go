package main

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"larder.dev/larder/internal/generators/apicompat"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/openapi"
)

func init() {
	commands = append(commands,
		command{"api diff", "api diff [--against VERSION] [--description FILE]  what the description changes against every release of version 1 (or one): each break and each addition on a line; exits 1 on a break", apiDiff},
		command{"api release", "api release VERSION [--root DIR]  keep the checkout's description as release VERSION (openapi/releases/VERSION.json), set its info.version, write docs/changelog.md; refused on a break", apiRelease},
		command{"api changelog", "api changelog  print docs/changelog.md as the releases make it", apiChangelog},
	)
}

// apiDiff compares this binary's description, or --description, with the
// releases.
func apiDiff(ctx context.Context, e *env, args []string) error {
	c := e.command("api diff", needs{})
	against := c.String("against", "", "compare with this release only (1.1, …)")
	file := c.String("description", "", "compare this description file instead of the one this binary serves")
	return c.run(ctx, args, nil, func(context.Context, *store.Store) error {
		doc := openapi.Document
		if *file != "" {
			b, err := os.ReadFile(*file)
			if err != nil {
				return err
			}
			doc = b
		}
		var versions []string
		if *against != "" {
			versions = []string{*against}
		}
		reports, err := apicompat.Gate(doc, versions...)
		if err != nil {
			return err
		}
		breaks := 0
		for _, r := range reports {
			breaks += len(r.Breaks)
		}
		if e.json {
			if err := e.print(map[string]any{"reports": reports, "breaks": breaks}, ""); err != nil {
				return err
			}
		} else {
			var out bytes.Buffer
			apicompat.Print(&out, reports)
			if _, err := e.stdout.Write(out.Bytes()); err != nil {
				return err
			}
		}
		if breaks > 0 {
			return fmt.Errorf("%d breaking changes: version 1 only grows (docs/developers.md, \"Version 1 only grows\")", breaks)
		}
		return nil
	})
}

// apiRelease keeps the checkout's current description as a release.
func apiRelease(ctx context.Context, e *env, args []string) error {
	c := e.command("api release", needs{})
	root := c.String("root", ".", "the module's root (the checkout)")
	return c.run(ctx, args, nil, func(context.Context, *store.Store) error {
		if len(c.pos) != 1 {
			return fmt.Errorf("api release takes one VERSION (1.3)")
		}
		v := c.pos[0]
		if err := apicompat.Release(*root, v); err != nil {
			return err
		}
		return e.print(map[string]any{"released": v}, "released "+v+": openapi/releases/"+v+".json, docs/changelog.md; run go generate ./... (nothing changes) and commit")
	})
}

// apiChangelog prints the changelog of the releases this binary holds.
func apiChangelog(ctx context.Context, e *env, args []string) error {
	return e.command("api changelog", needs{}).run(ctx, args, nil, func(context.Context, *store.Store) error {
		b, err := apicompat.Changelog()
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(b)
		return err
	})
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/modules/reflist"
	"larder.dev/larder/internal/platform/store"
)

var listUsage = "--list " + strings.Join(reflist.Names(), "|")

// input opens the file an import reads; "-" is standard input.
func input(name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	return os.Open(name)
}

// output opens the file an export writes; "-" is the command's standard
// output.
func (e *env) output(name string) (io.WriteCloser, error) {
	if name == "-" {
		return nopWriteCloser{e.stdout}, nil
	}
	return os.Create(name)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// importer imports a file into the account of ctx, returning the --json
// object and the human line.
type importer func(context.Context, *env, *store.Store, io.Reader, catalog.Format) (any, string, error)

// exporter writes the records of the account of ctx and counts them.
type exporter func(context.Context, *store.Store, io.Writer, catalog.Format) (int, error)

// work is a command's own flags: added to the flag set, they return what,
// once parsed, makes the command's work (or refuses them).
type work[T any] func(*flag.FlagSet) func() (T, error)

// always is work without flags of its own.
func always[T any](w T) work[T] {
	return func(*flag.FlagSet) func() (T, error) { return func() (T, error) { return w, nil } }
}

// importCommand is a command that imports one FILE (- for standard input)
// of --format into an account. A refused file's problems are printed under
// --json.
func importCommand(name string, flags work[importer]) func(context.Context, *env, []string) error {
	return func(ctx context.Context, e *env, args []string) error {
		c := e.command(name, needs{org: inAccount})
		check := flags(c.FlagSet)
		format := c.String("format", "", "jsonl or csv (default: from the file name; .csv is CSV)")
		var do importer
		var f catalog.Format
		var in io.ReadCloser
		defer func() {
			if in != nil {
				in.Close()
			}
		}()
		return c.run(ctx, args, func() (err error) {
			if len(c.pos) != 1 {
				return fmt.Errorf("%s needs one FILE (- for standard input)", name)
			}
			if do, err = check(); err != nil {
				return err
			}
			if f, err = catalog.ParseFormat(*format, c.pos[0]); err != nil {
				return err
			}
			in, err = input(c.pos[0])
			return err
		}, func(ctx context.Context, st *store.Store) error {
			res, human, err := do(ctx, e, st, in, f)
			if err != nil {
				var fe *catalog.FileError
				if errors.As(err, &fe) && e.json {
					_ = e.print(map[string]any{"errors": fe.Problems}, "")
				}
				return err
			}
			return e.print(res, human)
		})
	}
}

// exportCommand is a command that writes records of an account in the
// import format to --out (standard output by default); what names them in
// the human line.
func exportCommand(name, what string, flags work[exporter]) func(context.Context, *env, []string) error {
	return func(ctx context.Context, e *env, args []string) error {
		c := e.command(name, needs{org: inAccount})
		check := flags(c.FlagSet)
		format := c.String("format", "", "jsonl or csv (default: from --out; jsonl on standard output)")
		out := c.String("out", "-", "file to write (- for standard output)")
		var do exporter
		var f catalog.Format
		return c.run(ctx, args, func() (err error) {
			if do, err = check(); err != nil {
				return err
			}
			f, err = catalog.ParseFormat(*format, *out)
			return err
		}, func(ctx context.Context, st *store.Store) error {
			w, err := e.output(*out)
			if err != nil {
				return err
			}
			n, err := do(ctx, st, w, f)
			if err != nil {
				w.Close()
				return err
			}
			if err := w.Close(); err != nil {
				return err
			}
			if *out == "-" {
				return nil // the file is the output
			}
			return e.print(map[string]any{"exported": n, "file": *out, "format": string(f)}, fmt.Sprintf("%d %s written to %s", n, what, *out))
		})
	}
}

// listFlag adds --list; the work it returns is build's for the list named.
func listFlag[T any](build func(*reflist.List) T) work[T] {
	return func(fs *flag.FlagSet) func() (T, error) {
		name := fs.String("list", "", "the list (required): "+strings.Join(reflist.Names(), ", "))
		return func() (T, error) {
			l, err := reflist.Find(*name)
			if err != nil {
				var none T
				return none, err
			}
			return build(l), nil
		}
	}
}

// listImport upserts the rows of a reference list by code.
var listImport = importCommand("list import", listFlag(func(l *reflist.List) importer {
	return func(ctx context.Context, _ *env, st *store.Store, in io.Reader, f catalog.Format) (any, string, error) {
		lines, perrs := l.Read(in, f)
		res, err := l.Import(ctx, st.Client, lines, perrs)
		return res, fmt.Sprintf("%s: %d created, %d updated, %d unchanged", l.Name, res.Created, res.Updated, res.Unchanged), err
	}
}))

// listExport writes a reference list in the import format.
var listExport = exportCommand("list export", "rows", listFlag(func(l *reflist.List) exporter {
	return func(ctx context.Context, st *store.Store, w io.Writer, f catalog.Format) (int, error) {
		recs, err := l.Export(ctx, st.Client)
		if err != nil {
			return 0, err
		}
		return len(recs), l.Write(w, f, recs)
	}
}))

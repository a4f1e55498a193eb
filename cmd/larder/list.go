package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"larder.dev/larder/catalog"
	"larder.dev/larder/reflist"
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

// listImport upserts the rows of a reference list by code.
func listImport(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("list import")
	if err != nil {
		return err
	}
	acct := e.accountFlags(fs)
	name := fs.String("list", "", "the list (required): "+strings.Join(reflist.Names(), ", "))
	format := fs.String("format", "", "jsonl or csv (default: from the file name; .csv is CSV)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("list import needs one FILE (- for standard input)")
	}
	l, err := reflist.Find(*name)
	if err != nil {
		return err
	}
	f, err := catalog.ParseFormat(*format, pos[0])
	if err != nil {
		return err
	}
	in, err := input(pos[0])
	if err != nil {
		return err
	}
	defer in.Close()
	lines, perrs := l.Read(in, f)
	ctx, st, err := acct.open(ctx, e, "list import")
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := l.Import(ctx, st.Client, lines, perrs)
	if err != nil {
		var fe *catalog.FileError
		if errors.As(err, &fe) && e.json {
			_ = e.print(map[string]any{"errors": fe.Problems}, "")
		}
		return err
	}
	return e.print(res, fmt.Sprintf("%s: %d created, %d updated, %d unchanged", l.Name, res.Created, res.Updated, res.Unchanged))
}

// listExport writes a reference list in the import format.
func listExport(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("list export")
	if err != nil {
		return err
	}
	acct := e.accountFlags(fs)
	name := fs.String("list", "", "the list (required): "+strings.Join(reflist.Names(), ", "))
	format := fs.String("format", "", "jsonl or csv (default: from --out; jsonl on standard output)")
	out := fs.String("out", "-", "file to write (- for standard output)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	l, err := reflist.Find(*name)
	if err != nil {
		return err
	}
	f, err := catalog.ParseFormat(*format, *out)
	if err != nil {
		return err
	}
	ctx, st, err := acct.open(ctx, e, "list export")
	if err != nil {
		return err
	}
	defer st.Close()
	recs, err := l.Export(ctx, st.Client)
	if err != nil {
		return err
	}
	w, err := e.output(*out)
	if err != nil {
		return err
	}
	if err := l.Write(w, f, recs); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if *out == "-" {
		return nil // the file is the output
	}
	return e.print(map[string]any{"exported": len(recs), "file": *out, "format": string(f), "list": l.Name},
		fmt.Sprintf("%d %s written to %s", len(recs), l.Name, *out))
}

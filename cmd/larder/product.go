package main

import (
	"context"
	"errors"
	"fmt"

	"larder.dev/larder/catalog"
	"larder.dev/larder/policy"
	"larder.dev/larder/store"
	"larder.dev/larder/tenancy"
)

// accountFlags binds --org and --env, which name the account an app action works on.
type accountFlags struct {
	org *int
	env *string
}

func (e *env) accountFlags(fs interface {
	Int(string, int, string) *int
	String(string, string, string) *string
}) accountFlags {
	return accountFlags{
		org: fs.Int("org", 0, "organization id (required)"),
		env: fs.String("env", "", "live or test (required)"),
	}
}

// open opens the database and returns an app viewer context of the account.
func (a accountFlags) open(ctx context.Context, e *env, command string) (context.Context, *store.Store, error) {
	if *a.org == 0 || *a.env == "" {
		return nil, nil, fmt.Errorf("%s needs --org and --env", command)
	}
	environment := policy.Environment(*a.env)
	if environment != policy.Live && environment != policy.Test {
		return nil, nil, fmt.Errorf("--env must be live or test, not %q", *a.env)
	}
	st, _, err := e.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	acct, err := tenancy.Account(policy.System(ctx), st.Client, *a.org, environment)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return policy.App(ctx, acct.ID, environment), st, nil
}

func productImport(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("product import")
	if err != nil {
		return err
	}
	acct := e.accountFlags(fs)
	format := fs.String("format", "", "jsonl or csv (default: from the file name; .csv is CSV)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("product import needs one FILE (- for standard input)")
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
	lines, perrs := catalog.Read(in, f)
	ctx, st, err := acct.open(ctx, e, "product import")
	if err != nil {
		return err
	}
	defer st.Close()
	var bar *progress
	if len(lines) > progressAbove {
		bar = newProgress(e.stderr, "importing products")
	}
	res, err := importLines(ctx, st, lines, perrs, bar)
	if err != nil {
		var fe *catalog.FileError
		if errors.As(err, &fe) && e.json {
			_ = e.print(map[string]any{"errors": fe.Problems}, "")
		}
		return err
	}
	return e.print(res, fmt.Sprintf("%d created, %d updated, %d unchanged", res.Created, res.Updated, res.Unchanged))
}

// importLines reports syntax problems together with validation problems.
func importLines(ctx context.Context, st *store.Store, lines []catalog.Line, perrs []catalog.LineError, bar *progress) (catalog.ImportResult, error) {
	var report catalog.Progress
	if bar != nil {
		report = bar.set
		defer bar.done()
	}
	res, err := catalog.Import(ctx, st.Client, lines, report)
	if len(perrs) == 0 {
		return res, err
	}
	all := append([]catalog.LineError(nil), perrs...)
	var fe *catalog.FileError
	if errors.As(err, &fe) {
		all = append(all, fe.Problems...)
	} else if err == nil {
		return catalog.ImportResult{}, fmt.Errorf("import: syntax problems were found after the import began")
	}
	sortProblems(all)
	return catalog.ImportResult{}, &catalog.FileError{Problems: all}
}

func productExport(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("product export")
	if err != nil {
		return err
	}
	acct := e.accountFlags(fs)
	format := fs.String("format", "", "jsonl or csv (default: from --out; jsonl on standard output)")
	out := fs.String("out", "-", "file to write (- for standard output)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	f, err := catalog.ParseFormat(*format, *out)
	if err != nil {
		return err
	}
	ctx, st, err := acct.open(ctx, e, "product export")
	if err != nil {
		return err
	}
	defer st.Close()
	w, err := e.output(*out)
	if err != nil {
		return err
	}
	cw, err := catalog.NewWriter(w, f)
	if err != nil {
		w.Close()
		return err
	}
	n, err := catalog.Export(ctx, st.Client, cw)
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
	return e.print(map[string]any{"exported": n, "file": *out, "format": string(f)}, fmt.Sprintf("%d products written to %s", n, *out))
}

func productDelete(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("product delete")
	if err != nil {
		return err
	}
	acct := e.accountFlags(fs)
	code := fs.String("code", "", "product_code of the product (required)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *code == "" {
		return fmt.Errorf("product delete needs --code")
	}
	ctx, st, err := acct.open(ctx, e, "product delete")
	if err != nil {
		return err
	}
	defer st.Close()
	p, err := catalog.Delete(ctx, st.Client, *code)
	if err != nil {
		return err
	}
	return e.print(map[string]any{"id": p.ID, "product_code": *code, "is_deleted": true},
		fmt.Sprintf("product %d (%s) deleted", p.ID, *code))
}

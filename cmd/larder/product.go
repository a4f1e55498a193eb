package main

import (
	"context"
	"fmt"
	"io"

	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/policy"
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
	// System viewer: an app command finds the account it acts for before it has an account context.
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

var productImport = importCommand("product import", always[importer](func(ctx context.Context, e *env, st *store.Store, in io.Reader, f catalog.Format) (any, string, error) {
	lines, perrs := catalog.Read(in, f)
	var bar *progress
	if len(lines) > progressAbove {
		bar = newProgress(e.stderr, "importing products")
	}
	res, err := importLines(ctx, st, lines, perrs, bar)
	return res, fmt.Sprintf("%d created, %d updated, %d unchanged", res.Created, res.Updated, res.Unchanged), err
}))

// importLines imports the records of a file; when some of its lines did
// not parse, it imports nothing and reports those problems together with
// the records' own.
func importLines(ctx context.Context, st *store.Store, lines []catalog.Line, perrs []catalog.LineError, bar *progress) (catalog.ImportResult, error) {
	if len(perrs) > 0 {
		problems, err := catalog.Check(ctx, st.Client, lines)
		if err != nil {
			return catalog.ImportResult{}, err
		}
		all := append(append([]catalog.LineError(nil), perrs...), problems...)
		sortProblems(all)
		return catalog.ImportResult{}, &catalog.FileError{Problems: all}
	}
	var report catalog.Progress
	if bar != nil {
		report = bar.set
		defer bar.done()
	}
	return catalog.Import(ctx, st.Client, lines, report)
}

var productExport = exportCommand("product export", "products", always[exporter](func(ctx context.Context, st *store.Store, w io.Writer, f catalog.Format) (int, error) {
	cw, err := catalog.NewWriter(w, f)
	if err != nil {
		return 0, err
	}
	return catalog.Export(ctx, st.Client, cw)
}))

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

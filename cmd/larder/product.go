package main

import (
	"context"
	"fmt"
	"io"

	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/platform/store"
)

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
	c := e.command("product delete", needs{org: inAccount, required: []string{"code"}})
	code := c.String("code", "", "product_code of the product (required)")
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		p, err := catalog.Delete(ctx, st.Client, *code)
		if err != nil {
			return err
		}
		return e.print(map[string]any{"id": p.ID, "product_code": *code, "is_deleted": true},
			fmt.Sprintf("product %d (%s) deleted", p.ID, *code))
	})
}

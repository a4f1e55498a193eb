package ent_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/listing"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A list a caller shaped (Shaped), whose predicates are all known, is read
// from a statement compiled once per shape: it sends the very statement,
// arguments included, that ent builds for the same list, and reads the same
// rows, total and sort keys. The arguments are the list's own (another
// filter value, another account); a list with a predicate that is not known
// is read as ent builds it, and compiles nothing.
func TestListCompiled(t *testing.T) {
	needCompiledReads(t)
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		c, statements := observed(t, st)
		mine, theirs := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		for i, name := range []string{"b", "a", "d", "c", "e"} {
			ref := tag.RefTypePRODUCT
			if i%2 == 1 {
				ref = tag.RefTypeCUSTOMER
			}
			for _, org := range []*dbtest.Org{mine, theirs} {
				if _, err := st.Client.Tag.Create().SetName(fmt.Sprint(name, org.Org.ID)).SetRefType(ref).Save(hooks.WithoutEvents(org.Ctx(policy.Test))); err != nil {
					t.Fatal(err)
				}
			}
		}
		known := &ent.Known{Make: func(v any) func(*entsql.Selector) { return entsql.FieldEQ(tag.FieldRefType, v) }}
		sorts := map[string]listing.Sort{"id": listing.Column(tag.FieldID, listing.Int), "name": listing.Column(tag.FieldName, listing.Text)}
		type result struct {
			Names []string
			Total int
			Keys  []any
		}
		// list lists the tags of ref in ctx's account as a list handler
		// does, Shaped or not, and unknown adds a predicate that is not
		// known.
		list := func(ctx context.Context, sort, ref string, shaped, unknown bool) (result, []string) {
			t.Helper()
			page, err := listing.NewPage(listing.Request{Limit: 2, Sort: sort, List: "tags", Filters: func() string { return ref }}, sorts)
			if err != nil {
				t.Fatal(err)
			}
			var out result
			sent, err := statements(func() error {
				q := c.Tag.Query()
				if unknown {
					q.Where(tag.NameNEQ("zz"))
				}
				q.WhereKnown(known, ref)
				var total ent.PageTotal
				var keys ent.PageKeys
				ctx := keys.Within(total.Within(ctx))
				q.Modify(keys.Columns(page.Values), total.Column, page.After)
				if shaped {
					q.Shaped("tags " + page.Applied)
				}
				for _, o := range page.Order {
					q.Order(tag.OrderOption(o))
				}
				q.Limit(page.Fetch())
				q.Select(tag.FieldName)
				rows, err := q.List(ctx)
				if err != nil {
					return err
				}
				for _, r := range rows {
					out.Names = append(out.Names, r.Name)
				}
				out.Total, _ = total.Count()
				out.Keys = keys.Row(len(rows) - 1)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return out, sent
		}
		mineCtx, theirCtx := mine.Ctx(policy.Test), theirs.Ctx(policy.Test)
		before, failedBefore := ent.CompiledLists("tag")
		for _, sort := range []string{"", "name:desc"} {
			for _, ref := range []string{"PRODUCT", "CUSTOMER"} {
				for _, ctx := range []context.Context{mineCtx, theirCtx} {
					want, byEnt := list(ctx, sort, ref, false, false)
					got, byShape := list(ctx, sort, ref, true, false)
					name := fmt.Sprintf("sort %q, %s, account %d", sort, ref, policy.FromContext(ctx).AccountID)
					if len(byShape) != 1 || !slices.Equal(byShape, byEnt) {
						t.Errorf("%s: the shaped list sent %q; ent sent %q", name, byShape, byEnt)
					}
					if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
						t.Errorf("%s: the shaped list differs from ent's (-ent +shaped):\n%s", name, d)
					}
					wantTotal := 3
					if ref == "CUSTOMER" {
						wantTotal = 2
					}
					if got.Total != wantTotal || len(got.Names) != 2 {
						t.Errorf("%s: %d rows of %d; want 2 of %d", name, len(got.Names), got.Total, wantTotal)
					}
					if sort != "" && len(got.Keys) != 1 {
						t.Errorf("%s: the last row's sort keys %v; want its name", name, got.Keys)
					}
				}
			}
		}
		compiled, failed := ent.CompiledLists("tag")
		if len(compiled) != len(before)+2 || failed != failedBefore {
			t.Fatalf("compiled %d statements (%d failed) for two orders; want 2: %q", len(compiled)-len(before), failed-failedBefore, compiled)
		}

		// A predicate that is not known: read as ent builds it, nothing
		// compiled.
		want, byEnt := list(mineCtx, "", "PRODUCT", false, true)
		got, byShape := list(mineCtx, "", "PRODUCT", true, true)
		if !slices.Equal(byShape, byEnt) || !cmp.Equal(want, got) || len(got.Names) != 2 {
			t.Errorf("a predicate that is not known: %v after %q; ent read %v after %q", got, byShape, want, byEnt)
		}
		if after, _ := ent.CompiledLists("tag"); len(after) != len(compiled) {
			t.Errorf("a list with a predicate that is not known compiled %d statements", len(after)-len(compiled))
		}
	})
}

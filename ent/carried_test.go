package ent_test

import (
	"fmt"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/platform/fastpath/trust"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A carried column rides on the queries that read rows while its carrier
// wants it (a trust.Check: until a row has carried it): its value comes back
// with the rows beside a page's total, the rows keep their own columns, NULL
// reads as false, a query without rows leaves it wanted by the next, a count
// never selects it, and once a row has carried it no later query selects it.
func TestCarried(t *testing.T) {
	dbtest.RunFast(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Test)
		err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			for i := range 3 {
				if _, err := tx.Tag.Create().SetName(fmt.Sprintf("k%d", i)).SetRefType(tag.RefTypePRODUCT).Save(ctx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		c, statements := observed(t, st)
		holds := testHolds(st.Dialect)
		for _, tc := range []struct {
			name       string
			v, w       any
			want, seen bool
		}{
			{"holds", 7, 7, true, true},
			{"changed", 7, 8, false, true},
			{"gone", nil, 7, false, true},
		} {
			check := trust.New(holds, []any{tc.v, tc.w})
			var total ent.PageTotal
			q := c.Tag.Query().Where(tag.RefTypeEQ(tag.RefTypePRODUCT)).Order(tag.ByID()).Limit(2)
			q.Modify(total.Column)
			rows, err := q.All(ent.Carry(total.Within(ctx), check))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if len(rows) != 2 || rows[0].Name != "k0" || rows[1].Name != "k1" || rows[0].RefType != tag.RefTypePRODUCT {
				t.Errorf("%s: rows %v", tc.name, rows)
			}
			if n, ok := total.Count(); !ok || n != 3 {
				t.Errorf("%s: total %d %v, want 3", tc.name, n, ok)
			}
			if got, seen := check.Seen(); got != tc.want || seen != tc.seen {
				t.Errorf("%s: Seen() = %v, %v; want %v, %v", tc.name, got, seen, tc.want, tc.seen)
			}
		}

		check := trust.New(holds, []any{1, 1})
		cctx := ent.Carry(ctx, check)
		if _, err := c.Tag.Query().Where(tag.Name("none")).All(cctx); err != nil {
			t.Fatal(err)
		}
		if _, seen := check.Seen(); seen {
			t.Error("a query without rows saw the check")
		}
		if n, err := c.Tag.Query().Count(cctx); err != nil || n != 3 {
			t.Fatalf("a count under a pending check: %d, %v", n, err)
		}
		sent, err := statements(func() error {
			for range 2 {
				if _, err := c.Tag.Query().Where(tag.Name("k2")).Only(cctx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, seen := check.Seen(); !got || !seen {
			t.Errorf("the next query with rows: Seen() = %v, %v", got, seen)
		}
		if len(sent) != 2 || !strings.Contains(sent[0], "test_check") || strings.Contains(sent[1], "test_check") {
			t.Errorf("the column was selected by %q; want the first query only", sent)
		}
	})
}

// testHolds writes "(SELECT v) = w" of a check's arguments v and w, as
// arguments, so that the check's own arguments are numbered among the
// query's, under the alias test_check.
func testHolds(d string) *trust.Expr {
	return &trust.Expr{Column: "test_check", Write: func(b *entsql.Builder, args []any) {
		b.WriteString("(SELECT ")
		if d == dialect.Postgres {
			b.Arg(args[0]).WriteString("::int")
		} else {
			b.Arg(args[0])
		}
		b.WriteString(") = ").Arg(args[1])
	}}
}

package ent_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/account"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A page read with a PageTotal carries the count of every row its filters
// match, the privacy policy's account among them, in its own statement: the
// count honours every predicate and its arguments (numbered after the
// subquery's on PostgreSQL), the rows keep their columns, the edges a page
// loads are untouched, and a page with no rows reports no total.
func TestPageTotal(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		c, observe := observed(t, st)
		mine, theirs := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		ctx := mine.Ctx(policy.Test)
		for _, o := range []struct {
			org     *dbtest.Org
			product int
		}{{mine, 5}, {theirs, 4}} {
			err := ent.RunInTx(o.org.Ctx(policy.Test), st.Client, func(tx *ent.Tx) error {
				for i := range o.product + 3 {
					rt := tag.RefTypePRODUCT
					if i >= o.product {
						rt = tag.RefTypeCUSTOMER
					}
					if _, err := tx.Tag.Create().SetName(fmt.Sprintf("t%d", i)).SetRefType(rt).Save(o.org.Ctx(policy.Test)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}

		read := ctx
		page := func(offset int, ps ...func(*ent.TagQuery)) ([]*ent.Tag, int, bool, []string) {
			t.Helper()
			var total ent.PageTotal
			q := c.Tag.Query().Where(tag.RefTypeEQ(tag.RefTypePRODUCT))
			for _, p := range ps {
				p(q)
			}
			q.Modify(total.Column)
			q.Order(tag.ByID()).Limit(2).Offset(offset)
			var rows []*ent.Tag
			sent, err := observe(func() (err error) { rows, err = q.All(total.Within(read)); return err })
			if err != nil {
				t.Fatal(err)
			}
			n, ok := total.Count()
			return rows, n, ok, sent
		}

		rows, n, ok, statements := page(1)
		if !ok || n != 5 {
			t.Errorf("total %d (%v), want 5: my PRODUCT tags, not theirs, not my CUSTOMER ones", n, ok)
		}
		if got := names(rows); !slices.Equal(got, []string{"t1", "t2"}) {
			t.Errorf("page %v, want [t1 t2]", got)
		}
		if len(statements) != 1 || !strings.Contains(statements[0], "COUNT(*)") {
			t.Errorf("one statement with its count, sent %d: %q", len(statements), statements)
		}

		// Arguments before, inside and after the subquery's, and a predicate
		// that is a subquery of its own.
		rows, n, ok, _ = page(0,
			func(q *ent.TagQuery) { q.Where(tag.NameIn("t0", "t2", "t3", "t9")) },
			func(q *ent.TagQuery) { q.Where(tag.HasAccountWith(account.IDEQ(mine.Test.ID))) },
			func(q *ent.TagQuery) { q.Where(tag.NameNEQ("t3")) },
		)
		if !ok || n != 2 || !slices.Equal(names(rows), []string{"t0", "t2"}) {
			t.Errorf("filtered: total %d (%v), page %v, want 2 and [t0 t2]", n, ok, names(rows))
		}

		// An edge loaded beside the page reads its own rows (as the system,
		// which may read accounts, and sees every account's tags: here both
		// of ours, not those of the tests beside this one).
		read = policy.System(ctx)
		rows, n, ok, _ = page(3, func(q *ent.TagQuery) {
			q.Where(tag.AccountIDIn(mine.Test.ID, theirs.Test.ID)).WithAccount()
		})
		read = ctx
		if !ok || n != 9 || len(rows) != 2 || rows[0].Edges.Account == nil || rows[0].Edges.Account.ID != mine.Test.ID {
			t.Errorf("with the account: total %d (%v), %d rows, first %+v", n, ok, len(rows), rows)
		}

		if rows, _, ok, _ = page(5); ok || len(rows) != 0 {
			t.Errorf("past the end: %d rows, total reported %v", len(rows), ok)
		}

		// A context that carries a total leaves a query without the column alone.
		var total ent.PageTotal
		if got := c.Tag.Query().AllX(total.Within(ctx)); len(got) != 8 {
			t.Errorf("%d tags without the column, want 8", len(got))
		}
		if _, ok := total.Count(); ok {
			t.Error("a query without the column reported a total")
		}
	})
}

func names(tags []*ent.Tag) []string {
	out := make([]string, len(tags))
	for i, g := range tags {
		out[i] = g.Name
	}
	return out
}

// The total's subquery is added only where the page's predicates name the
// rows of the table it reads: a plain table, not one under an alias, not a
// subquery, not a join; there the page's rows carry no total and the caller
// counts on its own.
func TestPageTotalColumnOnlyOverItsTable(t *testing.T) {
	b := entsql.Dialect(dialect.Postgres)
	cases := []struct {
		name string
		s    *entsql.Selector
		want string
	}{
		{"table", b.Select("id").From(b.Table("tags")),
			`SELECT "id", (SELECT COUNT(*) FROM "tags" WHERE "tags"."account_id" = $1) AS "larder_total" FROM "tags" WHERE "tags"."account_id" = $2`},
		{"alias", b.Select("id").From(b.Table("tags").As("t1")), ""},
		{"subquery", b.Select("id").From(b.Select("id", "account_id").From(b.Table("tags")).As("t1")), ""},
		{"join", func() *entsql.Selector {
			tags, accounts := b.Table("tags"), b.Table("accounts")
			return b.Select(tags.C("id")).From(tags).Join(accounts).On(tags.C("account_id"), accounts.C("id"))
		}(), ""},
	}
	for _, tc := range cases {
		tc.s.Where(entsql.EQ(tc.s.C("account_id"), 7))
		var total ent.PageTotal
		total.Column(tc.s)
		got, args := tc.s.Query()
		switch {
		case tc.want == "" && strings.Contains(got, "larder_total"):
			t.Errorf("%s: a total over rows its predicates do not name: %s", tc.name, got)
		case tc.want != "" && (got != tc.want || len(args) != 2):
			t.Errorf("%s:\n got %s %v\nwant %s", tc.name, got, args, tc.want)
		}
	}
}

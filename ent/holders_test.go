package ent_test

import (
	"fmt"
	"testing"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/platform/address"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// The rows of a query are scanned into one set of holders (reuseHolders):
// every node still gets its own values, a NULL after a value reads as NULL,
// and a nillable field's pointer is the node's own. A holder a node may keep
// (here the bytes of a JSON address) is made again for every row.
func TestRowsKeepTheirOwnValues(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := policy.SeeingCost(org.Ctx(policy.Test))
		write := func(f func(c *ent.Client)) {
			t.Helper()
			if err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error { f(tx.Client()); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		c := st.Client

		write(func(c *ent.Client) {
			for i := range 6 {
				b := c.Tag.Create().SetName(fmt.Sprintf("t%d", i)).SetRefType(tag.RefTypePRODUCT)
				if i%2 == 0 {
					b.SetDescription(fmt.Sprintf("d%d", i))
				}
				b.SaveX(ctx)
			}
		})
		tags := c.Tag.Query().Order(tag.ByID()).AllX(ctx)
		if len(tags) != 6 {
			t.Fatalf("%d tags, want 6", len(tags))
		}
		for i, g := range tags {
			if g.Name != fmt.Sprintf("t%d", i) {
				t.Errorf("tag %d named %q", i, g.Name)
			}
			switch {
			case i%2 == 0 && (g.Description == nil || *g.Description != fmt.Sprintf("d%d", i)):
				t.Errorf("tag %d: description %v, want d%d", i, g.Description, i)
			case i%2 == 1 && g.Description != nil:
				t.Errorf("tag %d: description %q after a row that had one, want none", i, *g.Description)
			}
		}
		if tags[0].Description == tags[2].Description {
			t.Error("two tags share one description pointer")
		}

		// A nillable decimal (through sql.NullScanner) and a decimal.
		write(func(c *ent.Client) {
			for i := range 4 {
				b := c.Product.Create().SetProductCode(fmt.Sprintf("P%d", i)).SetProductType(product.ProductTypeRAW_MATERIAL)
				if i%2 == 0 {
					b.SetCost(decimal.RequireFromString(fmt.Sprintf("%d.25", i+1)))
				}
				b.SaveX(ctx)
			}
		})
		ps := c.Product.Query().Order(product.ByID()).AllX(ctx)
		for i, p := range ps {
			switch {
			case i%2 == 0 && (p.Cost == nil || !p.Cost.Equal(decimal.RequireFromString(fmt.Sprintf("%d.25", i+1)))):
				t.Errorf("product %d: cost %v, want %d.25", i, p.Cost, i+1)
			case i%2 == 1 && p.Cost != nil:
				t.Errorf("product %d: cost %v after a row that had one, want none", i, p.Cost)
			}
		}

		// JSON addresses: holders a node may keep, fresh for every row.
		write(func(c *ent.Client) {
			for i := range 3 {
				city := fmt.Sprintf("City %d", i)
				c.Supplier.Create().SetCompany(fmt.Sprintf("Company %d", i)).SetAddress(address.Address{City: &city}).SaveX(ctx)
			}
		})
		ss := c.Supplier.Query().Order(supplier.ByID()).AllX(ctx)
		for i, s := range ss {
			if s.Company == nil || *s.Company != fmt.Sprintf("Company %d", i) || s.Address.City == nil || *s.Address.City != fmt.Sprintf("City %d", i) {
				t.Errorf("supplier %d: company %v, address %+v", i, s.Company, s.Address)
			}
		}
	})
}

// Holders are made once per query when assignValues copies every value out
// of them, and for every row when a node may keep one.
func TestReuseHolders(t *testing.T) {
	cases := []struct {
		name string
		make func() []any
		want int
	}{
		{"copied out", func() []any {
			return []any{new(entsql.NullInt64), new(entsql.NullString), &entsql.NullScanner{S: new(decimal.Decimal)}, new(decimal.Decimal)}
		}, 1},
		{"bytes", func() []any { return []any{new(entsql.NullInt64), new([]byte)} }, 3},
		{"unknown column", func() []any { return []any{new(entsql.UnknownType)} }, 3},
	}
	for _, tc := range cases {
		made := 0
		scan := ent.ReuseHolders(func([]string) ([]any, error) {
			made++
			return tc.make(), nil
		})
		for range 3 {
			if _, err := scan([]string{"a"}); err != nil {
				t.Fatal(err)
			}
		}
		if made != tc.want {
			t.Errorf("%s: holders made %d times for 3 rows, want %d", tc.name, made, tc.want)
		}
	}
}

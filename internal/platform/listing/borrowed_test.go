package listing_test

import (
	"slices"
	"testing"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/platform/listing"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// A sort by a field of the referenced row (ent's By<Edge>Field, a join)
// pages by cursor exactly as it orders: the walk's rows, page by page, are
// the rows of the one ordered query, on both databases.
func TestBorrowedSortWalk(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		sorts := map[string]listing.Sort{
			"id": listing.Column(productlot.FieldID, listing.Int),
			"product_name": listing.Borrowed(func(o ...sql.OrderTermOption) func(*sql.Selector) {
				return productlot.ByProductField(product.FieldName, o...)
			}, listing.Text, product.Table, product.FieldID, product.FieldName, productlot.FieldProductID),
		}
		for _, sort := range []string{"product_name:asc", "product_name:desc", "product_name:desc,id:desc"} {
			req := listing.Request{Limit: 200, Sort: sort, List: "lots", Account: org.Test.ID, Filters: func() string { return "" }}
			all, err := listing.NewPage(req, sorts)
			if err != nil {
				t.Fatal(err)
			}
			q := st.Client.ProductLot.Query()
			for _, o := range all.Order {
				q.Order(productlot.OrderOption(o))
			}
			want, err := q.IDs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) < 5 {
				t.Fatalf("%d lots seeded", len(want))
			}
			var got []int
			req.Limit = 2
			for range len(want) + 1 {
				page, err := listing.NewPage(req, sorts)
				if err != nil {
					t.Fatalf("%s: %v", sort, err)
				}
				var keys ent.PageKeys
				q := st.Client.ProductLot.Query().Select(productlot.FieldID)
				q.Modify(keys.Columns(page.Values), page.After)
				for _, o := range page.Order {
					q.Order(productlot.OrderOption(o))
				}
				rows, err := q.Limit(page.Fetch()).All(keys.Within(ctx))
				if err != nil {
					t.Fatalf("%s: %v", sort, err)
				}
				fetched := len(rows)
				rows = rows[:min(len(rows), page.Limit)]
				for _, r := range rows {
					got = append(got, r.ID)
				}
				var last int
				if len(rows) > 0 {
					last = rows[len(rows)-1].ID
				}
				next, err := page.Next(page.HasMore(fetched, len(rows), len(want)), page.Last(keys.Row(len(rows)-1), last))
				if err != nil {
					t.Fatal(err)
				}
				if next == nil {
					break
				}
				req.Cursor = *next
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: walked %v, ordered %v", sort, got, want)
			}
		}
	})
}

package ent_test

import (
	"context"
	"fmt"
	"go/token"
	"reflect"
	"testing"

	entsql "entgo.io/ent/dialect/sql"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/platform/address"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// List reads every type as All does: the same nodes, field for field, and the
// same error. Each type's rows come from the organization's seed and from
// rows made here with NULLs between values; the query of every type of the
// client is run both ways.
func TestListReadsAsAll(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := policy.SeeingCost(org.Ctx(policy.Test))
		seedMixedRows(t, ctx, st)

		compared, rows := 0, 0
		cv := reflect.ValueOf(st.Client).Elem()
		for i := range cv.NumField() {
			name := cv.Type().Field(i).Name
			query := func() reflect.Value {
				client := cv.Field(i)
				if !client.CanInterface() || !client.MethodByName("Query").IsValid() {
					return reflect.Value{}
				}
				return client.MethodByName("Query").Call(nil)[0]
			}
			if q := query(); !q.IsValid() || !q.MethodByName("List").IsValid() {
				continue
			}
			all, allErr := read(ctx, query(), "All")
			list, listErr := read(ctx, query(), "List")
			if fmt.Sprint(allErr) != fmt.Sprint(listErr) {
				t.Errorf("%s: All: %v; List: %v", name, allErr, listErr)
				continue
			}
			if diff := gocmp.Diff(all, list, nodeFields...); diff != "" {
				t.Errorf("%s: List differs from All (-All +List):\n%s", name, diff)
			}
			compared++
			if all != nil {
				rows += reflect.ValueOf(all).Len()
			}
		}
		if compared < 40 || rows < 100 {
			t.Fatalf("compared %d types, %d rows: want every type of the client and the seed's rows", compared, rows)
		}

		// A column a modifier selects, which no field has: the rows go through
		// ent's holders, and the node keeps the value as All's does.
		extra := func(s *entsql.Selector) { s.AppendSelectExprAs(entsql.Expr("41 + 1"), "answer") }
		a := st.Client.Tag.Query().Modify(extra).Order(tag.ByID()).AllX(ctx)
		l, err := st.Client.Tag.Query().Modify(extra).Order(tag.ByID()).List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(l) == 0 || len(l) != len(a) {
			t.Fatalf("%d tags listed, %d read", len(l), len(a))
		}
		for i := range l {
			av, _ := a[i].Value("answer")
			lv, _ := l[i].Value("answer")
			if fmt.Sprint(av) != "42" || fmt.Sprint(lv) != fmt.Sprint(av) {
				t.Errorf("tag %d: answer %v listed, %v read", i, lv, av)
			}
		}

		// Some columns selected, an edge loaded.
		ps := st.Client.Product.Query().Select(product.FieldProductCode, product.FieldCost).WithTags().Order(product.ByID()).AllX(ctx)
		pl, err := st.Client.Product.Query().Select(product.FieldProductCode, product.FieldCost).WithTags().Order(product.ByID()).List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(ps, pl, nodeFields...); diff != "" {
			t.Errorf("products with some columns and their tags (-All +List):\n%s", diff)
		}
		if len(pl) < 4 || pl[0].Edges.Tags == nil {
			t.Errorf("%d products listed; tags loaded: %v", len(pl), len(pl) > 0 && pl[0].Edges.Tags != nil)
		}
		for i := 1; i < len(pl); i++ {
			if pl[i].Cost != nil && pl[i].Cost == pl[i-1].Cost {
				t.Errorf("products %d and %d share one cost pointer", i-1, i)
			}
		}
	})
}

// nodeFields compare nodes by their exported fields, decimals by their text,
// times by their instant.
var nodeFields = []gocmp.Option{
	gocmp.FilterPath(func(p gocmp.Path) bool {
		sf, ok := p.Last().(gocmp.StructField)
		return ok && !token.IsExported(sf.Name())
	}, gocmp.Ignore()),
	gocmp.Comparer(func(a, b decimal.Decimal) bool { return a.String() == b.String() }),
}

// read runs query's method (All or List) and returns its nodes by id.
func read(ctx context.Context, query reflect.Value, method string) (any, error) {
	out := query.MethodByName(method).Call([]reflect.Value{reflect.ValueOf(ctx)})
	if err, _ := out[1].Interface().(error); err != nil {
		return nil, err
	}
	nodes := out[0]
	id := func(i int) int64 { return nodes.Index(i).Elem().FieldByName("ID").Int() }
	swap := reflect.Swapper(nodes.Interface())
	for i := 1; i < nodes.Len(); i++ { // insertion sort: few rows
		for j := i; j > 0 && id(j-1) > id(j); j-- {
			swap(j-1, j)
		}
	}
	return nodes.Interface(), nil
}

// seedMixedRows makes rows whose nillable columns alternate between a value
// and NULL: tags (text), products (decimals), suppliers (JSON).
func seedMixedRows(t *testing.T, ctx context.Context, st *store.Store) {
	t.Helper()
	err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
		c := tx.Client()
		var tags []*ent.Tag
		for i := range 6 {
			b := c.Tag.Create().SetName(fmt.Sprintf("t%d", i)).SetRefType(tag.RefTypePRODUCT)
			if i%2 == 0 {
				b.SetDescription(fmt.Sprintf("d%d", i))
			}
			tags = append(tags, b.SaveX(ctx))
		}
		for i := range 4 {
			b := c.Product.Create().SetProductCode(fmt.Sprintf("P%d", i)).SetProductType(product.ProductTypeRAW_MATERIAL)
			if i%2 == 0 {
				b.SetCost(decimal.RequireFromString(fmt.Sprintf("%d.250", i+1)))
			}
			p := b.SaveX(ctx)
			c.ProductTag.Create().SetProduct(p).SetTag(tags[i]).SaveX(ctx)
		}
		for i := range 3 {
			city := fmt.Sprintf("City %d", i)
			b := c.Supplier.Create().SetAddress(address.Address{City: &city})
			if i != 1 {
				b.SetCompany(fmt.Sprintf("Company %d", i))
			}
			b.SaveX(ctx)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

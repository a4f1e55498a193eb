package seed_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productallergen"
	"larder.dev/larder/ent/productbannedcountry"
	"larder.dev/larder/ent/productbyproduct"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/productqccheckpoint"
	"larder.dev/larder/ent/productsubstitute"
	"larder.dev/larder/ent/productsupplier"
	"larder.dev/larder/ent/producttag"
	"larder.dev/larder/ent/qccheckpoint"
	"larder.dev/larder/ent/recipestep"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// scaleCopies crosses Scale's group of 50 copies, and its lots cross a
// batch of either database's lot inserts.
const scaleCopies = 51

// Scale writes, into the test account of the viewer only, four lots per copied
// product (100, 200, 300, 400 in the base unit) with the product's name, each
// with one PRODUCT_FORM movement of its whole quantity, and the same columns
// ent writes for a lot the system creates; Rows counts every row it wrote, and
// it writes no event.
func TestScaleLotsAndMovements(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		// System viewer: the test counts and reads every account's rows to see where Scale wrote.
		sys := policy.System(context.Background())
		a, b := dbtest.NewSeededOrg(t, st), dbtest.NewSeededOrg(t, st)
		accounts := []int{a.Test.ID, a.Live.ID, b.Test.ID, b.Live.ID}
		before := make([]map[string]int, len(accounts))
		for i, id := range accounts {
			before[i] = accountRows(t, st, id)
		}
		events, err := st.Client.Event.Query().Count(sys)
		if err != nil {
			t.Fatal(err)
		}

		res, err := seed.Scale(a.Ctx(policy.Test), st.Client, st.Dialect, scaleCopies, nil)
		if err != nil {
			t.Fatal(err)
		}

		for i, id := range accounts {
			after := accountRows(t, st, id)
			written := 0
			for table, n := range after {
				written += n - before[i][table]
			}
			if i > 0 && written != 0 {
				t.Errorf("account %d (not the viewer's): %d rows written", id, written)
			}
			if i == 0 {
				if written != res.Rows {
					t.Errorf("Rows = %d, but %d rows were written", res.Rows, written)
				}
				products := after["products"] - before[0]["products"]
				lots := after["product_lots"] - before[0]["product_lots"]
				movements := after["stock_movements"] - before[0]["stock_movements"]
				if products != 27*scaleCopies || lots != 4*products || movements != lots {
					t.Errorf("%d products, %d lots, %d movements: want %d, four lots each, one movement each", products, lots, movements, 27*scaleCopies)
				}
			}
		}
		if n, err := st.Client.Event.Query().Count(sys); err != nil || n != events {
			t.Errorf("%d events after Scale, %d before (%v)", n, events, err)
		}

		lots, err := st.Client.ProductLot.Query().
			Where(productlot.HasProductWith(product.ProductCodeHasSuffix(fmt.Sprintf("-S%05d", scaleCopies)))).
			WithProduct().
			WithMovements().
			Order(ent.Asc(productlot.FieldID)).
			All(sys)
		if err != nil {
			t.Fatal(err)
		}
		if len(lots) != 4*27 {
			t.Fatalf("%d lots of the last copy, want %d", len(lots), 4*27)
		}
		byProduct := map[int][]string{}
		for _, l := range lots {
			if l.AccountID != a.Test.ID || l.ProductName == nil || l.Edges.Product.Name == nil || *l.ProductName != *l.Edges.Product.Name {
				t.Fatalf("lot %d: account %d, name %q, of product %q of account %d", l.ID, l.AccountID, str(l.ProductName), str(l.Edges.Product.Name), l.Edges.Product.AccountID)
			}
			byProduct[l.ProductID] = append(byProduct[l.ProductID], l.QuantityBase.String())
			if len(l.Edges.Movements) != 1 {
				t.Fatalf("lot %d has %d movements", l.ID, len(l.Edges.Movements))
			}
			m := l.Edges.Movements[0]
			if !m.QuantityBase.Equal(l.QuantityBase) || m.AccountID != l.AccountID || m.Type != stockmovement.TypePRODUCT_FORM ||
				m.DocumentType == nil || *m.DocumentType != "product_lot" || m.DocumentID == nil || *m.DocumentID != l.ID {
				t.Fatalf("lot %d of %s in account %d has the movement %+v", l.ID, l.QuantityBase, l.AccountID, m)
			}
		}
		for p, qs := range byProduct {
			if want := []string{"100", "200", "300", "400"}; !cmp.Equal(qs, want) {
				t.Errorf("product %d: lots of %v, want %v", p, qs, want)
			}
		}

		// The lot the system creates through ent, with the movement its hook
		// writes, is the reference for every other column.
		scaled := lots[0]
		var ref *ent.ProductLot
		err = ent.RunInTx(sys, st.Client, func(tx *ent.Tx) error {
			l, err := tx.ProductLot.Create().
				SetAccountID(a.Test.ID).
				SetProductID(scaled.ProductID).
				SetLotNumber("REFERENCE").
				SetExpirationDate(*scaled.ExpirationDate).
				SetQuantityBase(scaled.QuantityBase).
				Save(hooks.WithoutEvents(sys))
			ref = l
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		ref, err = st.Client.ProductLot.Query().Where(productlot.ID(ref.ID)).WithMovements().Only(sys)
		if err != nil {
			t.Fatal(err)
		}
		ignore := cmp.Options{
			cmpopts.IgnoreFields(ent.ProductLot{}, "ID", "CreatedAt", "UpdatedAt", "LotNumber", "Edges"),
			cmpopts.IgnoreFields(ent.StockMovement{}, "ID", "LotID", "DocumentID", "CreatedAt", "Edges"),
			cmpopts.IgnoreUnexported(ent.ProductLot{}, ent.StockMovement{}),
			cmp.Comparer(func(x, y decimal.Decimal) bool { return x.Equal(y) }),
			cmp.Comparer(func(x, y time.Time) bool { return x.Equal(y) }),
		}
		if d := cmp.Diff(ref, scaled, ignore); d != "" {
			t.Errorf("a scaled lot differs from the one ent writes (-ent +scale):\n%s", d)
		}
		if d := cmp.Diff(ref.Edges.Movements[0], scaled.Edges.Movements[0], ignore); d != "" {
			t.Errorf("a scaled lot's movement differs from the one ent writes (-ent +scale):\n%s", d)
		}
	})
}

// accountRows counts the rows of each table Scale writes that belong to the
// account.
func accountRows(t *testing.T, st *store.Store, acct int) map[string]int {
	t.Helper()
	// System viewer: the test counts the rows of any account.
	ctx := policy.System(context.Background())
	c := st.Client
	counts := map[string]func() (int, error){
		"suppliers":      func() (int, error) { return c.Supplier.Query().Where(supplier.AccountID(acct)).Count(ctx) },
		"qc_checkpoints": func() (int, error) { return c.QCCheckpoint.Query().Where(qccheckpoint.AccountID(acct)).Count(ctx) },
		"products":       func() (int, error) { return c.Product.Query().Where(product.AccountID(acct)).Count(ctx) },
		"product_tags":   func() (int, error) { return c.ProductTag.Query().Where(producttag.AccountID(acct)).Count(ctx) },
		"product_allergens": func() (int, error) {
			return c.ProductAllergen.Query().Where(productallergen.AccountID(acct)).Count(ctx)
		},
		"product_banned_countries": func() (int, error) {
			return c.ProductBannedCountry.Query().Where(productbannedcountry.AccountID(acct)).Count(ctx)
		},
		"product_substitutes": func() (int, error) {
			return c.ProductSubstitute.Query().Where(productsubstitute.AccountID(acct)).Count(ctx)
		},
		"product_suppliers": func() (int, error) {
			return c.ProductSupplier.Query().Where(productsupplier.AccountID(acct)).Count(ctx)
		},
		"product_byproducts": func() (int, error) {
			return c.ProductByproduct.Query().Where(productbyproduct.AccountID(acct)).Count(ctx)
		},
		"product_qc_checkpoints": func() (int, error) {
			return c.ProductQCCheckpoint.Query().Where(productqccheckpoint.AccountID(acct)).Count(ctx)
		},
		"recipe_steps":    func() (int, error) { return c.RecipeStep.Query().Where(recipestep.AccountID(acct)).Count(ctx) },
		"product_lots":    func() (int, error) { return c.ProductLot.Query().Where(productlot.AccountID(acct)).Count(ctx) },
		"stock_movements": func() (int, error) { return c.StockMovement.Query().Where(stockmovement.AccountID(acct)).Count(ctx) },
	}
	out := map[string]int{}
	for table, count := range counts {
		n, err := count()
		if err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

// str is *s, or "<nil>".
func str(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/location"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/hooks"
	"larder.dev/larder/inventory"
	"larder.dev/larder/policy"
	"larder.dev/larder/tenancy"
)

// TestAccount fills a new organization's test account, in the transaction
// that creates it, with the dataset integrators test against: a bakery and
// snack plant. It is deterministic: the same account gets the same rows. Each
// resource adds its rows in its own step below.
func TestAccount(ctx context.Context, tx *ent.Tx, o *tenancy.Organization) error {
	ctx = hooks.WithoutEvents(policy.App(ctx, o.Test.ID, policy.Test))
	for _, step := range testSteps {
		if err := step.run(ctx, tx); err != nil {
			return fmt.Errorf("seed test account: %s: %w", step.name, err)
		}
	}
	return nil
}

var testSteps = []struct {
	name string
	run  func(context.Context, *ent.Tx) error
}{
	{"tags", seedTags},
	{"units of measure", seedUnits},
	{"allergens", seedAllergens},
	{"warehouses", seedWarehouses},
	{"operations", seedOperations},
	{"suppliers", seedSuppliers},
	{"QC checkpoints", seedCheckpoints},
	{"foods", seedFoods},
	{"products", seedProducts},
	{"product lots", seedLots},
}

func seedTags(ctx context.Context, tx *ent.Tx) error {
	tags := []struct {
		ref         tag.RefType
		name, about string
	}{
		{tag.RefTypePRODUCT, "Organic", "Certified organic ingredients."},
		{tag.RefTypePRODUCT, "Gluten-free", "Made on the gluten-free line."},
		{tag.RefTypePRODUCT, "Seasonal", "Sold in the holiday season only."},
		{tag.RefTypeCUSTOMER, "Wholesale", "Buys by the pallet."},
		{tag.RefTypeCUSTOMER, "Retail", "Store-front customers."},
		{tag.RefTypeSUPPLIER, "Local", "Within 150 km of the plant."},
		{tag.RefTypeSUPPLIER, "Certified", "Holds a GFSI-benchmarked certificate."},
	}
	for _, t := range tags {
		if err := tx.Tag.Create().SetRefType(t.ref).SetName(t.name).SetDescription(t.about).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

func seedUnits(ctx context.Context, tx *ent.Tx) error {
	units := []Unit{
		{"bag25", "Bag (25 kg)", grams(25000)},
		{"tray", "Baking tray", nil},
		{"pallet", "Pallet", nil},
	}
	for _, u := range units {
		if err := tx.UnitOfMeasure.Create().SetCode(u.Code).SetName(u.Name).SetNillableWeightInGrams(u.WeightInGrams).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

func seedAllergens(ctx context.Context, tx *ent.Tx) error {
	return tx.Allergen.Create().
		SetCode("LUPIN").
		SetName("Lupin").
		SetNameFr("Lupin").
		SetDescription("Lupin flour in the gluten-free range; not a Canadian priority allergen.").
		Exec(ctx)
}

func seedWarehouses(ctx context.Context, tx *ent.Tx) error {
	sites := []struct{ code, name, about string }{
		{"MAIN", "Main plant", "Bakery, snack lines and dry storage."},
		{"COLD", "Cold storage", "Refrigerated dairy, eggs and finished cakes."},
		{"OVERFLOW", "Overflow warehouse", "Rented space for packaging and seasonal stock."},
	}
	for _, s := range sites {
		_, err := inventory.CreateWarehouse(ctx, tx, func(b *ent.LocationCreate) error {
			b.SetCode(s.code).SetName(s.name).SetDescription(s.about)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func seedOperations(ctx context.Context, tx *ent.Tx) error {
	kg, err := tx.UnitOfMeasure.Query().Where(unitofmeasure.IsGlobal(true), unitofmeasure.Code("kg")).OnlyID(ctx)
	if err != nil {
		return err
	}
	each, err := tx.UnitOfMeasure.Query().Where(unitofmeasure.IsGlobal(true), unitofmeasure.Code("each")).OnlyID(ctx)
	if err != nil {
		return err
	}
	ops := []struct {
		code, name string
		cost       string
		qty        float64
		unit       int
	}{
		{"MIX", "Mixing", "12.50", 100, kg},
		{"PROOF", "Proofing", "4.25", 100, kg},
		{"BAKE", "Baking", "18.75", 100, kg},
		{"PACK", "Packing", "0.08", 1, each},
	}
	for _, o := range ops {
		err := tx.Operation.Create().
			SetCode(o.code).
			SetName(o.name).
			SetCost(decimal.RequireFromString(o.cost)).
			SetQty(o.qty).
			SetUnitOfMeasureID(o.unit).
			Exec(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

// seedLots places stock: numbered lots in every QC status (one release with
// an expiry), archived lots, lots without a location, and a product's
// unnumbered lot. Each lot's quantity is its PRODUCT_FORM movement.
func seedLots(ctx context.Context, tx *ent.Tx) error {
	product := func(code string) (int, error) {
		return tx.Product.Query().Where(entproduct.ProductCode(code)).OnlyID(ctx)
	}
	area := func(site, code string) (int, error) {
		return tx.Location.Query().Where(location.Path(site + "/" + code)).OnlyID(ctx)
	}
	day := func(days int) *time.Time {
		t := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, days)
		return &t
	}
	lots := []struct {
		product, number, site, area string
		qty                         string
		expires                     *time.Time
		qc                          productlot.QcStatus
		note                        string
		releaseUntil                *time.Time
		archived                    bool
	}{
		{"RM-FLOUR", "FL-2611-01", "MAIN", "STORAGE", "150000", day(120), productlot.QcStatusAVAILABLE, "", nil, false},
		{"RM-FLOUR", "FL-2611-02", "MAIN", "STORAGE", "250000", day(180), productlot.QcStatusAVAILABLE, "", nil, false},
		{"RM-FLOUR", "FL-2609-07", "MAIN", "STORAGE", "0", day(-30), productlot.QcStatusAVAILABLE, "", nil, true},
		{"RM-OATS", "OA-2610-03", "MAIN", "RECEIVING", "75000", day(200), productlot.QcStatusON_HOLD, "Awaiting the mill's certificate of analysis.", nil, false},
		{"RM-BUTTER", "BU-2611-11", "COLD", "STORAGE", "327", day(45), productlot.QcStatusQUARANTINE, "Temperature excursion on receipt; under review.", nil, false},
		{"RM-EGG", "EG-2611-20", "COLD", "STORAGE", "1440", day(20), productlot.QcStatusREJECTED, "Cracked shells over tolerance.", nil, false},
		{"FG-COOKIE12", "CK-2611-15", "MAIN", "SHIPPING", "480", day(60), productlot.QcStatusRELEASED, "Positive release, micro pending.", day(7), false},
		{"FG-BAR6", "BR-2611-02", "OVERFLOW", "STORAGE", "960", day(150), productlot.QcStatusRELEASED, "Released.", nil, false},
		{"FG-BAR6", "BR-2608-01", "OVERFLOW", "STORAGE", "0", day(-60), productlot.QcStatusAVAILABLE, "", nil, true},
		{"RM-SUGAR", "SU-2611-05", "", "", "50000", nil, productlot.QcStatusAVAILABLE, "", nil, false},
		{"RM-CHOC", "", "MAIN", "STORAGE", "12000", nil, productlot.QcStatusAVAILABLE, "", nil, false},
	}
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for _, l := range lots {
		pid, err := product(l.product)
		if err != nil {
			return fmt.Errorf("%s: %w", l.product, err)
		}
		b := tx.ProductLot.Create().
			SetProductID(pid).
			SetQuantityBase(decimal.RequireFromString(l.qty)).
			SetNillableExpirationDate(l.expires)
		if l.number != "" {
			b.SetLotNumber(l.number)
		}
		if l.site != "" {
			loc, err := area(l.site, l.area)
			if err != nil {
				return fmt.Errorf("%s/%s: %w", l.site, l.area, err)
			}
			b.SetLocationID(loc)
		}
		lot, err := b.Save(ctx)
		if err != nil {
			return err
		}
		if l.qc != productlot.QcStatusAVAILABLE {
			d := inventory.QCDecision{Status: l.qc, ReleaseExpiresAt: l.releaseUntil}
			if l.note != "" {
				d.Note = &l.note
			}
			if _, err := inventory.SetLotQC(ctx, tx, lot.ID, d, now); err != nil {
				return err
			}
		}
		if l.archived {
			if _, err := inventory.ArchiveLot(ctx, tx, lot.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

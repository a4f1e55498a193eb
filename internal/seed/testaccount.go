package seed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/equipment"
	"larder.dev/larder/ent/location"
	"larder.dev/larder/ent/operation"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productionline"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/policy"
)

// TestAccount fills a new organization's test account, in the transaction
// that creates it, with the dataset integrators test against: a bakery and
// snack plant, dated from today (TestAccountAt with the time now).
func TestAccount(ctx context.Context, tx *ent.Tx, o *tenancy.Organization) error {
	return TestAccountAt(time.Now())(ctx, tx, o)
}

// TestAccountAt is the seeding of a test account as of now: every date of the
// dataset is a number of days from now's day (UTC), so the account holds the
// same story whatever the day it is seeded. It is deterministic: the same
// account seeded on the same day gets the same rows. Each resource adds its
// rows in its own step below.
func TestAccountAt(now time.Time) tenancy.Setup {
	cal := calendarOf(now)
	return func(ctx context.Context, tx *ent.Tx, o *tenancy.Organization) error {
		ctx = hooks.WithoutEvents(policy.App(ctx, o.Test.ID, policy.Test))
		for _, step := range testSteps {
			if err := step.run(ctx, tx, cal); err != nil {
				return fmt.Errorf("seed test account: %s: %w", step.name, err)
			}
		}
		return nil
	}
}

// undated is a step whose rows carry no date.
func undated(f func(context.Context, *ent.Tx) error) func(context.Context, *ent.Tx, calendar) error {
	return func(ctx context.Context, tx *ent.Tx, _ calendar) error { return f(ctx, tx) }
}

var testSteps = []struct {
	name string
	run  func(context.Context, *ent.Tx, calendar) error
}{
	{"tags", undated(seedTags)},
	{"units of measure", undated(seedUnits)},
	{"allergens", undated(seedAllergens)},
	{"warehouses", undated(seedWarehouses)},
	{"operations", undated(seedOperations)},
	{"equipment", undated(seedEquipment)},
	{"production lines", undated(seedProductionLines)},
	{"line equipment", undated(seedLineEquipment)},
	{"employees", undated(seedEmployees)},
	{"sales reference lists", undated(seedSalesReference)},
	{"customers", undated(seedCustomers)},
	{"suppliers", seedSuppliers},
	{"QC checkpoints", undated(seedCheckpoints)},
	{"foods", undated(seedFoods)},
	{"products", undated(seedProducts)},
	{"recipe routings", undated(seedRoutings)},
	{"product lots", seedLots},
	{"productions", seedProductions},
	{"purchase orders", seedPurchaseOrders},
	{"bills", seedBills},
	{"sales orders", seedSalesOrders},
	{"recall scenario", seedRecall},
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

// seedLots places stock: numbered lots in every QC status (one release
// ending within weeks), archived lots, lots without a location, and a
// product's unnumbered lot. Each lot's quantity is its PRODUCT_FORM
// movement. Expiries are days from the seeding day: every lot not archived
// keeps months of shelf life.
func seedLots(ctx context.Context, tx *ent.Tx, cal calendar) error {
	product := func(code string) (int, error) {
		return tx.Product.Query().Where(entproduct.ProductCode(code)).OnlyID(ctx)
	}
	area := func(site, code string) (int, error) {
		return tx.Location.Query().Where(location.Path(site + "/" + code)).OnlyID(ctx)
	}
	day := cal.in
	lots := []struct {
		product, number, site, area string
		qty                         string
		expires                     *time.Time
		qc                          productlot.QcStatus
		note                        string
		releaseUntil                *time.Time
		archived                    bool
	}{
		{"RM-FLOUR", "FL-2611-01", "MAIN", "STORAGE", "150000", day(162), productlot.QcStatusAVAILABLE, "", nil, false},
		{"RM-FLOUR", "FL-2611-02", "MAIN", "STORAGE", "250000", day(222), productlot.QcStatusAVAILABLE, "", nil, false},
		{"RM-FLOUR", "FL-2609-07", "MAIN", "STORAGE", "0", day(12), productlot.QcStatusAVAILABLE, "", nil, true},
		{"RM-OATS", "OA-2610-03", "MAIN", "RECEIVING", "75000", day(oatsExpiry), productlot.QcStatusON_HOLD, "Awaiting the mill's certificate of analysis.", nil, false},
		{"RM-BUTTER", "BU-2611-11", "COLD", "STORAGE", "327", day(87), productlot.QcStatusQUARANTINE, "Temperature excursion on receipt; under review.", nil, false},
		{"RM-EGG", "EG-2611-20", "COLD", "STORAGE", "1440", day(62), productlot.QcStatusREJECTED, "Cracked shells over tolerance.", nil, false},
		{"FG-COOKIE12", "CK-2611-15", "MAIN", "SHIPPING", "480", day(102), productlot.QcStatusRELEASED, "Positive release, micro pending.", day(49), false},
		{"FG-BAR6", "BR-2611-02", "OVERFLOW", "STORAGE", "960", day(192), productlot.QcStatusRELEASED, "Released.", nil, false},
		{"FG-BAR6", "BR-2608-01", "OVERFLOW", "STORAGE", "0", day(-18), productlot.QcStatusAVAILABLE, "", nil, true},
		{"RM-SUGAR", "SU-2611-05", "", "", "50000", nil, productlot.QcStatusAVAILABLE, "", nil, false},
		{"RM-CHOC", "", "MAIN", "STORAGE", "12000", nil, productlot.QcStatusAVAILABLE, "", nil, false},
	}
	now := cal.at(-19, 9) // when quality decided
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

// warehouseIDs maps the codes of the account's warehouses to their ids.
func warehouseIDs(ctx context.Context, tx *ent.Tx) (map[string]int, error) {
	sites, err := tx.Location.Query().Where(location.ParentIDIsNil()).All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, s := range sites {
		out[s.Code] = s.ID
	}
	return out, nil
}

// equipmentRows are in service and out of it, in warehouses and not.
var equipmentRows = []struct {
	code, name, warehouse string
	outOfService          bool
}{
	{"MIX-01", "Spiral mixer 120 L", "MAIN", false},
	{"OVEN-01", "Tunnel oven", "MAIN", false},
	{"OVEN-02", "Rack oven", "MAIN", true},
	{"DEP-01", "Cookie depositor", "MAIN", false},
	{"MD-01", "Metal detector", "MAIN", false},
	{"FLOW-01", "Flow wrapper", "OVERFLOW", true},
	{"BLAST-01", "Blast chiller", "COLD", false},
	{"SCALE-P1", "Portable check scale", "", false},
}

func seedEquipment(ctx context.Context, tx *ent.Tx) error {
	sites, err := warehouseIDs(ctx, tx)
	if err != nil {
		return err
	}
	for _, e := range equipmentRows {
		b := tx.Equipment.Create().
			SetCode(e.code).
			SetName(e.name).
			SetOutOfService(e.outOfService)
		if e.warehouse != "" {
			b.SetWarehouseID(sites[e.warehouse])
		}
		if err := b.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// productionLineRows are in warehouses and not.
var productionLineRows = []struct{ name, about, warehouse string }{
	{"Cookie line", "Mixing, depositing and the tunnel oven.", "MAIN"},
	{"Granola bar line", "Mixing, slab forming, baking and cutting.", "MAIN"},
	{"Cake finishing", "Icing and boxing of chilled cakes.", "COLD"},
	{"Pilot line", "Test batches and new recipes; moves between sites.", ""},
}

func seedProductionLines(ctx context.Context, tx *ent.Tx) error {
	sites, err := warehouseIDs(ctx, tx)
	if err != nil {
		return err
	}
	for _, l := range productionLineRows {
		b := tx.ProductionLine.Create().
			SetName(l.name).
			SetDescription(l.about)
		if l.warehouse != "" {
			b.SetWarehouseID(sites[l.warehouse])
		}
		if err := b.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// lineEquipment is the equipment each line uses: some equipment is in use
// by a line, some (SCALE-P1, BLAST-01) by nothing.
var lineEquipment = []struct {
	line  string
	codes []string
}{
	{"Cookie line", []string{"MIX-01", "DEP-01", "OVEN-01", "MD-01"}},
	{"Granola bar line", []string{"MIX-01", "OVEN-02", "FLOW-01"}},
}

func seedLineEquipment(ctx context.Context, tx *ent.Tx) error {
	for _, le := range lineEquipment {
		line, err := tx.ProductionLine.Query().Where(productionline.Name(le.line)).Only(ctx)
		if err != nil {
			return fmt.Errorf("line %s: %w", le.line, err)
		}
		for _, code := range le.codes {
			eq, err := tx.Equipment.Query().Where(equipment.Code(code)).OnlyID(ctx)
			if err != nil {
				return fmt.Errorf("equipment %s: %w", code, err)
			}
			err = tx.ProductionLineEquipment.Create().
				SetAccountID(line.AccountID).
				SetProductionLineID(line.ID).
				SetEquipmentID(eq).
				Exec(ctx)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// routings are the recipes' operations in order, each with its equipment or
// none ("" after the colon): the operation PROOF is used by no recipe, and
// runs copy these steps when planned.
var routings = []struct {
	recipe string
	steps  []string
}{
	{"SR-DOUGH", []string{"MIX:MIX-01"}},
	{"RC-COOKIE", []string{"MIX:MIX-01", "BAKE:OVEN-01"}},
	{"FG-COOKIE12", []string{"BAKE:OVEN-01", "PACK:MD-01", "PACK:"}},
	{"RC-BAR", []string{"MIX:MIX-01", "BAKE:OVEN-02"}},
	{"FG-BAR6", []string{"PACK:FLOW-01"}},
}

func seedRoutings(ctx context.Context, tx *ent.Tx) error {
	for _, r := range routings {
		p, err := tx.Product.Query().Where(entproduct.ProductCode(r.recipe)).Only(ctx)
		if err != nil {
			return fmt.Errorf("recipe %s: %w", r.recipe, err)
		}
		for i, step := range r.steps {
			op, eq, _ := strings.Cut(step, ":")
			opID, err := tx.Operation.Query().Where(operation.Code(op)).OnlyID(ctx)
			if err != nil {
				return fmt.Errorf("operation %s: %w", op, err)
			}
			b := tx.RecipeStep.Create().
				SetAccountID(p.AccountID).
				SetProductID(p.ID).
				SetPosition(i + 1).
				SetOperationID(opID)
			if eq != "" {
				eqID, err := tx.Equipment.Query().Where(equipment.Code(eq)).OnlyID(ctx)
				if err != nil {
					return fmt.Errorf("equipment %s: %w", eq, err)
				}
				b.SetEquipmentID(eqID)
			}
			if err := b.Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// employeeRows are active and not; one has no e-mail address.
var employeeRows = []struct {
	code, first, last, email string
	active                   bool
}{
	{"E001", "Marie", "Tremblay", "marie.tremblay@example.com", true},
	{"E002", "Jean", "Gagnon", "jean.gagnon@example.com", true},
	{"E003", "Aisha", "Okafor", "aisha.okafor@example.com", true},
	{"E004", "Luc", "Roy", "luc.roy@example.com", true},
	{"E005", "Priya", "Singh", "", true},
	{"E006", "Tom", "Bouchard", "tom.bouchard@example.com", false},
	{"E007", "Sofia", "Côté", "sofia.cote@example.com", false},
}

func seedEmployees(ctx context.Context, tx *ent.Tx) error {
	for _, e := range employeeRows {
		b := tx.Employee.Create().
			SetCode(e.code).
			SetFirstName(e.first).
			SetLastName(e.last).
			SetActive(e.active)
		if e.email != "" {
			b.SetEmail(e.email)
		}
		if err := b.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// seedProductions plans runs on two lines and moves them into every status:
// planned steps on each, a COMPLETED run that consumed lots (its consumed
// steps, PRODUCTION_CONSUMPTION movements and a new output lot), and a
// completed run signed and locked.
func seedProductions(ctx context.Context, tx *ent.Tx, cal calendar) error {
	main, err := tx.Location.Query().Where(location.Path("MAIN")).OnlyID(ctx)
	if err != nil {
		return err
	}
	line := func(name, about string) (int, error) {
		if id, err := tx.ProductionLine.Query().Where(productionline.Name(name)).OnlyID(ctx); err == nil {
			return id, nil
		}
		l, err := tx.ProductionLine.Create().SetName(name).SetDescription(about).SetWarehouseID(main).Save(ctx)
		if err != nil {
			return 0, err
		}
		return l.ID, nil
	}
	cookies, err := line("Cookie line", "Mixer, depositor and tunnel oven.")
	if err != nil {
		return err
	}
	bars, err := line("Bar line", "Slab former, cutter and flow wrapper.")
	if err != nil {
		return err
	}
	product := func(code string) (int, error) {
		return tx.Product.Query().Where(entproduct.ProductCode(code)).OnlyID(ctx)
	}
	day := func(days int) *time.Time { // from 19 days before the seeding day, at 06:00
		t := cal.at(days-19, 6)
		return &t
	}
	type step struct {
		code string
		qty  string
	}
	runs := []struct {
		product, lot string
		line         int
		qty          string
		expires      *time.Time
		steps        []step
		to           []production.Status // the moves after planning
		signed       bool
	}{
		{"FG-COOKIE12", "CK-2611-40", cookies, "40", day(90), []step{{"RM-FLOUR", "30000"}, {"RM-SUGAR", "8000"}}, nil, false},
		{"FG-COOKIE12", "CK-2611-41", cookies, "40", day(91), []step{{"RM-FLOUR", "30000"}, {"RM-CHOC", "4000"}}, []production.Status{production.StatusIN_PROGRESS}, false},
		{"FG-BAR6", "BR-2611-40", bars, "25", day(180), []step{{"RM-SUGAR", "3000"}}, []production.Status{production.StatusIN_PROGRESS, production.StatusIN_PROGRESS_TRANSFORMATION}, false},
		{"FG-BAR6", "BR-2611-41", bars, "25", day(181), []step{{"RM-SUGAR", "3000"}}, []production.Status{production.StatusON_HOLD}, false},
		{"FG-COOKIE12", "CK-2611-42", cookies, "40", day(92), []step{{"RM-FLOUR", "30000"}}, []production.Status{production.StatusIN_PROGRESS, production.StatusQUARANTINE}, false},
		{"FG-BAR6", "BR-2611-42", bars, "25", day(182), []step{{"RM-SUGAR", "3000"}}, []production.Status{production.StatusCANCELLED}, false},
		{"FG-COOKIE12", "CK-2611-30", cookies, "20", day(80), []step{{"RM-FLOUR", "15000"}, {"RM-SUGAR", "4000"}, {"RM-CHOC", "2000"}}, []production.Status{production.StatusIN_PROGRESS, production.StatusCOMPLETED}, false},
		{"FG-BAR6", "BR-2611-30", bars, "10", day(170), []step{{"RM-SUGAR", "1500"}, {"RM-CHOC", "1000"}}, []production.Status{production.StatusIN_PROGRESS, production.StatusCOMPLETED}, true},
	}
	now := *day(9)
	for _, r := range runs {
		plan := manufacturing.Plan{LineID: &r.line, LotNumber: &r.lot, ExpirationDate: r.expires}
		if plan.ProductID, err = product(r.product); err != nil {
			return fmt.Errorf("%s: %w", r.product, err)
		}
		q := decimal.RequireFromString(r.qty)
		plan.Quantity = &q
		for _, s := range r.steps {
			id, err := product(s.code)
			if err != nil {
				return fmt.Errorf("%s: %w", s.code, err)
			}
			plan.Steps = append(plan.Steps, manufacturing.Step{ProductID: id, QuantityBase: decimal.RequireFromString(s.qty)})
		}
		run, err := manufacturing.Create(ctx, tx, plan)
		if err != nil {
			return fmt.Errorf("run %s: %w", r.lot, err)
		}
		for _, to := range r.to {
			switch to {
			case production.StatusIN_PROGRESS:
				_, err = manufacturing.Start(ctx, tx, run.ID, now)
			case production.StatusCOMPLETED:
				_, err = manufacturing.Complete(ctx, tx, run.ID, manufacturing.Completion{}, now.Add(8*time.Hour))
			case production.StatusIN_PROGRESS_TRANSFORMATION:
				err = tx.Production.UpdateOneID(run.ID).SetStatus(to).Exec(ctx)
			default:
				_, err = manufacturing.ChangeStatus(ctx, tx, run.ID, to)
			}
			if err != nil {
				return fmt.Errorf("run %s to %s: %w", r.lot, to, err)
			}
		}
		if r.signed {
			if _, err := manufacturing.Sign(ctx, tx, run.ID); err != nil {
				return fmt.Errorf("sign run %s: %w", r.lot, err)
			}
		}
	}
	return nil
}

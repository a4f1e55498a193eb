package seed

import (
	"context"
	"encoding/json"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/nutrient"
	"larder.dev/larder/ent/qccheckpoint"
	"larder.dev/larder/ent/qcunitofmeasure"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/platform/address"
	"larder.dev/larder/internal/seed/refdata"
)

// The test account's catalog: a bakery and snack plant making chocolate chip
// cookies and honey almond granola bars. Every product_type, kind and QC
// input_type occurs; costs and unit conversions other than 1 are set.

// supplierRows are the account's suppliers: every approval status (one
// approval expired, so it reads PENDING, and one ending within 30 days),
// every certification scheme and one with none recorded (one certification
// expired, one ending within 30 days), with and without an address. Expiries
// are days from the seeding day (calendar).
var supplierRows = []struct {
	code, company, contact, email, city, province string
	approval                                      supplier.ApprovalStatus
	approvalExpiry                                *int // nil for none
	scheme                                        supplier.CertificationScheme
	certExpires                                   *int
}{
	{"MILL", "Prairie Mills Ltd.", "Dana Kowalski", "orders@prairiemills.example", "Saskatoon", "SK", "APPROVED", days(1318), "SQF", days(192)},
	{"SWEET", "Sweetwater Sugar Co.", "Ben Hart", "sales@sweetwater.example", "Taber", "AB", "APPROVED", nil, "BRC", days(314)},
	{"DAIRY", "Laiterie des Cantons", "Julie Fortin", "ventes@laiterie.example", "Sherbrooke", "QC", "APPROVED", days(-324), "GFSCANADA", days(20)},
	{"NUTS", "Okanagan Nut Growers", "Raj Patel", "raj@okanagan-nuts.example", "Kelowna", "BC", "PENDING", nil, "GLOBALGAP", days(131)},
	{"PACK", "Northern Packaging Inc.", "Chris Olsen", "cs@northernpack.example", "Mississauga", "ON", "APPROVED", days(25), "IFS", days(72)},
	{"CACAO", "Cacao Imports Atlantic", "Ana Souza", "ana@cacao-atlantic.example", "Halifax", "NS", "SUSPENDED", nil, "SSC22000", days(-143)},
	{"SPICE", "Spice Route Traders", "Omar Haddad", "omar@spiceroute.example", "Montréal", "QC", "REJECTED", nil, "OTHER", nil},
	{"OATS", "Prairie Oat Co-operative", "Lena Berg", "lena@oatcoop.example", "Brandon", "MB", "APPROVED", days(1137), "GAP", days(284)},
	{"EGGS", "Oeufs Beauce", "Marc Poulin", "marc@oeufsbeauce.example", "Saint-Georges", "QC", "PENDING", nil, "PRIMUS", days(100)},
	{"HONEY", "Hive & Co. Honey", "Greta Lund", "greta@hive.example", "Peace River", "AB", "PENDING", nil, "GFSI", days(161)},
	{"FARM", "Ferme du Coin", "Luc Gagné", "", "Lévis", "QC", "PENDING", nil, "NONE", nil},
	{"NEWCO", "New Supplier Inc.", "", "", "", "", "PENDING", nil, "", nil},
}

func seedSuppliers(ctx context.Context, tx *ent.Tx, cal calendar) error {
	return bulk(ctx, "suppliers", supplierCreates(tx, "", cal), tx.Supplier.CreateBulk)
}

// supplierCreates are the builders of supplierRows, codes and names
// suffixed, dated by cal.
func supplierCreates(tx *ent.Tx, suffix string, cal calendar) []*ent.SupplierCreate {
	bs := make([]*ent.SupplierCreate, len(supplierRows))
	for i, s := range supplierRows {
		b := tx.Supplier.Create().
			SetSupplierCode(s.code + suffix).
			SetCompany(s.company + suffix).
			SetNillableContactName(optional(s.contact)).
			SetNillableEmail(optional(s.email)).
			SetApprovalStatus(s.approval).
			SetNillableApprovalExpiry(cal.on(s.approvalExpiry)).
			SetNillableCertificationExpiresOn(cal.on(s.certExpires))
		if s.scheme != "" {
			b.SetCertificationScheme(s.scheme)
		}
		if s.city != "" {
			b.SetAddress(address.Address{Line1: optional(fmt.Sprintf("%d Industrial Road", 100+10*i)), City: optional(s.city), State: optional(s.province), PostalCode: optional("A1A 1A1")})
		}
		bs[i] = b
	}
	return bs
}

// checkpointRows cover every input_type.
var checkpointRows = []struct {
	code, name, about, input, pass, unit string
	critical                             bool
}{
	{"OVEN-TEMP", "Oven temperature", "Probe the oven at the start of each batch: 175–185 °C.", "RANGE", "", "C", true},
	{"METAL", "Metal detector", "Test wands (Fe 2.0 mm, non-Fe 2.5 mm, SS 3.0 mm) are rejected.", "YES_NO", "YES", "", true},
	{"SEAL", "Package seal intact", "Check every flow-wrap seal on five packs.", "CHECKBOX", "", "", false},
	{"COLOUR", "Bake colour", "Compare with the colour card: light, golden or dark.", "RADIO", "", "", false},
	{"NOTES", "Line notes", "Anything unusual on the line.", "TEXTAREA", "", "", false},
	{"WEIGHT", "Pack weight", "Net weight of one pack.", "NUMBER", "", "G", true},
	{"AW", "Water activity", "Granola base after baking: at most 0.60.", "RANGE", "", "AW", true},
}

func seedCheckpoints(ctx context.Context, tx *ent.Tx) error {
	return seedCheckpointsAs(ctx, tx, "")
}

func seedCheckpointsAs(ctx context.Context, tx *ent.Tx, suffix string) error {
	units, err := qcUnits(ctx, tx)
	if err != nil {
		return err
	}
	bs, err := checkpointCreates(tx, suffix, units)
	if err != nil {
		return err
	}
	return bulk(ctx, "QC checkpoints", bs, tx.QCCheckpoint.CreateBulk)
}

// qcUnits are the ids of the shared QC units by code.
func qcUnits(ctx context.Context, tx *ent.Tx) (map[string]int, error) {
	units, err := tx.QCUnitOfMeasure.Query().Where(qcunitofmeasure.IsGlobal(true)).All(ctx)
	if err != nil {
		return nil, err
	}
	byCode := map[string]int{}
	for _, u := range units {
		byCode[u.Code] = u.ID
	}
	return byCode, nil
}

// checkpointCreates are the builders of checkpointRows, codes suffixed, with
// the shared QC units byCode.
func checkpointCreates(tx *ent.Tx, suffix string, byCode map[string]int) ([]*ent.QCCheckpointCreate, error) {
	bs := make([]*ent.QCCheckpointCreate, len(checkpointRows))
	for i, c := range checkpointRows {
		b := tx.QCCheckpoint.Create().
			SetCode(c.code + suffix).
			SetName(c.name).
			SetDescription(c.about).
			SetInputType(qcInput(c.input)).
			SetIsCritical(c.critical)
		if c.pass != "" {
			b.SetPassValue(qcPass(c.pass))
		}
		if c.unit != "" {
			id, ok := byCode[c.unit]
			if !ok {
				return nil, fmt.Errorf("no shared QC unit %s", c.unit)
			}
			b.SetQcUnitOfMeasureID(id)
		}
		bs[i] = b
	}
	return bs, nil
}

// houseFood is the account's own food, with values it measured itself.
func seedFoods(ctx context.Context, tx *ent.Tx) error {
	f, err := tx.Food.Create().
		SetName("House caramel").
		SetNameFr("Caramel maison").
		SetSource("Laboratory analysis, batch C-2026-031").
		SetSuggestedYieldDescription("Cooking loss from sugar, cream and butter").
		SetSuggestedYieldPct(88).
		Save(ctx)
	if err != nil {
		return err
	}
	values := map[string]float64{"ENERC_KCAL": 408, "FAT": 17.2, "FASAT": 10.9, "CHOCDF": 62.1, "SUGAR": 58.3, "PROCNT": 1.9, "NA": 210, "CHOLE": 45}
	ns, err := tx.Nutrient.Query().Where(nutrient.IsGlobal(true), nutrient.KeyIn(keys(values)...)).Order(ent.Asc(nutrient.FieldKey)).All(ctx)
	if err != nil {
		return err
	}
	bs := make([]*ent.FoodNutrientCreate, len(ns))
	for i, n := range ns {
		bs[i] = tx.FoodNutrient.Create().SetFoodID(f.ID).SetNutrientID(n.ID).SetValue(values[n.Key])
	}
	return bulk(ctx, "food nutrient values", bs, tx.FoodNutrient.CreateBulk)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func seedProducts(ctx context.Context, tx *ent.Tx) error {
	recs, err := productRecords("")
	if err != nil {
		return err
	}
	lines := make([]catalog.Line, len(recs))
	for i, r := range recs {
		lines[i] = catalog.Line{N: i + 1, R: r}
	}
	_, err = catalog.ImportTx(ctx, tx, lines, nil)
	return err
}

// productRecords is the catalog in the import format; suffix makes a copy's
// codes and names distinct (scale seeding).
func productRecords(suffix string) ([]catalog.Record, error) {
	foods, err := refdata.Foods()
	if err != nil {
		return nil, err
	}
	food := map[string]string{}
	for _, f := range foods {
		food[f.Key] = f.Name
	}
	s := func(v string) *string { return &v }
	f := func(v float64) *float64 { return &v }
	n := func(v string) *json.Number { x := json.Number(v); return &x }
	i := func(v int) *int { return &v }
	no := false
	code := func(c string) string { return c + suffix }
	codes := func(cs ...string) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = code(c)
		}
		return out
	}
	material := func(c, name, typ, foodKey, cost, unit, base string, qty, conv float64, shelf int, suppliers ...string) catalog.Record {
		r := catalog.Record{
			ProductCode: code(c), Name: s(name + suffix), ProductType: typ,
			Cost: n(cost), UnitOfMeasure: s(unit), UomBase: s(base), UomQty: f(qty), UomBaseConversion: f(conv),
			ShelfLife: i(shelf), Suppliers: codes(suppliers...),
		}
		if foodKey != "" {
			r.Food = s(food[foodKey])
		}
		return r
	}
	recs := []catalog.Record{
		material("RM-FLOUR", "All-purpose wheat flour", "RAW_MATERIAL", "wheat_flour_ap", "21.75", "bag25", "g", 1, 25000, 365, "MILL"),
		material("RM-OATS", "Rolled oats", "RAW_MATERIAL", "rolled_oats", "32.40", "bag25", "g", 1, 25000, 365, "MILL"),
		material("RM-SUGAR", "Granulated sugar", "RAW_MATERIAL", "sugar_granulated", "1.18", "kg", "g", 1, 1000, 730, "SWEET"),
		material("RM-BROWN", "Brown sugar", "RAW_MATERIAL", "sugar_brown", "1.42", "kg", "g", 1, 1000, 540, "SWEET"),
		material("RM-HONEY", "Clover honey", "RAW_MATERIAL", "honey", "6.90", "kg", "g", 1, 1000, 730, "SWEET"),
		material("RM-BUTTER", "Unsalted butter (case of 36 × 454 g)", "RAW_MATERIAL", "butter_unsalted", "162.50", "case", "g", 36, 454, 120, "DAIRY"),
		material("RM-EGG", "Whole eggs (case of 15 dozen)", "RAW_MATERIAL", "egg_whole_raw", "58.20", "case", "each", 15, 12, 35, "DAIRY"),
		material("RM-MILKPWD", "Skim milk powder", "RAW_MATERIAL", "skim_milk_powder", "7.85", "kg", "g", 1, 1000, 540, "DAIRY"),
		material("RM-CHOC", "Semisweet chocolate chips", "RAW_MATERIAL", "chocolate_semisweet", "11.40", "kg", "g", 1, 1000, 365, "SWEET"),
		material("RM-ALMOND", "Almonds, sliced", "RAW_MATERIAL", "almonds", "14.95", "kg", "g", 1, 1000, 270, "NUTS"),
		material("RM-HAZEL", "Hazelnuts", "RAW_MATERIAL", "hazelnuts", "17.30", "kg", "g", 1, 1000, 270, "NUTS"),
		material("RM-CARAMEL", "House caramel", "RAW_MATERIAL", "", "5.60", "kg", "g", 1, 1000, 60),
		material("RM-SALT", "Fine salt", "RAW_MATERIAL", "salt_table", "0.62", "kg", "g", 1, 1000, 1825, "SWEET"),
		material("RM-SODA", "Baking soda", "RAW_MATERIAL", "baking_soda", "2.10", "kg", "g", 1, 1000, 730, "SWEET"),
		material("RM-VANILLA", "Pure vanilla extract", "RAW_MATERIAL", "vanilla_extract", "0.19", "mL", "mL", 1, 1, 1095, "SWEET"),
		material("PK-BOX12", "Cookie box, 12 count", "PACKAGING", "", "0.34", "each", "each", 1, 1, 0, "PACK"),
		material("PK-FILM", "Flow-wrap film roll (1,000 wraps)", "PACKAGING", "", "41.00", "unit", "each", 1, 1000, 0, "PACK"),
		material("PK-CASE", "Shipping case (holds 12 boxes)", "PACKAGING", "", "0.88", "each", "each", 1, 1, 0, "PACK"),
		material("MS-SANITIZER", "Food-contact surface sanitizer", "MISCELLANEOUS", "", "38.00", "case", "L", 4, 3.78, 730),
		material("MS-LABEL", "Nutrition Facts labels (roll of 2,500)", "MISCELLANEOUS", "", "27.50", "unit", "each", 1, 2500, 0, "PACK"),
	}
	recs[12].Active = &no // fine salt: replaced by the supplier's new grade
	recs[9].Substitutes = codes("RM-HAZEL")
	recs[9].BannedCountries = []string{"IR"}
	recs[10].BannedCountries = []string{"IR", "TR"}
	recs[1].Tags = []string{"Organic"}
	recs[11].Food = s("House caramel")
	recs[8].Allergens = []catalog.AllergenRef{{Allergen: "MILK", Source: "may contain"}, {Allergen: "SOY"}}
	recs[9].Allergens = []catalog.AllergenRef{{Allergen: "TREE_NUT"}}
	recs[10].Allergens = []catalog.AllergenRef{{Allergen: "TREE_NUT"}}
	recs[0].Allergens = []catalog.AllergenRef{{Allergen: "WHEAT"}, {Allergen: "GLUTEN"}}
	recs[1].Allergens = []catalog.AllergenRef{{Allergen: "GLUTEN", Source: "may contain"}}
	recs[5].Allergens = []catalog.AllergenRef{{Allergen: "MILK"}}
	recs[6].Allergens = []catalog.AllergenRef{{Allergen: "EGG"}}
	recs[7].Allergens = []catalog.AllergenRef{{Allergen: "MILK"}}

	recipe := func(c, name, typ, cost, ops, unit, base string, qty, conv float64, shelf int, portion, yield float64) catalog.Record {
		return catalog.Record{
			ProductCode: code(c), Name: s(name + suffix), ProductType: typ,
			Cost: n(cost), OperationsCost: n(ops), UnitOfMeasure: s(unit), UomBase: s(base), UomQty: f(qty), UomBaseConversion: f(conv),
			ShelfLife: i(shelf), PortionInGrams: f(portion), RecipeGramsYield: f(yield),
		}
	}
	dough := recipe("SR-DOUGH", "Chocolate chip cookie dough", "SUB_RECIPE", "3.12", "0.41", "kg", "g", 1, 1000, 5, 30, 48000)
	dough.Description = s("Made the day before and rested overnight at 4 °C.")
	dough.Allergens = []catalog.AllergenRef{{Allergen: "WHEAT", Source: code("RM-FLOUR")}, {Allergen: "GLUTEN", Source: code("RM-FLOUR")}, {Allergen: "MILK", Source: code("RM-BUTTER")}, {Allergen: "EGG", Source: code("RM-EGG")}, {Allergen: "SOY", Source: code("RM-CHOC")}}
	dough.IngredientsEn = s("Chocolate chips (sugar, chocolate liquor, cocoa butter, soy lecithin, vanilla), wheat flour, butter, brown sugar, sugar, eggs, vanilla extract, baking soda, salt.")
	dough.IngredientsFr = s("Pépites de chocolat (sucre, liqueur de chocolat, beurre de cacao, lécithine de soya, vanille), farine de blé, beurre, cassonade, sucre, œufs, extrait de vanille, bicarbonate de soude, sel.")
	dough.QCCheckpoints = codes("NOTES")

	granola := recipe("SR-GRANOLA", "Honey almond granola base", "SUB_RECIPE", "4.05", "0.52", "kg", "g", 1, 1000, 90, 40, 30000)
	granola.Allergens = []catalog.AllergenRef{{Allergen: "TREE_NUT", Source: code("RM-ALMOND")}, {Allergen: "GLUTEN", Source: "may contain"}, {Allergen: "MILK", Source: code("RM-MILKPWD")}}
	granola.IngredientsEn = s("Rolled oats, honey, almonds, brown sugar, skim milk powder, salt.")
	granola.IngredientsFr = s("Flocons d'avoine, miel, amandes, cassonade, lait écrémé en poudre, sel.")
	granola.QCCheckpoints = codes("AW", "OVEN-TEMP")
	granola.Tags = []string{"Organic"}

	cookies := recipe("RC-COOKIE", "Chocolate chip cookies, baked (batch)", "RECIPE", "3.48", "0.96", "tray", "each", 1, 24, 10, 30, 45600)
	cookies.Allergens = dough.Allergens
	cookies.IngredientsEn, cookies.IngredientsFr = dough.IngredientsEn, dough.IngredientsFr
	cookies.QCCheckpoints = codes("OVEN-TEMP", "COLOUR")
	cookies.Byproducts = codes("RC-CRUMBS")

	crumbs := recipe("RC-CRUMBS", "Cookie crumbs (rework)", "RECIPE", "1.10", "0.05", "kg", "g", 1, 1000, 30, 30, 1000)
	crumbs.Allergens = dough.Allergens
	crumbs.Description = s("Broken cookies milled for the granola line.")

	bars := recipe("RC-BAR", "Honey almond granola bars, cut (batch)", "RECIPE", "2.95", "0.74", "tray", "each", 1, 40, 90, 40, 32000)
	bars.Allergens = granola.Allergens
	bars.IngredientsEn, bars.IngredientsFr = granola.IngredientsEn, granola.IngredientsFr
	bars.QCCheckpoints = codes("AW", "COLOUR")

	box := recipe("FG-COOKIE12", "Chocolate chip cookies, box of 12", "FINISHED_GOOD", "4.71", "0.38", "case", "each", 12, 1, 90, 30, 360)
	box.Description = s("Twelve 30 g cookies in a window box.")
	box.Allergens = dough.Allergens
	box.IngredientsEn, box.IngredientsFr = dough.IngredientsEn, dough.IngredientsFr
	box.QCCheckpoints = codes("METAL", "WEIGHT", "SEAL")
	box.Tags = []string{"Seasonal"}

	pack := recipe("FG-BAR6", "Honey almond granola bars, 6-pack", "FINISHED_GOOD", "3.26", "0.29", "case", "each", 24, 1, 180, 40, 240)
	pack.Allergens = granola.Allergens
	pack.IngredientsEn, pack.IngredientsFr = granola.IngredientsEn, granola.IngredientsFr
	pack.QCCheckpoints = codes("METAL", "WEIGHT", "SEAL", "NOTES")
	pack.Tags = []string{"Organic", "Gluten-free"}
	pack.Active = &no
	pack.Description = s("Discontinued: replaced by the 8-pack.")

	recs = append(recs, dough, granola, cookies, crumbs, bars, box, pack)
	if suffix != "" {
		for i := range recs {
			recs[i].Tags = nil // tags are per account names; copies carry none
			if recs[i].Food != nil && *recs[i].Food == "House caramel" {
				recs[i].Food = nil
			}
		}
	}
	return recs, nil
}

func qcInput(v string) qccheckpoint.InputType { return qccheckpoint.InputType(v) }
func qcPass(v string) qccheckpoint.PassValue  { return qccheckpoint.PassValue(v) }

// optional is v, or nil for "" (a field the row leaves unset).
func optional(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

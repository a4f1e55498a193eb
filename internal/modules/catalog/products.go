package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/allergen"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productallergen"
	"larder.dev/larder/ent/productbannedcountry"
	"larder.dev/larder/ent/productbyproduct"
	"larder.dev/larder/ent/productqccheckpoint"
	"larder.dev/larder/ent/productsubstitute"
	"larder.dev/larder/ent/productsupplier"
	"larder.dev/larder/ent/producttag"
	"larder.dev/larder/ent/recipestep"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/hooks"
	"larder.dev/larder/policy"
)

// Text limits of an imported product (the API shows products only, so these
// are the web application's limits).
const (
	maxCode        = 100
	maxName        = 200
	maxDescription = 2000
	maxIngredients = 5000
	maxRouting     = 100
)

// ImportResult counts what an import did.
type ImportResult struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
}

// Progress is told how many of total records are done.
type Progress func(done, total int)

// Import upserts the records by product_code into the account of the viewer
// in ctx (an app viewer), in one transaction: first every record is checked
// and every problem reported with its line (*FileError, nothing written), then
// new products are created and changed ones updated, each with its event
// (source app). A record equal to the product it names is left alone.
func Import(ctx context.Context, c *ent.Client, lines []Line, progress Progress) (ImportResult, error) {
	var res ImportResult
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		var err error
		res, err = ImportTx(ctx, tx, lines, progress)
		return err
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// Check reports the problems Import would find in the records, writing
// nothing: for a file that also has lines that did not parse, so that one
// report names every problem and nothing is imported.
func Check(ctx context.Context, c *ent.Client, lines []Line) ([]LineError, error) {
	refs, err := loadRefs(ctx, c)
	if err != nil {
		return nil, err
	}
	return refs.validate(lines), nil
}

// ImportTx is Import within the transaction tx (the seed of a new test
// account imports its products in the transaction that creates the account).
func ImportTx(ctx context.Context, tx *ent.Tx, lines []Line, progress Progress) (ImportResult, error) {
	var res ImportResult
	c := tx.Client()
	refs, err := loadRefs(ctx, c)
	if err != nil {
		return res, err
	}
	if errs := refs.validate(lines); len(errs) > 0 {
		return res, &FileError{Problems: errs}
	}
	current, err := exportAll(ctx, c, refs, true) // a deleted product named again is revived
	if err != nil {
		return res, err
	}
	byCode := map[string]Record{}
	for _, r := range current {
		byCode[r.ProductCode] = r
	}
	// Pass 1: the product rows, so records can name products that come later.
	var changed []Line
	for i, l := range lines {
		old, exists := byCode[l.R.ProductCode]
		id, found := refs.products[l.R.ProductCode]
		switch {
		case exists && sameRecord(old, l.R):
			res.Unchanged++
			continue
		case found:
			u := tx.Product.UpdateOneID(id)
			refs.apply(u.Mutation(), l.R)
			u.SetIsDeleted(false)
			if err := u.Exec(ctx); err != nil {
				return res, fmt.Errorf("line %d: %w", l.N, err)
			}
			res.Updated++
		default:
			b := tx.Product.Create()
			refs.apply(b.Mutation(), l.R)
			p, err := b.Save(ctx)
			if err != nil {
				return res, fmt.Errorf("line %d: %w", l.N, err)
			}
			refs.products[l.R.ProductCode] = p.ID
			res.Created++
		}
		changed = append(changed, l)
		if progress != nil && i%500 == 0 {
			progress(i/2, len(lines))
		}
	}
	// Pass 2: the join rows of every created or changed product.
	for i, l := range changed {
		if err := refs.replaceLinks(ctx, tx, refs.products[l.R.ProductCode], l.R); err != nil {
			return res, fmt.Errorf("line %d: %w", l.N, err)
		}
		if progress != nil && i%500 == 0 {
			progress(len(lines)/2+i*len(lines)/(2*len(changed)), len(lines))
		}
	}
	if progress != nil {
		progress(len(lines), len(lines))
	}
	return res, nil
}

// Export writes every product of the viewer's account that is not deleted, by
// product_code, in the import format.
func Export(ctx context.Context, c *ent.Client, w *Writer) (int, error) {
	refs, err := loadRefs(ctx, c)
	if err != nil {
		return 0, err
	}
	recs, err := exportAll(ctx, c, refs, true)
	if err != nil {
		return 0, err
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			return 0, err
		}
	}
	return len(recs), w.Flush()
}

// Delete marks the product with the code deleted and inactive (it stays
// readable for the records that reference it) and emits product.deleted.
func Delete(ctx context.Context, c *ent.Client, code string) (*ent.Product, error) {
	var out *ent.Product
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		p, err := tx.Product.Query().Where(product.ProductCode(code), product.IsDeleted(false)).Only(ctx)
		if ent.IsNotFound(err) {
			return fmt.Errorf("no product with product_code %q", code)
		}
		if err != nil {
			return err
		}
		out, err = tx.Product.UpdateOne(p).
			SetIsDeleted(true).
			SetActive(false).
			Save(hooks.EmitAs(ctx, "deleted"))
		return err
	})
	return out, err
}

// exportAll builds the records of the account's products, in product_code order.
func exportAll(ctx context.Context, c *ent.Client, refs *refs, liveOnly bool) ([]Record, error) {
	q := c.Product.Query().
		WithTags().
		WithAllergens().
		WithBannedCountries().
		WithSubstitutes().
		WithSuppliers().
		WithByproducts().
		WithQcCheckpoints().
		WithRecipeSteps(func(q *ent.RecipeStepQuery) { q.Order(recipestep.ByPosition()) }).
		Order(ent.Asc(product.FieldProductCode), ent.Asc(product.FieldID))
	if liveOnly {
		q.Where(product.IsDeleted(false))
	}
	ps, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(ps))
	for _, p := range ps {
		if p.ProductCode == nil {
			continue // not addressable by a file
		}
		out = append(out, refs.record(p))
	}
	return out, nil
}

// sameRecord compares records as an import would store them.
func sameRecord(a, b Record) bool {
	return reflect.DeepEqual(normal(a), normal(b))
}

func normal(r Record) Record {
	if r.Active == nil {
		t := true
		r.Active = &t
	}
	num := func(n *json.Number) *json.Number {
		if n == nil {
			return nil
		}
		d, err := decimal.NewFromString(n.String())
		if err != nil {
			return n
		}
		s := json.Number(d.String())
		return &s
	}
	r.Cost, r.OperationsCost = num(r.Cost), num(r.OperationsCost)
	for i := range r.Allergens {
		if r.Allergens[i].Source == "" {
			r.Allergens[i].Source = "declared"
		}
	}
	if len(r.Routing) == 0 {
		r.Routing = nil // in order: a routing is a sequence, not a set
	}
	for _, l := range []*[]string{&r.Tags, &r.BannedCountries, &r.Substitutes, &r.Suppliers, &r.QCCheckpoints, &r.Byproducts} {
		if len(*l) == 0 {
			*l = nil
			continue
		}
		s := append([]string(nil), (*l)...)
		sort.Strings(s)
		*l = s
	}
	if len(r.Allergens) == 0 {
		r.Allergens = nil
	} else {
		a := append([]AllergenRef(nil), r.Allergens...)
		sort.Slice(a, func(i, j int) bool { return a[i].Allergen < a[j].Allergen })
		r.Allergens = a
	}
	return r
}

// record converts a product with its loaded join rows to a file record.
func (x *refs) record(p *ent.Product) Record {
	r := Record{
		ProductCode:       *p.ProductCode,
		Name:              p.Name,
		Description:       p.Description,
		ProductType:       string(p.ProductType),
		Active:            &p.Active,
		ShelfLife:         p.ShelfLife,
		UomQty:            p.UomQty,
		UomBaseConversion: p.UomBaseConversion,
		Cost:              number(p.Cost),
		OperationsCost:    number(p.OperationsCost),
		UnitOfMeasure:     x.unitCode(p.UnitOfMeasureID),
		UomBase:           x.unitCode(p.UomBaseID),
	}
	for _, t := range p.Edges.Tags {
		r.Tags = append(r.Tags, x.tagNames[t.TagID])
	}
	for _, a := range p.Edges.Allergens {
		r.Allergens = append(r.Allergens, AllergenRef{Allergen: x.allergenKeys[a.AllergenID], Source: a.Source})
	}
	if hooks.KindOf(p.ProductType) == product.KindMaterial {
		if p.FoodID != nil {
			n := x.foodNames[*p.FoodID]
			r.Food = &n
		}
		for _, b := range p.Edges.BannedCountries {
			r.BannedCountries = append(r.BannedCountries, x.countryCodes[b.CountryID])
		}
		for _, s := range p.Edges.Substitutes {
			r.Substitutes = append(r.Substitutes, x.productCodes[s.SubstituteID])
		}
		for _, s := range p.Edges.Suppliers {
			r.Suppliers = append(r.Suppliers, x.supplierCodes[s.SupplierID])
		}
	} else {
		r.IngredientsEn, r.IngredientsFr = p.IngredientsEn, p.IngredientsFr
		r.PortionInGrams, r.RecipeGramsYield = p.PortionInGrams, p.RecipeGramsYield
		for _, q := range p.Edges.QcCheckpoints {
			r.QCCheckpoints = append(r.QCCheckpoints, x.qcCodes[q.QcCheckpointID])
		}
		for _, b := range p.Edges.Byproducts {
			r.Byproducts = append(r.Byproducts, x.productCodes[b.ByproductID])
		}
		for _, s := range p.Edges.RecipeSteps {
			step := x.operationCodes[s.OperationID]
			if s.EquipmentID != nil {
				step += "@" + x.equipmentCodes[*s.EquipmentID]
			}
			r.Routing = append(r.Routing, step)
		}
	}
	return r
}

func number(d *decimal.Decimal) *json.Number {
	if d == nil {
		return nil
	}
	n := json.Number(d.String())
	return &n
}

// apply sets a product's own fields from a validated record, clearing what
// the record leaves out.
func (x *refs) apply(m *ent.ProductMutation, r Record) {
	m.SetProductCode(r.ProductCode)
	m.SetProductType(product.ProductType(r.ProductType))
	active := true
	if r.Active != nil {
		active = *r.Active
	}
	m.SetActive(active)
	setOrClear(r.Name, m.SetName, m.ClearName)
	setOrClear(r.Description, m.SetDescription, m.ClearDescription)
	setOrClear(r.ShelfLife, m.SetShelfLife, m.ClearShelfLife)
	setOrClear(r.UomQty, m.SetUomQty, m.ClearUomQty)
	setOrClear(r.UomBaseConversion, m.SetUomBaseConversion, m.ClearUomBaseConversion)
	setOrClear(dec(r.Cost), m.SetCost, m.ClearCost)
	setOrClear(dec(r.OperationsCost), m.SetOperationsCost, m.ClearOperationsCost)
	setOrClear(x.unitID(r.UnitOfMeasure), m.SetUnitOfMeasureID, m.ClearUnitOfMeasureID)
	setOrClear(x.unitID(r.UomBase), m.SetUomBaseID, m.ClearUomBaseID)
	var food *int
	if r.Food != nil {
		id := x.foods[*r.Food]
		food = &id
	}
	setOrClear(food, m.SetFoodID, m.ClearFoodID)
	setOrClear(r.IngredientsEn, m.SetIngredientsEn, m.ClearIngredientsEn)
	setOrClear(r.IngredientsFr, m.SetIngredientsFr, m.ClearIngredientsFr)
	setOrClear(r.PortionInGrams, m.SetPortionInGrams, m.ClearPortionInGrams)
	setOrClear(r.RecipeGramsYield, m.SetRecipeGramsYield, m.ClearRecipeGramsYield)
}

func setOrClear[T any](v *T, set func(T), clear func()) {
	if v != nil {
		set(*v)
	} else {
		clear()
	}
}

func dec(n *json.Number) *decimal.Decimal {
	if n == nil {
		return nil
	}
	d := decimal.RequireFromString(n.String()) // validated
	return &d
}

// replaceLinks replaces the join rows of product id with the record's.
func (x *refs) replaceLinks(ctx context.Context, tx *ent.Tx, id int, r Record) error {
	steps := []func() error{
		func() error {
			_, err := tx.ProductTag.Delete().Where(producttag.ProductID(id)).Exec(ctx)
			return err
		},
		func() error {
			_, err := tx.ProductAllergen.Delete().Where(productallergen.ProductID(id)).Exec(ctx)
			return err
		},
		func() error {
			_, err := tx.ProductBannedCountry.Delete().Where(productbannedcountry.ProductID(id)).Exec(ctx)
			return err
		},
		func() error {
			_, err := tx.ProductSubstitute.Delete().Where(productsubstitute.ProductID(id)).Exec(ctx)
			return err
		},
		func() error {
			_, err := tx.ProductSupplier.Delete().Where(productsupplier.ProductID(id)).Exec(ctx)
			return err
		},
		func() error {
			_, err := tx.ProductByproduct.Delete().Where(productbyproduct.ProductID(id)).Exec(ctx)
			return err
		},
		func() error {
			_, err := tx.ProductQCCheckpoint.Delete().Where(productqccheckpoint.ProductID(id)).Exec(ctx)
			return err
		},
		func() error {
			_, err := tx.RecipeStep.Delete().Where(recipestep.ProductID(id)).Exec(ctx)
			return err
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return x.link(ctx, tx, id, r)
}

// link inserts the join rows of product id from the record.
func (x *refs) link(ctx context.Context, tx *ent.Tx, id int, r Record) error {
	b := &linkBatch{tx: tx, acct: policy.FromContext(ctx).AccountID}
	x.addLinks(b, id, r)
	return b.flush(ctx, true)
}

// refs resolves the codes and names a file uses, within what the viewer sees.
type refs struct {
	units, tags, allergens, foods, countries, suppliers, qcs, products map[string]int
	operations, equipment                                              map[string]int
	ambiguousFoods                                                     map[string]bool
	unitCodes, tagNames, allergenKeys, foodNames                       map[int]string
	countryCodes, supplierCodes, qcCodes, productCodes                 map[int]string
	operationCodes, equipmentCodes                                     map[int]string
}

func loadRefs(ctx context.Context, c *ent.Client) (*refs, error) {
	x := &refs{
		units: map[string]int{}, tags: map[string]int{}, allergens: map[string]int{}, foods: map[string]int{},
		countries: map[string]int{}, suppliers: map[string]int{}, qcs: map[string]int{}, products: map[string]int{},
		ambiguousFoods: map[string]bool{},
		unitCodes:      map[int]string{}, tagNames: map[int]string{}, allergenKeys: map[int]string{}, foodNames: map[int]string{},
		countryCodes: map[int]string{}, supplierCodes: map[int]string{}, qcCodes: map[int]string{}, productCodes: map[int]string{},
		operations: map[string]int{}, equipment: map[string]int{}, operationCodes: map[int]string{}, equipmentCodes: map[int]string{},
	}
	units, err := c.UnitOfMeasure.Query().All(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range units {
		x.units[u.Code], x.unitCodes[u.ID] = u.ID, u.Code
	}
	tags, err := c.Tag.Query().Where(tag.RefTypeEQ(tag.RefTypePRODUCT)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tags {
		x.tags[t.Name], x.tagNames[t.ID] = t.ID, t.Name
	}
	// An allergen is named by its code, or by its name when it has none; the
	// account's own allergen wins over a shared one of the same name.
	allergens, err := c.Allergen.Query().Order(ent.Desc(allergen.FieldIsGlobal), ent.Asc(allergen.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range allergens {
		key := a.Name
		if a.Code != nil {
			key = *a.Code
			x.allergens[a.Name] = a.ID
		}
		x.allergens[key], x.allergenKeys[a.ID] = a.ID, key
	}
	foods, err := c.Food.Query().All(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range foods {
		if f.Name == nil {
			continue
		}
		if prev, ok := x.foods[*f.Name]; ok && prev != f.ID {
			x.ambiguousFoods[*f.Name] = true
		}
		x.foods[*f.Name], x.foodNames[f.ID] = f.ID, *f.Name
	}
	countries, err := c.Country.Query().All(ctx)
	if err != nil {
		return nil, err
	}
	for _, k := range countries {
		x.countries[k.Code], x.countryCodes[k.ID] = k.ID, k.Code
	}
	suppliers, err := c.Supplier.Query().All(ctx)
	if err != nil {
		return nil, err
	}
	x.addSuppliers(suppliers)
	qcs, err := c.QCCheckpoint.Query().All(ctx)
	if err != nil {
		return nil, err
	}
	x.addQCs(qcs)
	ops, err := c.Operation.Query().All(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range ops {
		x.operations[o.Code], x.operationCodes[o.ID] = o.ID, o.Code
	}
	eqs, err := c.Equipment.Query().All(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range eqs {
		x.equipment[e.Code], x.equipmentCodes[e.ID] = e.ID, e.Code
	}
	var ps []struct {
		ID   int     `json:"id"`
		Code *string `json:"product_code"`
	}
	if err := c.Product.Query().Select(product.FieldID, product.FieldProductCode).Scan(ctx, &ps); err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.Code != nil {
			x.products[*p.Code], x.productCodes[p.ID] = p.ID, *p.Code
		}
	}
	return x, nil
}

func (x *refs) unitCode(id *int) *string {
	if id == nil {
		return nil
	}
	c := x.unitCodes[*id]
	return &c
}

func (x *refs) unitID(code *string) *int {
	if code == nil {
		return nil
	}
	id := x.units[*code]
	return &id
}

// What an import would do with a record, as Preview says it.
const (
	OutcomeNew       = "new"
	OutcomeUpdate    = "update"
	OutcomeUnchanged = "unchanged"
)

// Outcome is what importing one record would do: create it (OutcomeNew),
// update the record of its code (OutcomeUpdate), or leave that record as it
// is (OutcomeUnchanged).
type Outcome struct {
	Line int
	Code string
	Kind string
}

// Preview says, for each line of a checked file, what ImportTx would do
// with it in the account of ctx, writing nothing: the same comparison of
// codes and records the import makes.
func Preview(ctx context.Context, c *ent.Client, lines []Line) ([]Outcome, error) {
	refs, err := loadRefs(ctx, c)
	if err != nil {
		return nil, err
	}
	current, err := exportAll(ctx, c, refs, true)
	if err != nil {
		return nil, err
	}
	byCode := map[string]Record{}
	for _, r := range current {
		byCode[r.ProductCode] = r
	}
	out := make([]Outcome, len(lines))
	for i, l := range lines {
		old, exists := byCode[l.R.ProductCode]
		_, found := refs.products[l.R.ProductCode]
		o := Outcome{Line: l.N, Code: l.R.ProductCode, Kind: OutcomeNew}
		switch {
		case exists && sameRecord(old, l.R):
			o.Kind = OutcomeUnchanged
		case found:
			o.Kind = OutcomeUpdate
		}
		out[i] = o
	}
	return out, nil
}

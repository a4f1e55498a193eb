package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/qccheckpoint"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/hooks"
	"larder.dev/larder/policy"
)

// bulkSize keeps one INSERT under SQLite's and PostgreSQL's parameter limits.
const bulkSize = 400

// BulkCreate creates new products from records in multi-row inserts, for
// benchmark datasets: the records are validated like an import, but no event
// is written and every product_code must be new. ctx holds the app viewer of
// the account; the rows are written as the system, stamped with its account.
// It returns the number of rows written.
func BulkCreate(ctx context.Context, tx *ent.Tx, recs []Record) (int, error) {
	b, err := NewBulk(ctx, tx)
	if err != nil {
		return 0, err
	}
	return b.Create(ctx, tx, recs)
}

// Bulk is BulkCreate over many batches of one transaction: it reads the
// account's references once, keeps the products it creates, and reads again
// only the suppliers and QC checkpoints the records name that it has not
// seen (created between batches), so a batch costs the same however many
// came before.
type Bulk struct{ x *refs }

// NewBulk reads the references of the account of the app viewer in ctx.
func NewBulk(ctx context.Context, tx *ent.Tx) (*Bulk, error) {
	if policy.FromContext(ctx).AccountID == 0 {
		return nil, fmt.Errorf("bulk create needs an account viewer")
	}
	x, err := loadRefs(ctx, tx.Client())
	if err != nil {
		return nil, err
	}
	return &Bulk{x: x}, nil
}

// Create is BulkCreate of one batch.
func (b *Bulk) Create(ctx context.Context, tx *ent.Tx, recs []Record) (int, error) {
	_, rows, err := b.CreateProducts(ctx, tx, recs)
	return rows, err
}

// CreateProducts is Create, also returning the products it wrote, in the
// order of recs.
func (b *Bulk) CreateProducts(ctx context.Context, tx *ent.Tx, recs []Record) ([]*ent.Product, int, error) {
	// System viewer: benchmark datasets are written in bulk and without events, into the account the caller names.
	acct := policy.FromContext(ctx).AccountID
	if acct == 0 {
		return nil, 0, fmt.Errorf("bulk create needs an account viewer")
	}
	x := b.x
	if err := x.addNamed(ctx, tx.Client(), recs); err != nil {
		return nil, 0, err
	}
	lines := make([]Line, len(recs))
	for i, r := range recs {
		if _, taken := x.products[r.ProductCode]; taken {
			return nil, 0, fmt.Errorf("product_code %q exists already", r.ProductCode)
		}
		lines[i] = Line{N: i + 1, R: r}
	}
	if errs := x.validate(lines); len(errs) > 0 {
		return nil, 0, &FileError{Problems: errs}
	}
	sys := hooks.WithoutEvents(policy.System(ctx))
	rows := 0
	created := make([]*ent.Product, 0, len(recs))
	for start := 0; start < len(recs); start += bulkSize {
		chunk := recs[start:min(start+bulkSize, len(recs))]
		bs := make([]*ent.ProductCreate, len(chunk))
		for i, r := range chunk {
			b := tx.Product.Create().SetAccountID(acct)
			x.apply(b.Mutation(), r)
			bs[i] = b
		}
		ps, err := tx.Product.CreateBulk(bs...).Save(sys)
		if err != nil {
			return created, rows, fmt.Errorf("bulk products: %w", err)
		}
		for i, p := range ps {
			x.products[chunk[i].ProductCode] = p.ID
		}
		created = append(created, ps...)
		rows += len(ps)
	}
	links := &linkBatch{tx: tx, acct: acct}
	for _, r := range recs {
		x.addLinks(links, x.products[r.ProductCode], r)
		if err := links.flush(sys, false); err != nil {
			return created, rows, err
		}
	}
	if err := links.flush(sys, true); err != nil {
		return created, rows, err
	}
	return created, rows + links.rows, nil
}

// Know adds suppliers and QC checkpoints of the account that the caller
// wrote in this transaction, so that records naming them cost no query.
func (b *Bulk) Know(suppliers []*ent.Supplier, qcs []*ent.QCCheckpoint) {
	b.x.addSuppliers(suppliers)
	b.x.addQCs(qcs)
}

// addSuppliers makes suppliers known by code (those without a code cannot be
// named).
func (x *refs) addSuppliers(suppliers []*ent.Supplier) {
	for _, s := range suppliers {
		if s.SupplierCode != nil {
			x.suppliers[*s.SupplierCode], x.supplierCodes[s.ID] = s.ID, *s.SupplierCode
		}
	}
}

// addQCs makes QC checkpoints known by code.
func (x *refs) addQCs(qcs []*ent.QCCheckpoint) {
	for _, q := range qcs {
		x.qcs[q.Code], x.qcCodes[q.ID] = q.ID, q.Code
	}
}

// addNamed reads the suppliers and QC checkpoints recs name that x does not
// hold yet.
func (x *refs) addNamed(ctx context.Context, c *ent.Client, recs []Record) error {
	var sups, qcs []string
	for _, r := range recs {
		for _, s := range r.Suppliers {
			if _, ok := x.suppliers[s]; !ok && !slices.Contains(sups, s) {
				sups = append(sups, s)
			}
		}
		for _, q := range r.QCCheckpoints {
			if _, ok := x.qcs[q]; !ok && !slices.Contains(qcs, q) {
				qcs = append(qcs, q)
			}
		}
	}
	if len(sups) > 0 {
		found, err := c.Supplier.Query().Where(supplier.SupplierCodeIn(sups...)).All(ctx)
		if err != nil {
			return err
		}
		x.addSuppliers(found)
	}
	if len(qcs) > 0 {
		found, err := c.QCCheckpoint.Query().Where(qccheckpoint.CodeIn(qcs...)).All(ctx)
		if err != nil {
			return err
		}
		x.addQCs(found)
	}
	return nil
}

// linkBatch accumulates join rows of many products for multi-row inserts.
type linkBatch struct {
	tx          *ent.Tx
	acct, rows  int
	tags        []*ent.ProductTagCreate
	allergens   []*ent.ProductAllergenCreate
	countries   []*ent.ProductBannedCountryCreate
	substitutes []*ent.ProductSubstituteCreate
	suppliers   []*ent.ProductSupplierCreate
	byproducts  []*ent.ProductByproductCreate
	qcs         []*ent.ProductQCCheckpointCreate
	steps       []*ent.RecipeStepCreate
}

func (x *refs) addLinks(b *linkBatch, id int, r Record) {
	tx := b.tx
	for _, t := range r.Tags {
		b.tags = append(b.tags, tx.ProductTag.Create().SetAccountID(b.acct).SetProductID(id).SetTagID(x.tags[t]))
	}
	for _, a := range r.Allergens {
		c := tx.ProductAllergen.Create().SetAccountID(b.acct).SetProductID(id).SetAllergenID(x.allergens[a.Allergen])
		if a.Source != "" {
			c.SetSource(a.Source)
		}
		b.allergens = append(b.allergens, c)
	}
	for _, c := range r.BannedCountries {
		b.countries = append(b.countries, tx.ProductBannedCountry.Create().SetAccountID(b.acct).SetProductID(id).SetCountryID(x.countries[strings.ToUpper(c)]))
	}
	for _, c := range r.Substitutes {
		b.substitutes = append(b.substitutes, tx.ProductSubstitute.Create().SetAccountID(b.acct).SetProductID(id).SetSubstituteID(x.products[c]))
	}
	for _, c := range r.Suppliers {
		b.suppliers = append(b.suppliers, tx.ProductSupplier.Create().SetAccountID(b.acct).SetProductID(id).SetSupplierID(x.suppliers[c]))
	}
	for _, c := range r.Byproducts {
		b.byproducts = append(b.byproducts, tx.ProductByproduct.Create().SetAccountID(b.acct).SetProductID(id).SetByproductID(x.products[c]))
	}
	for _, c := range r.QCCheckpoints {
		b.qcs = append(b.qcs, tx.ProductQCCheckpoint.Create().SetAccountID(b.acct).SetProductID(id).SetQcCheckpointID(x.qcs[c]))
	}
	for i, step := range r.Routing {
		op, eq, onEquipment := strings.Cut(step, "@")
		c := tx.RecipeStep.Create().SetAccountID(b.acct).SetProductID(id).SetPosition(i + 1).SetOperationID(x.operations[op])
		if onEquipment {
			c.SetEquipmentID(x.equipment[eq])
		}
		b.steps = append(b.steps, c)
	}
}

// flush inserts the accumulated rows of each kind that filled a batch, or all
// of them when final.
func (b *linkBatch) flush(ctx context.Context, final bool) error {
	tx := b.tx
	return firstError(
		flushKind(ctx, b, final, &b.tags, tx.ProductTag.CreateBulk),
		flushKind(ctx, b, final, &b.allergens, tx.ProductAllergen.CreateBulk),
		flushKind(ctx, b, final, &b.countries, tx.ProductBannedCountry.CreateBulk),
		flushKind(ctx, b, final, &b.substitutes, tx.ProductSubstitute.CreateBulk),
		flushKind(ctx, b, final, &b.suppliers, tx.ProductSupplier.CreateBulk),
		flushKind(ctx, b, final, &b.byproducts, tx.ProductByproduct.CreateBulk),
		flushKind(ctx, b, final, &b.qcs, tx.ProductQCCheckpoint.CreateBulk),
		flushKind(ctx, b, final, &b.steps, tx.RecipeStep.CreateBulk),
	)
}

// execer is a bulk create of any kind of join row.
type execer interface{ Exec(context.Context) error }

// flushKind inserts the rows of one kind when they fill a batch, or when final.
func flushKind[C any, B execer](ctx context.Context, b *linkBatch, final bool, rows *[]C, bulk func(...C) B) func() error {
	return func() error {
		n := len(*rows)
		if n == 0 || (!final && n < bulkSize) {
			return nil
		}
		if err := bulk(*rows...).Exec(ctx); err != nil {
			return err
		}
		b.rows += n
		*rows = nil
		return nil
	}
}

// firstError runs steps in order and stops at the first error.
func firstError(steps ...func() error) error {
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

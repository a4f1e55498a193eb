package hooks

import (
	"context"
	"errors"
	"fmt"

	"entgo.io/ent"
	"github.com/shopspring/decimal"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/ent/location"
	"larder.dev/larder/ent/lotcorrection"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/policy"
)

// Movement says which stock movement a change of a lot's quantity is: its
// type and the record that caused it. Workflows that move stock (a bill, a
// production, a shipment) put it in the context of the change.
type Movement struct {
	Type         stockmovement.Type
	DocumentType string
	DocumentID   int
}

type movementKey struct{}

// WithMovement returns ctx under which changes of lot quantities are the
// movement mv.
func WithMovement(ctx context.Context, mv Movement) context.Context {
	return context.WithValue(ctx, movementKey{}, mv)
}

type bulkKey struct{}

// WithBulkStock returns ctx under which lots are created, and their
// quantities changed, without their movements, which the caller writes
// itself in bulk (a bill's receipts, benchmark seeding): the only way to
// change a lot's quantity without accounting it in the same statement.
func WithBulkStock(ctx context.Context) context.Context {
	return context.WithValue(ctx, bulkKey{}, true)
}

// PlaceLot sets a lot's warehouse (the root of its location) and its location
// key (the location, 0 for none) whenever its location is set or cleared,
// unless the writer placed it (set the warehouse) itself.
func PlaceLot() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ProductLotFunc(func(ctx context.Context, m *gen.ProductLotMutation) (ent.Value, error) {
			if _, placed := m.WarehouseID(); placed {
				return next.Mutate(ctx, m)
			}
			if id, ok := m.LocationID(); ok {
				root, err := warehouseOf(ctx, gen.ClientOf(m), id)
				if err != nil {
					return nil, err
				}
				m.SetWarehouseID(root)
				m.SetLocationKey(id)
			} else if m.LocationIDCleared() {
				m.ClearWarehouseID()
				m.SetLocationKey(0)
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate|ent.OpUpdateOne)
}

// WarehouseOf is the warehouse a location is in (itself for a warehouse).
func WarehouseOf(ctx context.Context, c *gen.Client, id int) (int, error) {
	return warehouseOf(ctx, c, id)
}

// warehouseOf walks up from a location to its warehouse.
func warehouseOf(ctx context.Context, c *gen.Client, id int) (int, error) {
	for range 32 {
		l, err := c.Location.Query().Where(location.ID(id)).Only(ctx)
		if err != nil {
			return 0, err
		}
		if l.ParentID == nil {
			return l.ID, nil
		}
		id = *l.ParentID
	}
	return 0, fmt.Errorf("location %d: no warehouse within 32 levels", id)
}

// AccountStock accounts for every change of a lot's quantity in the same
// transaction: a new lot's quantity is a movement (PRODUCT_FORM unless the
// context says otherwise); a later change is the context's movement, or,
// without one, a correction (PATCH), recorded as such. The lot's row is
// locked before its old quantity is read, so concurrent changes serialise
// and the lot's quantity always equals what its movements and corrections add
// up to.
func AccountStock() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ProductLotFunc(func(ctx context.Context, m *gen.ProductLotMutation) (ent.Value, error) {
			if _, ok := gen.TxOf(m); !ok {
				return nil, errors.New("stock changes must run in a transaction")
			}
			if m.Op().Is(ent.OpCreate) {
				if ctx.Value(bulkKey{}) != nil {
					return next.Mutate(ctx, m)
				}
				if _, set := m.LotOrigin(); !set && ctx.Value(movementKey{}) == nil {
					m.SetLotOrigin(productlot.LotOriginPRODUCT_FORM)
				}
				v, err := next.Mutate(ctx, m)
				if err != nil {
					return nil, err
				}
				lot := v.(*gen.ProductLot)
				mv, ok := ctx.Value(movementKey{}).(Movement)
				if !ok {
					mv = Movement{Type: stockmovement.TypePRODUCT_FORM, DocumentType: "product_lot", DocumentID: lot.ID}
				}
				return v, writeMovement(ctx, gen.ClientOf(m), lot.AccountID, lot.ID, lot.LocationID, mv, lot.QuantityBase)
			}
			after, changed := m.QuantityBase()
			if !changed || ctx.Value(bulkKey{}) != nil {
				return next.Mutate(ctx, m)
			}
			if m.Op().Is(ent.OpUpdate) {
				// Many lots at once: only a bulk writer, which records the
				// movements itself, may change their quantities.
				return nil, fmt.Errorf("stock: a change of many lots' quantities must be made under WithBulkStock, with its movements")
			}
			id, _ := m.ID()
			before, err := lockedQuantity(ctx, gen.ClientOf(m), id)
			if err != nil {
				return nil, err
			}
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return nil, err
			}
			lot := v.(*gen.ProductLot)
			if mv, ok := ctx.Value(movementKey{}).(Movement); ok {
				return v, writeMovement(ctx, gen.ClientOf(m), lot.AccountID, id, lot.LocationID, mv, after.Sub(before))
			}
			src, key, req := originOf(ctx)
			return v, gen.ClientOf(m).LotCorrection.Create().
				SetAccountID(lot.AccountID).
				SetLotID(id).
				SetQuantityBefore(before).
				SetQuantityAfter(after).
				SetSource(lotcorrection.Source(src)).
				SetNillableAPIKeyID(key).
				SetNillableRequestID(req).
				Exec(ctx)
		})
	}, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne)
}

// lockedQuantity reads a lot's quantity, locking its row until the
// transaction ends (PostgreSQL; SQLite serialises writers already).
func lockedQuantity(ctx context.Context, c *gen.Client, id int) (decimal.Decimal, error) {
	var rows []struct {
		Q decimal.Decimal `json:"quantity_base"`
	}
	err := c.ProductLot.Query().
		Where(productlot.ID(id)).
		Select(productlot.FieldQuantityBase).
		Modify(ForUpdate).
		Scan(ctx, &rows)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if len(rows) != 1 {
		return decimal.Decimal{}, &gen.NotFoundError{}
	}
	return rows[0].Q, nil
}

// writeMovement records a movement of q on a lot of the account.
func writeMovement(ctx context.Context, c *gen.Client, account, lotID int, loc *int, mv Movement, q decimal.Decimal) error {
	return NewMovement(ctx, c, account, lotID, loc, mv, q).Exec(ctx)
}

// NewMovement is the builder of a movement of q on a lot of the account, by
// the caller in ctx, for writers that save movements in bulk
// (WithBulkStock).
func NewMovement(ctx context.Context, c *gen.Client, account, lotID int, loc *int, mv Movement, q decimal.Decimal) *gen.StockMovementCreate {
	src, key, req := originOf(ctx)
	b := c.StockMovement.Create().
		SetAccountID(account).
		SetLotID(lotID).
		SetNillableLocationID(loc).
		SetType(mv.Type).
		SetQuantityBase(q).
		SetSource(stockmovement.Source(src)).
		SetNillableAPIKeyID(key).
		SetNillableRequestID(req)
	if mv.DocumentType != "" {
		b.SetDocumentType(mv.DocumentType).SetDocumentID(mv.DocumentID)
	}
	return b
}

// originOf is who makes a change: the viewer's source, and for an API change
// its key and request.
func originOf(ctx context.Context) (source string, key *int, request *string) {
	v := policy.FromContext(ctx)
	source = string(policy.SourceSystem)
	if v == nil {
		return source, nil, nil
	}
	if v.Source != "" {
		source = string(v.Source)
	}
	if v.KeyID != 0 {
		key = &v.KeyID
	}
	if v.RequestID != "" {
		request = &v.RequestID
	}
	return source, key, request
}

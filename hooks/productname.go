package hooks

import (
	"context"
	"fmt"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
)

// CopyProductName gives a new lot the copy of its product's name that lists
// sort by (product_name), unless the writer set it (bulk seeding does).
func CopyProductName() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ProductLotFunc(func(ctx context.Context, m *gen.ProductLotMutation) (ent.Value, error) {
			if _, set := m.ProductName(); !set {
				if id, ok := m.ProductID(); ok {
					p, err := gen.ClientOf(m).Product.Query().Where(product.ID(id)).Select(product.FieldName).Only(ctx)
					if err != nil && !gen.IsNotFound(err) {
						return nil, fmt.Errorf("copy product name: %w", err)
					}
					if err == nil && p.Name != nil {
						m.SetProductName(*p.Name)
					}
				}
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate)
}

// PropagateProductName keeps the lots' copies of a product's name in step
// when the name changes, in the same transaction.
func PropagateProductName() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ProductFunc(func(ctx context.Context, m *gen.ProductMutation) (ent.Value, error) {
			name, renamed := m.Name()
			cleared := m.NameCleared()
			if !renamed && !cleared {
				return next.Mutate(ctx, m)
			}
			ids, err := m.IDs(ctx)
			if err != nil {
				return nil, fmt.Errorf("propagate product name: %w", err)
			}
			// The lots are locked before the product, in id order, as
			// every writer of lots takes them (inventory.Pick): a bill
			// locks its lots, then writes its products' costs.
			_, err = gen.ClientOf(m).ProductLot.Query().
				Where(productlot.ProductIDIn(ids...)).
				Order(productlot.ByID()).
				Select(productlot.FieldID).
				Modify(ForUpdate).
				Ints(ctx)
			if err != nil {
				return nil, fmt.Errorf("propagate product name: lock lots: %w", err)
			}
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return nil, err
			}
			u := gen.ClientOf(m).ProductLot.Update().Where(productlot.ProductIDIn(ids...))
			if cleared {
				u.ClearProductName()
			} else {
				u.SetProductName(name)
			}
			// The lots' own events are not due: the product's event reports
			// the rename.
			if _, err := u.Save(WithoutEvents(ctx)); err != nil {
				return nil, fmt.Errorf("propagate product name: %w", err)
			}
			return v, nil
		})
	}, ent.OpUpdate|ent.OpUpdateOne)
}

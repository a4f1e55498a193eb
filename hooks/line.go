package hooks

import (
	"context"
	"fmt"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/ent/productionlineequipment"
)

// ReleaseLineEquipment removes a production line's equipment rows when the
// line is soft-deleted (deleted_at set), in the same transaction: a deleted
// line no longer uses its equipment, so the equipment can be deleted, while
// the runs made on the line keep referencing it.
func ReleaseLineEquipment() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ProductionLineFunc(func(ctx context.Context, m *gen.ProductionLineMutation) (ent.Value, error) {
			if _, deleting := m.DeletedAt(); !deleting {
				return next.Mutate(ctx, m)
			}
			ids, err := m.IDs(ctx)
			if err != nil {
				return nil, fmt.Errorf("release line equipment: %w", err)
			}
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return nil, err
			}
			_, err = gen.ClientOf(m).ProductionLineEquipment.Delete().
				Where(productionlineequipment.ProductionLineIDIn(ids...)).
				Exec(ctx)
			if err != nil {
				return nil, fmt.Errorf("release line equipment: %w", err)
			}
			return v, nil
		})
	}, ent.OpUpdate|ent.OpUpdateOne)
}

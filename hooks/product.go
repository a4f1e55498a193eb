package hooks

import (
	"context"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/ent/product"
)

// KindOf is the kind of a product type: RAW_MATERIAL, PACKAGING and
// MISCELLANEOUS are materials; RECIPE, SUB_RECIPE and FINISHED_GOOD recipes.
func KindOf(t product.ProductType) product.Kind {
	switch t {
	case product.ProductTypeRECIPE, product.ProductTypeSUB_RECIPE, product.ProductTypeFINISHED_GOOD:
		return product.KindRecipe
	}
	return product.KindMaterial
}

// ProductKind derives a product's kind from its product_type whenever the
// type is set, so the two never disagree.
func ProductKind() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ProductFunc(func(ctx context.Context, m *gen.ProductMutation) (ent.Value, error) {
			if t, ok := m.ProductType(); ok {
				m.SetKind(KindOf(t))
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne)
}

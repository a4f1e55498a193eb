package catalog

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/recipestep"
)

// ProductFilter narrows a list of products.
type ProductFilter struct {
	// Search is part of the code or the name, in any case.
	Search string
	// Offset skips that many; Limit is the number of products (0: all).
	Offset, Limit int
}

// ListProducts lists the products of the viewer's account in ctx that match
// f, by code then id, each with its display and base units.
func ListProducts(ctx context.Context, c *ent.Client, f ProductFilter) ([]*ent.Product, error) {
	if f.Offset < 0 || f.Limit < 0 {
		return nil, fmt.Errorf("products: offset and limit must not be negative")
	}
	q := c.Product.Query().
		Where(product.IsDeleted(false)).
		WithUnitOfMeasure().
		WithUomBase().
		Order(product.ByProductCode(), product.ByID())
	if f.Search != "" {
		q.Where(product.Or(product.ProductCodeContainsFold(f.Search), product.NameContainsFold(f.Search)))
	}
	if f.Offset > 0 {
		q.Offset(f.Offset)
	}
	if f.Limit > 0 {
		q.Limit(f.Limit)
	}
	return q.All(ctx)
}

// ProductOf is product id of the viewer's account in ctx with its units and
// its routing (the recipe's steps in order, each with its operation and
// equipment); another account's product is not found.
func ProductOf(ctx context.Context, c *ent.Client, id int) (*ent.Product, error) {
	return c.Product.Query().
		Where(product.ID(id), product.IsDeleted(false)).
		WithUnitOfMeasure().
		WithUomBase().
		WithRecipeSteps(func(q *ent.RecipeStepQuery) {
			q.Order(recipestep.ByPosition()).WithOperation().WithEquipment()
		}).
		Only(ctx)
}

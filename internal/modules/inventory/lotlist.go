package inventory

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
)

// LotFilter narrows a list of lots.
type LotFilter struct {
	// Number is part of the lot number, in any case.
	Number string
	// Product is part of the product's code or name, in any case.
	Product string
	// Before lists the lots older than this lot id (the next page).
	Before int
	// Limit is the number of lots; 0 means all.
	Limit int
}

// ListLots lists the lots of the viewer's account in ctx that match f,
// newest first, each with its product and location, as a trace shows them.
func ListLots(ctx context.Context, c *ent.Client, f LotFilter) ([]*TraceLot, error) {
	if f.Before < 0 || f.Limit < 0 {
		return nil, fmt.Errorf("lots: before and limit must not be negative")
	}
	q := c.ProductLot.Query()
	if f.Number != "" {
		q.Where(productlot.LotNumberContainsFold(f.Number))
	}
	if f.Product != "" {
		q.Where(productlot.HasProductWith(product.Or(product.ProductCodeContainsFold(f.Product), product.NameContainsFold(f.Product))))
	}
	if f.Before > 0 {
		q.Where(productlot.IDLT(f.Before))
	}
	if f.Limit > 0 {
		q.Limit(f.Limit)
	}
	lots, err := q.Order(ent.Desc(productlot.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	return traceLots(ctx, c, lots)
}

// LotOf describes the lot id of the viewer's account in ctx as a trace shows
// it; a lot of another account is not found (ent's not-found error).
func LotOf(ctx context.Context, c *ent.Client, id int) (*TraceLot, error) {
	l, err := c.ProductLot.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	tls, err := traceLots(ctx, c, []*ent.ProductLot{l})
	if err != nil {
		return nil, err
	}
	return tls[0], nil
}

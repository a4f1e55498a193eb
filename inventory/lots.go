package inventory

import (
	"context"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/hooks"
	"larder.dev/larder/problem"
)

// ArchiveLot retires a lot (spec States, Product lot): refused for an
// archived lot and for the product's unnumbered lot. The API and the web
// application share it.
func ArchiveLot(ctx context.Context, tx *ent.Tx, id int) (*ent.ProductLot, error) {
	return setArchived(ctx, tx, id, true)
}

// UnarchiveLot brings an archived lot back: refused for a lot that is not
// archived and for the product's unnumbered lot.
func UnarchiveLot(ctx context.Context, tx *ent.Tx, id int) (*ent.ProductLot, error) {
	return setArchived(ctx, tx, id, false)
}

// setArchived moves archived from !to to to. The condition is part of the
// update, so of two concurrent archives one wins and the other is refused.
func setArchived(ctx context.Context, tx *ent.Tx, id int, to bool) (*ent.ProductLot, error) {
	lot, err := tx.ProductLot.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	action := map[bool]string{true: "archived", false: "unarchived"}[to]
	if lot.LotNumber == nil {
		return nil, problem.Conflict(problem.InvalidState, "", "The unnumbered lot of a product can be neither archived nor unarchived.")
	}
	out, err := tx.ProductLot.UpdateOneID(id).
		Where(productlot.Archived(!to)).
		SetArchived(to).
		Save(hooks.EmitAs(ctx, action))
	if ent.IsNotFound(err) {
		return nil, problem.Conflict(problem.InvalidState, "", "The lot is "+action+" already.")
	}
	return out, err
}

// Package inventory holds the inventory workflows that touch several rows:
// warehouses with their floor plans (and, later, lots and stock movements).
// Each takes a transaction, so the API and the admin CLI share them.
package inventory

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/equipment"
	"larder.dev/larder/ent/location"
	"larder.dev/larder/ent/productionline"
	"larder.dev/larder/hooks"
)

// FloorPlan is the default floor plan of a new warehouse: the areas created
// inside it, by code and name.
var FloorPlan = []struct{ Code, Name string }{
	{"RECEIVING", "Receiving"},
	{"STORAGE", "Storage"},
	{"PRODUCTION", "Production"},
	{"SHIPPING", "Shipping"},
}

// CreateWarehouse creates an active site and its default floor plan. apply
// sets the site's own fields (code, name, description).
func CreateWarehouse(ctx context.Context, tx *ent.Tx, apply func(*ent.LocationCreate) error) (*ent.Location, error) {
	b := tx.Location.Create().SetIsActive(true)
	if err := apply(b); err != nil {
		return nil, err
	}
	code, _ := b.Mutation().Code()
	site, err := b.SetPath(code).Save(ctx)
	if err != nil {
		return nil, err
	}
	areas := make([]*ent.LocationCreate, len(FloorPlan))
	for i, a := range FloorPlan {
		areas[i] = tx.Location.Create().
			SetParentID(site.ID).
			SetCode(a.Code).
			SetName(a.Name).
			SetPath(code + "/" + a.Code).
			SetIsActive(true)
	}
	if err := tx.Location.CreateBulk(areas...).Exec(ctx); err != nil {
		return nil, fmt.Errorf("create floor plan of %s: %w", code, err)
	}
	return site, nil
}

// UpdateWarehouse updates a site; a new code moves the paths of its areas.
func UpdateWarehouse(ctx context.Context, tx *ent.Tx, id int, apply func(*ent.LocationUpdateOne) error) (*ent.Location, error) {
	u := tx.Location.UpdateOneID(id).Where(location.ParentIDIsNil())
	if err := apply(u); err != nil {
		return nil, err
	}
	code, moved := u.Mutation().Code()
	if moved {
		u.SetPath(code)
	}
	site, err := u.Save(ctx)
	if err != nil || !moved {
		return site, err
	}
	areas, err := tx.Location.Query().Where(location.ParentID(site.ID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range areas {
		if err := tx.Location.UpdateOne(a).SetPath(site.Path + "/" + a.Code).Exec(ctx); err != nil {
			return nil, fmt.Errorf("move area %s: %w", a.Code, err)
		}
	}
	return site, nil
}

// DeleteWarehouse removes a site and, through the foreign key, all its areas.
// Stock, movements and productions hold their locations: while any of them
// uses one, the removal fails (IN_USE) and changes nothing. Production lines
// and equipment only name their warehouse: they lose it.
func DeleteWarehouse(ctx context.Context, tx *ent.Tx, id int) (*ent.Location, error) {
	site, err := tx.Location.Query().Where(location.ID(id), location.ParentIDIsNil()).Only(ctx)
	if err != nil {
		return nil, err
	}
	if err := releaseWarehouse(ctx, tx, site.ID); err != nil {
		return nil, err
	}
	if err := tx.Location.DeleteOne(site).Exec(ctx); err != nil {
		return nil, err
	}
	return site, nil
}

// releaseWarehouse clears the warehouse of the production lines and equipment
// in it, each change reported as the record's update. A soft-deleted line is
// cleared without an event: it has left the API, and it must not keep a
// warehouse nobody can free through it.
func releaseWarehouse(ctx context.Context, tx *ent.Tx, id int) error {
	err := tx.ProductionLine.Update().
		Where(productionline.WarehouseID(id), productionline.DeletedAtIsNil()).
		ClearWarehouseID().
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("release the lines of warehouse %d: %w", id, err)
	}
	err = tx.ProductionLine.Update().
		Where(productionline.WarehouseID(id), productionline.DeletedAtNotNil()).
		ClearWarehouseID().
		Exec(hooks.WithoutEvents(ctx))
	if err != nil {
		return fmt.Errorf("release the deleted lines of warehouse %d: %w", id, err)
	}
	err = tx.Equipment.Update().
		Where(equipment.WarehouseID(id)).
		ClearWarehouseID().
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("release the equipment of warehouse %d: %w", id, err)
	}
	return nil
}

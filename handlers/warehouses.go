package handlers

import (
	"context"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/openapi/oas"
)

// CreateWarehouse creates a site with its default floor plan.
func (h *Handler) CreateWarehouse(ctx context.Context, req *oas.WarehouseCreate) (*oas.WarehouseData, error) {
	var out *ent.Location
	err := ent.RunInTx(ctx, h.client, func(tx *ent.Tx) (err error) {
		out, err = inventory.CreateWarehouse(ctx, tx, func(b *ent.LocationCreate) error { return restapi.ApplyWarehouseCreate(b, req) })
		return err
	})
	if err != nil {
		return nil, err
	}
	return &oas.WarehouseData{Data: restapi.Warehouse(out)}, nil
}

// UpdateWarehouse updates a site; changing its code moves its locations' paths.
func (h *Handler) UpdateWarehouse(ctx context.Context, req *oas.WarehouseUpdate, p oas.UpdateWarehouseParams) (*oas.WarehouseData, error) {
	var out *ent.Location
	err := ent.RunInTx(ctx, h.client, func(tx *ent.Tx) (err error) {
		out, err = inventory.UpdateWarehouse(ctx, tx, p.WarehouseID, func(u *ent.LocationUpdateOne) error { return restapi.ApplyWarehouseUpdate(u, req) })
		return err
	})
	if err != nil {
		return nil, err
	}
	return &oas.WarehouseData{Data: restapi.Warehouse(out)}, nil
}

// DeleteWarehouse removes a site and all its locations (409 while in use).
func (h *Handler) DeleteWarehouse(ctx context.Context, p oas.DeleteWarehouseParams) (*oas.WarehouseData, error) {
	var out *ent.Location
	err := ent.RunInTx(ctx, h.client, func(tx *ent.Tx) (err error) {
		out, err = inventory.DeleteWarehouse(ctx, tx, p.WarehouseID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &oas.WarehouseData{Data: restapi.Warehouse(out)}, nil
}

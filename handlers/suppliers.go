package handlers

import (
	"context"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/modules/purchasing"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/openapi/oas"
)

// DeleteSupplier removes a supplier without purchasing history and
// deactivates one with history; the answer's active tells which.
func (h *Handler) DeleteSupplier(ctx context.Context, p oas.DeleteSupplierParams) (*oas.SupplierData, error) {
	var out *ent.Supplier
	err := ent.RunInTx(ctx, h.client, func(tx *ent.Tx) (err error) {
		out, _, err = purchasing.DeleteSupplier(ctx, tx, p.SupplierID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &oas.SupplierData{Data: restapi.Supplier(out)}, nil
}

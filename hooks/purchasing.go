package hooks

import (
	"context"
	"fmt"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/account"
	"larder.dev/larder/ent/customer"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
)

// SupplierCopied are the supplier's fields CopySupplier copies or checks (and
// the expiry, from which a read derives the approval status): a supplier row
// holds much more. The documents' supplier_id check reads them
// (annotate.CheckReads), so that the hook need not.
var SupplierCopied = []string{supplier.FieldAccountID, supplier.FieldApprovalStatus, supplier.FieldApprovalExpiry, supplier.FieldCompany, supplier.FieldAddress}

// ProductCopied are the product's fields a document line copies and converts
// its quantity with (product_code, name, uom_qty, uom_base_conversion): the
// lines' product_id check reads them for the preparer (annotate's Reading),
// and a preparer given no rows reads the same. ProductCosted adds the cost,
// which a bill's weighted average needs.
var (
	ProductCopied = []string{product.FieldProductCode, product.FieldName, product.FieldUomQty, product.FieldUomBaseConversion}
	ProductCosted = append(ProductCopied[:len(ProductCopied):len(ProductCopied)], product.FieldCost)
)

// CustomerCopied are the customer's fields a sales order copies when it is
// created (sales.PrepareOrder): its name, its address, and its tax rate's id
// (the rates are read from it). The order's customer_id check reads them
// (annotate.CheckReads).
var CustomerCopied = []string{customer.FieldCompany, customer.FieldAddress, customer.FieldTaxRateID}

// CopySupplier copies the supplier's name and address into a purchasing
// document whenever its supplier_id is set (created, or changed): company,
// billing_address, and, on documents that have one, shipping_address
// (docs/api-behaviour.md, "Resources": a purchase order's and a bill's
// addresses both come from the supplier's address). For an order (order true: a purchase order), the
// ship-to is copied too, and a supplier that is SUSPENDED or REJECTED is
// refused with 409 SUPPLIER_BLOCKED when the account's organization blocks
// unapproved suppliers.
func CopySupplier(order bool) ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			v, ok := m.Field("supplier_id")
			if !ok {
				return next.Mutate(ctx, m)
			}
			id := v.(int)
			c := gen.ClientOf(m)
			// The reference check of the document's supplier_id read it
			// (annotate.CheckReads), unless it ran outside a transaction.
			s, ok := gen.CheckedRow[*gen.Supplier](m, supplier.Table, id)
			if !ok {
				var err error
				s, err = c.Supplier.Query().Where(supplier.ID(id)).Select(SupplierCopied...).Only(ctx)
				if gen.IsNotFound(err) {
					return nil, problem.Invalidf("supplier_id", "must name an existing supplier (%d was not found)", id)
				}
				if err != nil {
					return nil, fmt.Errorf("copy supplier: %w", err)
				}
			}
			if order && (s.ApprovalStatus == supplier.ApprovalStatusSUSPENDED || s.ApprovalStatus == supplier.ApprovalStatusREJECTED) {
				blocked, err := blocksUnapproved(ctx, c, s.AccountID)
				if err != nil {
					return nil, err
				}
				if blocked {
					return nil, problem.Conflict(problem.SupplierBlocked, "supplier_id", fmt.Sprintf(
						"The supplier is %s and the account blocks unapproved suppliers; approve it in the web application first.", s.ApprovalStatus))
				}
			}
			var err error
			if s.Company != nil {
				err = m.SetField("company", *s.Company)
			} else {
				err = m.ClearField("company")
			}
			if err == nil {
				err = m.SetField("billing_address", s.Address)
			}
			if err == nil && order {
				err = m.SetField("shipping_address", s.Address)
			}
			if err != nil {
				return nil, fmt.Errorf("copy supplier: %w", err)
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate|ent.OpUpdateOne)
}

// blocksUnapproved reports whether the account's organization blocks
// unapproved suppliers.
func blocksUnapproved(ctx context.Context, c *gen.Client, acct int) (bool, error) {
	// System viewer: the organization's purchasing setting is read from a system-only table.
	org, err := c.Account.Query().Where(account.ID(acct)).QueryOrganization().Only(policy.System(ctx))
	if err != nil {
		return false, fmt.Errorf("organization settings: %w", err)
	}
	return org.BlockUnapprovedSuppliers, nil
}

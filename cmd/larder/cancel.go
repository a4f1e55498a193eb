package main

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/modules/purchasing"
	"larder.dev/larder/internal/modules/sales"
	"larder.dev/larder/internal/platform/store"
)

// cancelCommand returns the command that cancels a document of kind (bill,
// invoice) as the web application does (docs/operators.md, "Commands"): the document
// is kept with is_cancelled and cancelled_at, <kind>.cancelled is sent with
// source app, and the stock it moved stays where it went. show gives the
// --json object and the human line.
func cancelCommand[T any](kind string, cancel func(context.Context, *ent.Tx, int) (T, error), show func(T) (map[string]any, string)) func(context.Context, *env, []string) error {
	name := kind + " cancel"
	return func(ctx context.Context, e *env, args []string) error {
		c := e.command(name, needs{org: inAccount, required: []string{"id"}})
		id := c.Int("id", 0, kind+" id (required)")
		return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
			var out T
			err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) (err error) {
				out, err = cancel(ctx, tx, *id)
				return err
			})
			if ent.IsNotFound(err) {
				return fmt.Errorf("%s %d: no such %s in this account", kind, *id, kind)
			}
			if err != nil {
				return err
			}
			return e.print(show(out))
		})
	}
}

var billCancel = cancelCommand("bill", purchasing.CancelBill, func(b *ent.Bill) (map[string]any, string) {
	return map[string]any{"id": b.ID, "bill_no": b.BillNo, "supplier_id": b.SupplierID,
		"is_cancelled": b.IsCancelled, "cancelled_at": dateOnly(b.CancelledAt)}, fmt.Sprintf("bill %d (no. %d) is cancelled", b.ID, b.BillNo)
})

var invoiceCancel = cancelCommand("invoice", sales.CancelInvoice, func(i *ent.Invoice) (map[string]any, string) {
	return map[string]any{"id": i.ID, "invoice_no": i.InvoiceNo, "sales_order_id": i.SalesOrderID, "customer_id": i.CustomerID,
		"is_cancelled": i.IsCancelled, "cancelled_at": dateOnly(i.CancelledAt)}, fmt.Sprintf("invoice %d (no. %d) is cancelled", i.ID, i.InvoiceNo)
})

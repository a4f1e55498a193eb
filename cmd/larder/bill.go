package main

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/purchasing"
)

// billCancel cancels a bill, as the web application does (DECISIONS "Admin
// CLI"): the bill is kept with is_cancelled and cancelled_at, bill.cancelled
// is sent with source app, and the stock it received stays where it went.
func billCancel(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("bill cancel")
	if err != nil {
		return err
	}
	acct := e.accountFlags(fs)
	id := fs.Int("id", 0, "bill id (required)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *id == 0 {
		return fmt.Errorf("bill cancel needs --id")
	}
	ctx, st, err := acct.open(ctx, e, "bill cancel")
	if err != nil {
		return err
	}
	defer st.Close()
	var b *ent.Bill
	err = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) (err error) {
		b, err = purchasing.CancelBill(ctx, tx, *id)
		return err
	})
	if ent.IsNotFound(err) {
		return fmt.Errorf("bill %d: no such bill in this account", *id)
	}
	if err != nil {
		return err
	}
	return e.print(map[string]any{"id": b.ID, "bill_no": b.BillNo, "supplier_id": b.SupplierID,
		"is_cancelled": b.IsCancelled, "cancelled_at": dateOnly(b.CancelledAt)},
		fmt.Sprintf("bill %d (no. %d) is cancelled", b.ID, b.BillNo))
}

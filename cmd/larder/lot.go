package main

import (
	"context"
	"fmt"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/inventory"
)

func lotSetQC(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("lot set-qc")
	if err != nil {
		return err
	}
	acct := e.accountFlags(fs)
	id := fs.Int("lot", 0, "lot id (required)")
	status := fs.String("status", "", "AVAILABLE, ON_HOLD, QUARANTINE, RELEASED or REJECTED (required)")
	note := fs.String("note", "", "why")
	expires := fs.String("release-expires", "", "RFC 3339 time a release stops counting (RELEASED only)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *id == 0 || *status == "" {
		return fmt.Errorf("lot set-qc needs --lot and --status")
	}
	d := inventory.QCDecision{Status: productlot.QcStatus(*status)}
	if *note != "" {
		d.Note = note
	}
	if *expires != "" {
		t, err := time.Parse(time.RFC3339, *expires)
		if err != nil {
			return fmt.Errorf("--release-expires must be an RFC 3339 time such as 2027-01-31T12:00:00Z: %w", err)
		}
		d.ReleaseExpiresAt = &t
	}
	ctx, st, err := acct.open(ctx, e, "lot set-qc")
	if err != nil {
		return err
	}
	defer st.Close()
	var lot *ent.ProductLot
	err = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) (err error) {
		lot, err = inventory.SetLotQC(ctx, tx, *id, d, time.Now())
		return err
	})
	if ent.IsNotFound(err) {
		return fmt.Errorf("lot %d: no such lot in this account", *id)
	}
	if err != nil {
		return err
	}
	return e.print(map[string]any{"id": lot.ID, "lot_number": lot.LotNumber, "qc_status": lot.QcStatus,
		"qc_status_at": lot.QcStatusAt, "qc_status_note": lot.QcStatusNote, "qc_release_expires_at": lot.QcReleaseExpiresAt},
		fmt.Sprintf("lot %d is %s", lot.ID, lot.QcStatus))
}

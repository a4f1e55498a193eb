package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/modules/inventory"
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

func lotTrace(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("lot trace")
	if err != nil {
		return err
	}
	acct := e.accountFlags(fs)
	id := fs.Int("lot", 0, "lot id (required)")
	direction := fs.String("direction", string(inventory.Both), "backward (towards suppliers), forward (towards customers) or both")
	depth := fs.Int("depth", inventory.DefaultTraceDepth, fmt.Sprintf("production runs followed each way, 1 to %d", inventory.MaxTraceDepth))
	format := fs.String("format", "json", "json (the API's answer) or csv (FSMA 204's sortable spreadsheet)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *id == 0 {
		return fmt.Errorf("lot trace needs --lot")
	}
	d := inventory.Direction(*direction)
	if d != inventory.Backward && d != inventory.Forward && d != inventory.Both {
		return fmt.Errorf("--direction must be backward, forward or both, not %q", *direction)
	}
	if *depth < 1 || *depth > inventory.MaxTraceDepth {
		return fmt.Errorf("--depth must be between 1 and %d, not %d", inventory.MaxTraceDepth, *depth)
	}
	if *format != "json" && *format != "csv" {
		return fmt.Errorf("--format must be json or csv, not %q", *format)
	}
	if *format == "csv" && e.json {
		return fmt.Errorf("--json and --format csv cannot go together")
	}
	ctx, st, err := acct.open(ctx, e, "lot trace")
	if err != nil {
		return err
	}
	defer st.Close()
	// One read-only snapshot, as the API reads a trace.
	ctx, end := st.Snapshot(ctx)
	defer end()
	t, err := inventory.TraceLotOf(ctx, st.Client, *id, d, *depth)
	if ent.IsNotFound(err) {
		return fmt.Errorf("lot %d: no such lot in this account", *id)
	}
	if err != nil {
		return err
	}
	if *format == "csv" {
		return inventory.WriteTraceCSV(e.stdout, t)
	}
	b, err := handlers.ProductLotTraceOf(t).MarshalJSON()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = out.WriteTo(e.stdout)
	return err
}

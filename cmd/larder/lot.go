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
	"larder.dev/larder/internal/platform/store"
)

func lotSetQC(ctx context.Context, e *env, args []string) error {
	c := e.command("lot set-qc", needs{org: inAccount, required: []string{"lot", "status"}})
	id := c.Int("lot", 0, "lot id (required)")
	status := c.String("status", "", "AVAILABLE, ON_HOLD, QUARANTINE, RELEASED or REJECTED (required)")
	note := c.String("note", "", "why")
	expires := c.String("release-expires", "", "RFC 3339 time a release stops counting (RELEASED only)")
	var d inventory.QCDecision
	return c.run(ctx, args, func() error {
		d = inventory.QCDecision{Status: productlot.QcStatus(*status)}
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
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		var lot *ent.ProductLot
		err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) (err error) {
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
	})
}

func lotTrace(ctx context.Context, e *env, args []string) error {
	c := e.command("lot trace", needs{org: inAccount, required: []string{"lot"}})
	id := c.Int("lot", 0, "lot id (required)")
	direction := c.String("direction", string(inventory.Both), "backward (towards suppliers), forward (towards customers) or both")
	depth := c.Int("depth", inventory.DefaultTraceDepth, fmt.Sprintf("production runs followed each way, 1 to %d", inventory.MaxTraceDepth))
	format := c.String("format", "json", "json (the API's answer) or csv (FSMA 204's sortable spreadsheet)")
	var d inventory.Direction
	return c.run(ctx, args, func() error {
		d = inventory.Direction(*direction)
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
		return nil
	}, func(ctx context.Context, st *store.Store) error {
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
	})
}

package forms

import (
	"fmt"
	"net/url"
	"time"

	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/modules/inventory"
)

// QCStatuses are the quality statuses a decision chooses from.
var QCStatuses = []Choice{
	{string(productlot.QcStatusAVAILABLE), "AVAILABLE: sellable, no decision pending"},
	{string(productlot.QcStatusON_HOLD), "ON_HOLD: waiting for a decision"},
	{string(productlot.QcStatusQUARANTINE), "QUARANTINE: kept apart, under review"},
	{string(productlot.QcStatusRELEASED), "RELEASED: sellable after review"},
	{string(productlot.QcStatusREJECTED), "REJECTED: not to be used"},
}

// QCNoteMax bounds a decision's note.
const QCNoteMax = 1000

// ReleaseLayout is the release expiry field's format (datetime-local), in
// UTC.
const ReleaseLayout = "2006-01-02T15:04"

// ParseQCDecision reads a lot's quality decision: a status of QCStatuses,
// a note of at most QCNoteMax bytes, a release expiry in ReleaseLayout.
// Whether the expiry fits the status is the workflow's rule.
func ParseQCDecision(v url.Values) (inventory.QCDecision, Errors) {
	var errs Errors
	d := inventory.QCDecision{Status: productlot.QcStatus(get(v, "status"))}
	if !offers(QCStatuses, string(d.Status)) {
		errs.Add("status", "Choose a status from the list.")
	}
	if note := get(v, "note"); len(note) > QCNoteMax {
		errs.Add("note", fmt.Sprintf("A note has at most %d characters.", QCNoteMax))
	} else if note != "" {
		d.Note = &note
	}
	if x := get(v, "release_expires"); x != "" {
		t, err := time.ParseInLocation(ReleaseLayout, x, time.UTC)
		if err != nil {
			errs.Add("release_expires", "Enter a date and time such as 2027-01-31T12:00 (UTC).")
		} else {
			d.ReleaseExpiresAt = &t
		}
	}
	return d, errs
}

package forms

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent/productlot"
)

func TestParseQCDecision(t *testing.T) {
	ok := url.Values{"status": {"RELEASED"}, "note": {" checked "}, "release_expires": {"2027-01-31T12:00"}}
	d, errs := ParseQCDecision(ok)
	if !errs.OK() || d.Status != productlot.QcStatusRELEASED || d.Note == nil || *d.Note != "checked" ||
		d.ReleaseExpiresAt == nil || !d.ReleaseExpiresAt.Equal(time.Date(2027, 1, 31, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("%+v %v", d, errs)
	}
	if d, _ := ParseQCDecision(with(ok, "note", "", "release_expires", "")); d.Note != nil || d.ReleaseExpiresAt != nil {
		t.Errorf("empty fields: %+v", d)
	}
	checkRules(t, func(v url.Values) Errors { _, e := ParseQCDecision(v); return e }, []rule{
		{"unknown status", with(ok, "status", "EATEN"), "status", "Choose a status from the list."},
		{"no status", with(ok, "status", ""), "status", "Choose a status from the list."},
		{"on hold", with(ok, "status", "ON_HOLD"), "status", ""},
		{"note too long", with(ok, "note", strings.Repeat("n", QCNoteMax+1)), "note", fmt.Sprintf("A note has at most %d characters.", QCNoteMax)},
		{"note at the limit", with(ok, "note", strings.Repeat("n", QCNoteMax)), "note", ""},
		{"expiry malformed", with(ok, "release_expires", "2027-01-31"), "release_expires", "Enter a date and time such as 2027-01-31T12:00 (UTC)."},
		{"no expiry", with(ok, "release_expires", ""), "release_expires", ""},
	})
}

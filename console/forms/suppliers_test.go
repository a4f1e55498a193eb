package forms

import (
	"net/url"
	"testing"
	"time"

	"larder.dev/larder/ent/supplier"
)

func TestParseApproval(t *testing.T) {
	now := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	a, errs := ParseApproval(url.Values{"status": {"APPROVED"}, "expires": {"2027-01-31"}}, now)
	if !errs.OK() || a.Status != supplier.ApprovalStatusAPPROVED || a.Expires == nil || a.Expires.Format(time.DateOnly) != "2027-01-31" {
		t.Fatalf("%+v %v", a, errs)
	}
	parse := func(v url.Values) Errors { _, e := ParseApproval(v, now); return e }
	checkRules(t, parse, []rule{
		{"unknown decision", url.Values{"status": {"LOVED"}}, "", "Choose a decision: approve, suspend, reject or reset."},
		{"suspend", url.Values{"status": {"SUSPENDED"}}, "", ""},
		{"expiry of a suspension", url.Values{"status": {"SUSPENDED"}, "expires": {"2027-01-31"}}, "expires", "Only an approval can have an expiry date."},
		{"expiry malformed", url.Values{"status": {"APPROVED"}, "expires": {"31/01/2027"}}, "expires", "Enter a date such as 2027-01-31, or leave it empty for an approval without end."},
		{"expiry today", url.Values{"status": {"APPROVED"}, "expires": {"2026-06-01"}}, "expires", "The approval would end at once: choose a date after today."},
		{"expiry tomorrow", url.Values{"status": {"APPROVED"}, "expires": {"2026-06-02"}}, "expires", ""},
	})
}

func TestParseCertification(t *testing.T) {
	c, errs := ParseCertification(url.Values{"scheme": {"BRC"}, "expires_on": {"2027-01-31"}})
	if !errs.OK() || c.Scheme == nil || *c.Scheme != supplier.CertificationSchemeBRC || c.ExpiresOn == nil {
		t.Fatalf("%+v %v", c, errs)
	}
	if c, errs := ParseCertification(url.Values{}); !errs.OK() || c.Scheme != nil || c.ExpiresOn != nil {
		t.Errorf("empty: %+v %v", c, errs)
	}
	checkRules(t, func(v url.Values) Errors { _, e := ParseCertification(v); return e }, []rule{
		{"unknown scheme", url.Values{"scheme": {"ISO"}}, "scheme", "Choose a scheme from the list."},
		{"known scheme", url.Values{"scheme": {"IFS"}}, "scheme", ""},
		{"date malformed", url.Values{"scheme": {"IFS"}, "expires_on": {"soon"}}, "expires_on", "Enter a date such as 2027-01-31, or leave it empty."},
		{"date without scheme", url.Values{"expires_on": {"2027-01-31"}}, "expires_on", "Only a certification that is held can expire: choose its scheme, or leave the date empty."},
		{"date of none held", url.Values{"scheme": {"NONE"}, "expires_on": {"2027-01-31"}}, "expires_on", "Only a certification that is held can expire: choose its scheme, or leave the date empty."},
		{"date of a scheme", url.Values{"scheme": {"SQF"}, "expires_on": {"2027-01-31"}}, "expires_on", ""},
	})
}

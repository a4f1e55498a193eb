package forms

import (
	"net/url"
	"time"

	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/modules/purchasing"
)

// ApprovalNames are the decisions a supplier's approval form offers, as
// the page's confirmation words them.
var ApprovalNames = map[supplier.ApprovalStatus]string{
	supplier.ApprovalStatusAPPROVED:  "approved",
	supplier.ApprovalStatusSUSPENDED: "suspended",
	supplier.ApprovalStatusREJECTED:  "rejected",
	supplier.ApprovalStatusPENDING:   "reset to PENDING",
}

// ParseApproval reads a supplier's approval form at now: a decision of
// ApprovalNames, and for an approval an optional expiry date after now.
func ParseApproval(v url.Values, now time.Time) (purchasing.Approval, Errors) {
	var errs Errors
	a := purchasing.Approval{Status: supplier.ApprovalStatus(get(v, "status"))}
	if _, known := ApprovalNames[a.Status]; !known {
		errs.Add("", "Choose a decision: approve, suspend, reject or reset.")
	}
	if x := get(v, "expires"); x != "" {
		switch t, err := time.Parse(time.DateOnly, x); {
		case a.Status != supplier.ApprovalStatusAPPROVED:
			errs.Add("expires", "Only an approval can have an expiry date.")
		case err != nil:
			errs.Add("expires", "Enter a date such as 2027-01-31, or leave it empty for an approval without end.")
		case !t.After(now):
			errs.Add("expires", "The approval would end at once: choose a date after today.")
		default:
			a.Expires = &t
		}
	}
	return a, errs
}

// ParseCertification reads a supplier's certification form: a known
// scheme (or none recorded), and an expiry date only for a scheme held.
func ParseCertification(v url.Values) (purchasing.Certification, Errors) {
	var errs Errors
	var cert purchasing.Certification
	if x := get(v, "scheme"); x != "" {
		sc := supplier.CertificationScheme(x)
		if supplier.CertificationSchemeValidator(sc) != nil {
			errs.Add("scheme", "Choose a scheme from the list.")
		}
		cert.Scheme = &sc
	}
	if x := get(v, "expires_on"); x != "" {
		t, err := time.Parse(time.DateOnly, x)
		switch {
		case err != nil:
			errs.Add("expires_on", "Enter a date such as 2027-01-31, or leave it empty.")
		case cert.Scheme == nil || *cert.Scheme == supplier.CertificationSchemeNONE:
			errs.Add("expires_on", "Only a certification that is held can expire: choose its scheme, or leave the date empty.")
		default:
			cert.ExpiresOn = &t
		}
	}
	return cert, errs
}

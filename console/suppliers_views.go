// What the suppliers pages show: their data types and a supplier's standing
// in words.

package console

import (
	"fmt"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/modules/purchasing"
)

// suppliersView is the suppliers page's own data.
type suppliersView struct {
	Env               string
	Statuses, Sorts   []choice
	Rows              []supplierRow
	Expiring          []expiringRow
	Filtered          bool
	First, Prev, Next string
	From, To          int
}

// supplierRow is a supplier as a list shows it.
type supplierRow struct {
	*ent.Supplier
	Link string
	// Standing is the approval as it reads now.
	Standing string
	// CertExpired is a certification whose last day has passed.
	CertExpired bool
}

// expiringRow is an approval or certification that ends soon.
type expiringRow struct {
	purchasing.Expiry
	Link string
	// What names it: "Approval", or the certification's scheme.
	What string
	// Days is how many whole days are left.
	Days int
}

// supplierView is a supplier's page.
type supplierView struct {
	Env      string
	Supplier *ent.Supplier
	// Standing is the approval as it reads now.
	Standing string
	// CertExpired is a certification whose last day has passed.
	CertExpired bool
	Back        string
	// Act is whether the person may decide (operators and admins).
	Act     bool
	Schemes []choice
	// Approval and Certification are the two forms, each with its own
	// errors.
	Approval, Certification *form
}

// approvalLine says a supplier's approval as it reads now.
func approvalLine(s *ent.Supplier) string {
	if s.ApprovalExpiry == nil {
		return string(s.ApprovalStatus)
	}
	if s.ApprovalStatus == supplier.ApprovalStatusAPPROVED {
		return fmt.Sprintf("%s until %s", s.ApprovalStatus, stamp(*s.ApprovalExpiry))
	}
	return fmt.Sprintf("%s (its approval ended %s)", s.ApprovalStatus, stamp(*s.ApprovalExpiry))
}

// certExpired reports whether a supplier's certification ended before the
// day of now (UTC): a certificate holds through its expiry date.
func certExpired(s *ent.Supplier, now time.Time) bool {
	d := s.CertificationExpiresOn
	if d == nil {
		return false
	}
	today := now.UTC().Truncate(24 * time.Hour)
	end := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	return end.Before(today)
}

package purchasing

import (
	"context"
	"fmt"
	"sort"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/supplier"
)

// SupplierSorts are the orders a list of suppliers can take: the API's
// sortable fields (company, created_at, id, supplier_code, updated_at), each
// either way.
var SupplierSorts = []string{"company", "supplier_code", "created_at", "updated_at", "id"}

// SupplierFilter narrows a list of suppliers.
type SupplierFilter struct {
	// Search is part of the company or the supplier code, in any case (the
	// API's search).
	Search string
	// Status is the approval status as read (an expired approval reads
	// PENDING); empty for any.
	Status supplier.ApprovalStatus
	// Sort is one of SupplierSorts ("" for company); Desc reverses it. The
	// id breaks ties.
	Sort string
	Desc bool
	// Offset skips that many; Limit is the number of suppliers (0: all).
	Offset, Limit int
}

// ListSuppliers lists the suppliers of the viewer's account in ctx that
// match f, as of now.
func ListSuppliers(ctx context.Context, c *ent.Client, f SupplierFilter, now time.Time) ([]*ent.Supplier, error) {
	if f.Offset < 0 || f.Limit < 0 {
		return nil, fmt.Errorf("suppliers: offset and limit must not be negative")
	}
	q := c.Supplier.Query()
	if f.Search != "" {
		q.Where(supplier.Or(supplier.CompanyContainsFold(f.Search), supplier.SupplierCodeContainsFold(f.Search)))
	}
	live := supplier.Or(supplier.ApprovalExpiryIsNil(), supplier.ApprovalExpiryGT(now))
	switch f.Status {
	case "":
	case supplier.ApprovalStatusAPPROVED:
		q.Where(supplier.ApprovalStatusEQ(f.Status), live)
	case supplier.ApprovalStatusPENDING:
		q.Where(supplier.Or(supplier.ApprovalStatusEQ(f.Status),
			supplier.And(supplier.ApprovalStatusEQ(supplier.ApprovalStatusAPPROVED), supplier.Not(live))))
	default:
		if err := supplier.ApprovalStatusValidator(f.Status); err != nil {
			return nil, fmt.Errorf("suppliers: %w", err)
		}
		q.Where(supplier.ApprovalStatusEQ(f.Status))
	}
	field := f.Sort
	if field == "" {
		field = "company"
	}
	known := false
	for _, s := range SupplierSorts {
		known = known || s == field
	}
	if !known {
		return nil, fmt.Errorf("suppliers: cannot sort by %q", field)
	}
	order := ent.Asc
	if f.Desc {
		order = ent.Desc
	}
	if field == "id" {
		q.Order(order(supplier.FieldID))
	} else {
		q.Order(order(field), order(supplier.FieldID))
	}
	if f.Offset > 0 {
		q.Offset(f.Offset)
	}
	if f.Limit > 0 {
		q.Limit(f.Limit)
	}
	return q.All(ctx)
}

// Expiry is an approval or a certification of a supplier that ends soon.
type Expiry struct {
	Supplier *ent.Supplier
	// Certification is true for a certification (its scheme on Supplier),
	// false for an approval.
	Certification bool
	// Ends is when it ends: the approval's expiry, or the certification's
	// date.
	Ends time.Time
}

// ExpiringSuppliers are the approvals that end after now and within window
// of it, and the certifications (a scheme other than NONE) whose date is
// from now's day to the end of the window, of the viewer's account in ctx,
// soonest first.
func ExpiringSuppliers(ctx context.Context, c *ent.Client, now time.Time, window time.Duration) ([]Expiry, error) {
	now = now.UTC()
	end := now.Add(window)
	today := now.Truncate(24 * time.Hour)
	ss, err := c.Supplier.Query().Where(supplier.Or(
		supplier.And(supplier.ApprovalStatusEQ(supplier.ApprovalStatusAPPROVED), supplier.ApprovalExpiryGT(now), supplier.ApprovalExpiryLTE(end)),
		supplier.And(supplier.CertificationSchemeNotNil(), supplier.CertificationSchemeNEQ(supplier.CertificationSchemeNONE),
			supplier.CertificationExpiresOnGTE(today), supplier.CertificationExpiresOnLTE(end)),
	)).Order(ent.Asc(supplier.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	var out []Expiry
	for _, s := range ss {
		if e := s.ApprovalExpiry; s.ApprovalStatus == supplier.ApprovalStatusAPPROVED && e != nil && e.After(now) && !e.After(end) {
			out = append(out, Expiry{Supplier: s, Ends: e.UTC()})
		}
		if e := s.CertificationExpiresOn; e != nil && s.CertificationScheme != nil && *s.CertificationScheme != supplier.CertificationSchemeNONE &&
			!e.Before(today) && !e.After(end) {
			out = append(out, Expiry{Supplier: s, Certification: true, Ends: e.UTC()})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ends.Before(out[j].Ends) })
	return out, nil
}

package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/modules/purchasing"
	"larder.dev/larder/internal/platform/store"
)

// supplierApproval returns the command that records approval decision status.
func supplierApproval(status supplier.ApprovalStatus) func(context.Context, *env, []string) error {
	return func(ctx context.Context, e *env, args []string) error {
		name := "supplier " + map[supplier.ApprovalStatus]string{
			supplier.ApprovalStatusAPPROVED:  "approve",
			supplier.ApprovalStatusSUSPENDED: "suspend",
			supplier.ApprovalStatusREJECTED:  "reject",
			supplier.ApprovalStatusPENDING:   "reset",
		}[status]
		c := e.command(name, needs{org: inAccount, required: []string{"supplier"}})
		ref := c.String("supplier", "", "supplier_code or id (required)")
		expires := ""
		if status == supplier.ApprovalStatusAPPROVED {
			c.StringVar(&expires, "expires", "", "date (YYYY-MM-DD, the approval ends at its start, UTC) or RFC 3339 time the approval ends")
		}
		a := purchasing.Approval{Status: status}
		return c.run(ctx, args, func() error {
			if expires != "" {
				t, err := parseDateOrTime(expires)
				if err != nil {
					return fmt.Errorf("--expires: %w", err)
				}
				a.Expires = &t
			}
			return nil
		}, func(ctx context.Context, st *store.Store) error {
			return e.onSupplier(ctx, st, *ref, func(ctx context.Context, tx *ent.Tx, id int) (*ent.Supplier, error) {
				return purchasing.SetApproval(ctx, tx, id, a)
			})
		})
	}
}

// supplierCertify records a supplier's certification.
func supplierCertify(ctx context.Context, e *env, args []string) error {
	c := e.command("supplier certify", needs{org: inAccount, required: []string{"supplier"}})
	ref := c.String("supplier", "", "supplier_code or id (required)")
	scheme := c.String("scheme", "", "SQF, BRC, GFSI, SSC22000, IFS, GLOBALGAP, PRIMUS, GFSCANADA, GAP, OTHER, NONE (holds none), or empty: not recorded")
	expiresOn := c.String("expires-on", "", "date (YYYY-MM-DD) the certification expires")
	var cert purchasing.Certification
	return c.run(ctx, args, func() error {
		if *scheme != "" {
			s := supplier.CertificationScheme(*scheme)
			cert.Scheme = &s
		}
		if *expiresOn != "" {
			t, err := time.Parse(time.DateOnly, *expiresOn)
			if err != nil {
				return fmt.Errorf("--expires-on must be a date such as 2027-01-31: %w", err)
			}
			cert.ExpiresOn = &t
		}
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		return e.onSupplier(ctx, st, *ref, func(ctx context.Context, tx *ent.Tx, id int) (*ent.Supplier, error) {
			return purchasing.SetCertification(ctx, tx, id, cert)
		})
	})
}

// onSupplier runs change on the supplier named by ref (a code, or an id) in
// one transaction of the account of ctx and prints the supplier.
func (e *env) onSupplier(ctx context.Context, st *store.Store, ref string, change func(context.Context, *ent.Tx, int) (*ent.Supplier, error)) error {
	var s *ent.Supplier
	err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
		id, err := tx.Supplier.Query().Where(supplier.SupplierCode(ref)).OnlyID(ctx)
		if ent.IsNotFound(err) {
			if n, convErr := strconv.Atoi(ref); convErr == nil {
				id, err = n, nil
			}
		}
		if err != nil {
			return err
		}
		s, err = change(ctx, tx, id)
		return err
	})
	if ent.IsNotFound(err) {
		return fmt.Errorf("supplier %s: no such supplier in this account", ref)
	}
	if err != nil {
		return err
	}
	return e.print(map[string]any{"id": s.ID, "supplier_code": s.SupplierCode, "company": s.Company,
		"approval_status": s.ApprovalStatus, "approval_expiry": s.ApprovalExpiry,
		"certification_scheme": s.CertificationScheme, "certification_expires_on": dateOnly(s.CertificationExpiresOn)},
		fmt.Sprintf("supplier %s is %s", ref, s.ApprovalStatus))
}

// parseDateOrTime reads a date (midnight UTC) or an RFC 3339 time.
func parseDateOrTime(v string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a date (2027-01-31) nor an RFC 3339 time", v)
	}
	return t, nil
}

// dateOnly shows a stored date as YYYY-MM-DD.
func dateOnly(t *time.Time) *string {
	if t == nil {
		return nil
	}
	d := t.UTC().Format(time.DateOnly)
	return &d
}

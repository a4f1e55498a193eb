package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/modules/purchasing"
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
		fs, err := e.flags(name)
		if err != nil {
			return err
		}
		acct := e.accountFlags(fs)
		ref := fs.String("supplier", "", "supplier_code or id (required)")
		expires := ""
		if status == supplier.ApprovalStatusAPPROVED {
			fs.StringVar(&expires, "expires", "", "date (YYYY-MM-DD, the approval ends at its start, UTC) or RFC 3339 time the approval ends")
		}
		if _, err := e.parse(fs, args); err != nil {
			return err
		}
		if *ref == "" {
			return fmt.Errorf("%s needs --supplier", name)
		}
		a := purchasing.Approval{Status: status}
		if expires != "" {
			t, err := parseDateOrTime(expires)
			if err != nil {
				return fmt.Errorf("--expires: %w", err)
			}
			a.Expires = &t
		}
		return e.onSupplier(ctx, acct, name, *ref, func(ctx context.Context, tx *ent.Tx, id int) (*ent.Supplier, error) {
			return purchasing.SetApproval(ctx, tx, id, a)
		})
	}
}

// supplierCertify records a supplier's certification.
func supplierCertify(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("supplier certify")
	if err != nil {
		return err
	}
	acct := e.accountFlags(fs)
	ref := fs.String("supplier", "", "supplier_code or id (required)")
	scheme := fs.String("scheme", "", "SQF, BRC, GFSI, SSC22000, IFS, GLOBALGAP, PRIMUS, GFSCANADA, GAP, OTHER, NONE (holds none), or empty: not recorded")
	expiresOn := fs.String("expires-on", "", "date (YYYY-MM-DD) the certification expires")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *ref == "" {
		return fmt.Errorf("supplier certify needs --supplier")
	}
	var c purchasing.Certification
	if *scheme != "" {
		s := supplier.CertificationScheme(*scheme)
		c.Scheme = &s
	}
	if *expiresOn != "" {
		t, err := time.Parse(time.DateOnly, *expiresOn)
		if err != nil {
			return fmt.Errorf("--expires-on must be a date such as 2027-01-31: %w", err)
		}
		c.ExpiresOn = &t
	}
	return e.onSupplier(ctx, acct, "supplier certify", *ref, func(ctx context.Context, tx *ent.Tx, id int) (*ent.Supplier, error) {
		return purchasing.SetCertification(ctx, tx, id, c)
	})
}

// onSupplier runs change on the supplier named by ref (a code, or an id) in
// one transaction of the account and prints the supplier.
func (e *env) onSupplier(ctx context.Context, acct accountFlags, name, ref string, change func(context.Context, *ent.Tx, int) (*ent.Supplier, error)) error {
	ctx, st, err := acct.open(ctx, e, name)
	if err != nil {
		return err
	}
	defer st.Close()
	var s *ent.Supplier
	err = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
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

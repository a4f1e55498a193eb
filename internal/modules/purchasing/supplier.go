// Package purchasing holds the workflows of suppliers, purchase orders and
// bills, shared by the API and the web application, which the admin CLI
// stands for (approvals, certifications, cancellations).
package purchasing

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql/sqlgraph"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/problem"
)

// DeleteSupplier removes a supplier without purchasing history; one with
// history (any record that references it: a purchase order, a bill, a
// material it supplies) is deactivated instead and kept (spec States,
// Supplier). The answer is the record, with active telling which happened;
// deleted reports a removal. The removal is tried under a savepoint, so the
// database's foreign keys decide what history is, whatever references
// suppliers now or later.
func DeleteSupplier(ctx context.Context, tx *ent.Tx, id int) (s *ent.Supplier, deleted bool, err error) {
	// Direct SQL: a savepoint around the delete, so that a supplier with history (a foreign key refuses the delete) is deactivated instead in the same transaction; the savepoint itself reads and writes no rows.
	s, err = tx.Supplier.Get(ctx, id)
	if err != nil {
		return nil, false, err
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT supplier_delete"); err != nil {
		return nil, false, fmt.Errorf("delete supplier %d: %w", id, err)
	}
	err = tx.Supplier.DeleteOne(s).Exec(ctx)
	if err == nil {
		return s, true, nil
	}
	if !sqlgraph.IsForeignKeyConstraintError(err) {
		return nil, false, err
	}
	if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT supplier_delete"); err != nil {
		return nil, false, fmt.Errorf("delete supplier %d: %w", id, err)
	}
	if !s.Active {
		return s, false, nil // deactivated already: nothing changes, no event
	}
	s, err = tx.Supplier.UpdateOne(s).SetActive(false).Save(ctx)
	return s, false, err
}

// Approval is an approval decision of the web application.
type Approval struct {
	Status supplier.ApprovalStatus
	// Expires ends an approval (APPROVED only); nil: no end.
	Expires *time.Time
}

// SetApproval records an approval decision and emits
// supplier.approval_changed. Repeating the current decision with the same
// expiry is refused: it would change nothing.
func SetApproval(ctx context.Context, tx *ent.Tx, id int, a Approval) (*ent.Supplier, error) {
	if a.Expires != nil && a.Status != supplier.ApprovalStatusAPPROVED {
		return nil, problem.Invalid("approval_expiry", "only an approval (APPROVED) can expire")
	}
	if err := supplier.ApprovalStatusValidator(a.Status); err != nil {
		return nil, problem.Invalidf("approval_status", "must be one of PENDING, APPROVED, REJECTED, SUSPENDED (got %q)", a.Status)
	}
	s, err := tx.Supplier.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.ApprovalStatus == a.Status && sameTime(s.ApprovalExpiry, a.Expires) {
		return nil, problem.Conflict(problem.InvalidState, "approval_status", fmt.Sprintf("The supplier is %s already.", a.Status))
	}
	u := tx.Supplier.UpdateOne(s).SetApprovalStatus(a.Status)
	if a.Expires != nil {
		u.SetApprovalExpiry(a.Expires.UTC().Truncate(time.Second))
	} else {
		u.ClearApprovalExpiry()
	}
	return u.Save(hooks.EmitAs(ctx, "approval_changed"))
}

// Certification is a supplier's certification as the web application records it.
type Certification struct {
	// Scheme is the scheme held; NONE: none held; nil: not recorded.
	Scheme *supplier.CertificationScheme
	// ExpiresOn is the date the certification ends, if any.
	ExpiresOn *time.Time
}

// SetCertification records a supplier's certification (supplier.updated).
func SetCertification(ctx context.Context, tx *ent.Tx, id int, c Certification) (*ent.Supplier, error) {
	if c.Scheme != nil {
		if err := supplier.CertificationSchemeValidator(*c.Scheme); err != nil {
			return nil, problem.Invalidf("certification_scheme", "must be one of SQF, BRC, GFSI, SSC22000, IFS, GLOBALGAP, PRIMUS, GFSCANADA, GAP, OTHER, NONE (got %q)", *c.Scheme)
		}
	}
	if c.ExpiresOn != nil && (c.Scheme == nil || *c.Scheme == supplier.CertificationSchemeNONE) {
		return nil, problem.Invalid("certification_expires_on", "needs a certification scheme other than NONE")
	}
	u := tx.Supplier.UpdateOneID(id).SetNillableCertificationScheme(c.Scheme)
	if c.Scheme == nil {
		u.ClearCertificationScheme()
	}
	if c.ExpiresOn != nil {
		d := c.ExpiresOn.UTC().Truncate(24 * time.Hour)
		u.SetCertificationExpiresOn(d)
	} else {
		u.ClearCertificationExpiresOn()
	}
	return u.Save(ctx)
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

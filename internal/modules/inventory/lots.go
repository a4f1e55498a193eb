package inventory

import (
	"context"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/problem"
)

// ProductLotFlow is the product lot's workflow: the generated handlers of
// its archive and unarchive actions call its steps.
var ProductLotFlow = ent.ProductLotFlow{Archive: ArchiveLot, Unarchive: UnarchiveLot}

// ArchiveLot retires a lot (spec States, Product lot): refused for an
// archived lot and for the product's unnumbered lot. The API and the web
// application share it.
func ArchiveLot(ctx context.Context, tx *ent.Tx, id int) (*ent.ProductLot, error) {
	return setArchived(ctx, tx, id, true)
}

// UnarchiveLot brings an archived lot back: refused for a lot that is not
// archived and for the product's unnumbered lot.
func UnarchiveLot(ctx context.Context, tx *ent.Tx, id int) (*ent.ProductLot, error) {
	return setArchived(ctx, tx, id, false)
}

// setArchived moves archived from !to to to. The condition is part of the
// update, so of two concurrent archives one wins and the other is refused.
func setArchived(ctx context.Context, tx *ent.Tx, id int, to bool) (*ent.ProductLot, error) {
	lot, err := tx.ProductLot.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	action := map[bool]string{true: "archived", false: "unarchived"}[to]
	if lot.LotNumber == nil {
		return nil, problem.Conflict(problem.InvalidState, "", "The unnumbered lot of a product can be neither archived nor unarchived.")
	}
	out, err := tx.ProductLot.UpdateOneID(id).
		Where(productlot.Archived(!to)).
		SetArchived(to).
		Save(hooks.EmitAs(ctx, action))
	if ent.IsNotFound(err) {
		return nil, problem.Conflict(problem.InvalidState, "", "The lot is "+action+" already.")
	}
	return out, err
}

// QCDecision is a quality decision on a lot, made in the web application.
type QCDecision struct {
	Status productlot.QcStatus
	Note   *string
	// ReleaseExpiresAt ends a release (RELEASED only); nil: no expiry.
	ReleaseExpiresAt *time.Time
}

// SetLotQC records a quality decision: the status, when, why, and for a
// release when it stops counting. It emits product_lot.qc_status_changed.
// A decision that changes nothing is refused, so each event is a change.
func SetLotQC(ctx context.Context, tx *ent.Tx, id int, d QCDecision, now time.Time) (*ent.ProductLot, error) {
	if err := productlot.QcStatusValidator(d.Status); err != nil {
		return nil, problem.Invalidf("status", "must be one of AVAILABLE, ON_HOLD, QUARANTINE, RELEASED, REJECTED")
	}
	if d.ReleaseExpiresAt != nil && d.Status != productlot.QcStatusRELEASED {
		return nil, problem.Invalid("release_expires_at", "applies to RELEASED only")
	}
	lot, err := tx.ProductLot.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if lot.QcStatus == d.Status && equalText(lot.QcStatusNote, d.Note) && equalTime(lot.QcReleaseExpiresAt, d.ReleaseExpiresAt) {
		return nil, problem.Conflict(problem.InvalidState, "status", "The lot's quality status is "+string(d.Status)+" already.")
	}
	u := tx.ProductLot.UpdateOneID(id).
		SetQcStatus(d.Status).
		SetQcStatusAt(now.UTC().Truncate(time.Microsecond))
	// The note and the expiry belong to this decision: without them, the
	// previous decision's are cleared.
	if d.Note != nil {
		u.SetQcStatusNote(*d.Note)
	} else {
		u.ClearQcStatusNote()
	}
	if d.ReleaseExpiresAt != nil {
		u.SetQcReleaseExpiresAt(d.ReleaseExpiresAt.UTC().Truncate(time.Microsecond))
	} else {
		u.ClearQcReleaseExpiresAt()
	}
	return u.Save(hooks.EmitAs(ctx, "qc_status_changed"))
}

func equalText(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func equalTime(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }

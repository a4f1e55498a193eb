package hooks

import (
	"context"
	"time"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/ent/supplier"
)

// ExpireApprovals computes a supplier's approval when it is read (spec
// Supplier: an expired approval reads PENDING): on every query of suppliers,
// and on the supplier a create or update returns, so a write answers what a
// later read returns.
func ExpireApprovals() ent.Interceptor {
	return ent.InterceptFunc(func(next ent.Querier) ent.Querier {
		return ent.QuerierFunc(func(ctx context.Context, q ent.Query) (ent.Value, error) {
			v, err := next.Query(ctx, q)
			if err == nil {
				expireApprovals(v, time.Now())
			}
			return v, err
		})
	})
}

// ExpireApprovalOnWrite is ExpireApprovals for the supplier a mutation returns.
func ExpireApprovalOnWrite() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.SupplierFunc(func(ctx context.Context, m *gen.SupplierMutation) (ent.Value, error) {
			v, err := next.Mutate(ctx, m)
			if err == nil {
				expireApprovals(v, time.Now())
			}
			return v, err
		})
	}, ent.OpCreate|ent.OpUpdateOne)
}

// expireApprovals reads the approval of the suppliers in v as of now.
func expireApprovals(v ent.Value, now time.Time) {
	switch x := v.(type) {
	case *gen.Supplier:
		expireApproval(x, now)
	case []*gen.Supplier:
		for _, s := range x {
			expireApproval(s, now)
		}
	}
}

// expireApproval sets an approval whose expiry has passed to PENDING.
func expireApproval(s *gen.Supplier, now time.Time) {
	if s != nil && s.ApprovalStatus == supplier.ApprovalStatusAPPROVED && s.ApprovalExpiry != nil && !s.ApprovalExpiry.After(now) {
		s.ApprovalStatus = supplier.ApprovalStatusPENDING
	}
}

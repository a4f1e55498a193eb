package console

import (
	"context"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/policy"
)

// act runs change in one transaction of the env account of the person's
// organization, acting as the person, and records the audit entry it
// returns in the same transaction (organization and environment filled in,
// and the time unless the entry has the change's own).
func (s *Server) act(c *caller, env string, change func(context.Context, *ent.Tx) (audit.Entry, error)) error {
	ctx, err := tenancy.Actor(c.Context(), s.o.Client, c.orgID(), policy.Environment(env), c.Me.Person.ID)
	if err != nil {
		return err
	}
	return ent.RunInTx(ctx, s.o.Client, func(tx *ent.Tx) error {
		e, err := change(ctx, tx)
		if err != nil {
			return err
		}
		e.OrganizationID, e.Env = c.orgID(), policy.Environment(env)
		if e.At.IsZero() {
			e.At = s.o.Now()
		}
		// System viewer: the audit history is system-only; the record is written in the decision's transaction, naming the person of ctx.
		return audit.Record(policy.System(ctx), tx, e)
	})
}

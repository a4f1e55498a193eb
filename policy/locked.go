package policy

import (
	"context"

	"entgo.io/ent"

	"larder.dev/larder/ent/privacy"
	"larder.dev/larder/internal/platform/problem"
)

// Locker is implemented by the generated mutations of schemas with a field
// annotated annotate.Locks() (is_global, read_only).
type Locker interface {
	// Locked reports whether a row the mutation targets is read-only.
	Locked(ctx context.Context) (bool, error)
}

// DenyLockedRows refuses to update or delete a read-only row (a shared row, a
// supplied unit) with 403 READ_ONLY_RECORD. It runs before the tenant filter,
// which would otherwise make such a row look missing.
func DenyLockedRows() Rule {
	return Rule{Name: "read-only rows", Does: "Updating or deleting a shared or supplied row (a field annotated Locks: is_global, read_only) is 403 READ_ONLY_RECORD.",
		mutation: denyLockedRows}
}

var denyLockedRows = privacy.MutationRuleFunc(func(ctx context.Context, m ent.Mutation) error {
	if m.Op().Is(ent.OpCreate) {
		return privacy.Skip
	}
	l, ok := m.(Locker)
	if !ok {
		return privacy.Skip
	}
	locked, err := l.Locked(ctx)
	if err != nil {
		return err
	}
	if locked {
		return problem.New(problem.ReadOnlyRecord, "this record is shared or supplied and cannot be changed or deleted")
	}
	return privacy.Skip
})

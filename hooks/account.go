// Package hooks holds the ent hooks the schemas and the client compose: the
// account stamp, the reference check, the transactional outbox and per-entity
// invariants; and the statement modifiers that they and the write workflows
// share (statements.go).
package hooks

import (
	"context"
	"slices"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/policy"
)

// StampAccount sets account_id on every create from the viewer, so no body and
// no handler ever chooses the owner. The system viewer sets it explicitly.
func StampAccount() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if v := policy.FromContext(ctx); v != nil && !v.IsSystem() && v.AccountID != 0 {
				if err := m.SetField("account_id", v.AccountID); err != nil {
					return nil, err
				}
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate)
}

type linesKey struct{}

// WritingLines returns ctx under which lines of type lineType (an ent type
// name) are written by their document's generated handler: it checked their
// references for the whole body at once, naming each line, and the change is
// the document's own event, so neither the per-row reference check nor the
// per-line .updated event runs.
func WritingLines(ctx context.Context, lineType string) context.Context {
	return context.WithValue(ctx, linesKey{}, lineType)
}

// writingLines reports whether m is a line its document writes (WritingLines).
func writingLines(ctx context.Context, m ent.Mutation) bool {
	t, _ := ctx.Value(linesKey{}).(string)
	return t != "" && t == m.Type()
}

type checkedKey struct{}

// CheckedReferences returns ctx under which rows of the given ent types are
// written by a workflow that checked their references itself, in one query per
// column (a bill's lots name the products and locations its lines were checked
// for, and its movements the lots it just made): the per-row check, a query
// per row and column, is skipped for them.
func CheckedReferences(ctx context.Context, types ...string) context.Context {
	had, _ := ctx.Value(checkedKey{}).([]string)
	return context.WithValue(ctx, checkedKey{}, append(slices.Clip(had), types...))
}

func checkedReferences(ctx context.Context, m ent.Mutation) bool {
	types, _ := ctx.Value(checkedKey{}).([]string)
	return slices.Contains(types, m.Type())
}

// CheckReferences refuses a foreign key that names a row the caller cannot see
// (missing, or another account's) with a 400 naming the field.
func CheckReferences() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if !policy.FromContext(ctx).IsSystem() && !writingLines(ctx, m) && !checkedReferences(ctx, m) {
				if err := gen.CheckReferences(ctx, m); err != nil {
					return nil, err
				}
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne)
}

package hooks

import (
	"context"
	"fmt"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/documentcounter"
	"larder.dev/larder/ent/hook"
)

// NumberDocument gives a new document (a production run, a purchase order,
// a bill) the account's next number in field, unless the creation sets one.
func NumberDocument(field string) ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if _, set := m.Field(field); set {
				return next.Mutate(ctx, m)
			}
			if _, err := m.(interface{ Tx() (*gen.Tx, error) }).Tx(); err != nil {
				return nil, fmt.Errorf("document numbers must be given in a transaction: %w", err)
			}
			acct, ok := m.Field("account_id")
			if !ok {
				return nil, fmt.Errorf("number a %s: no account", m.Type())
			}
			n, err := nextNumber(ctx, m.(interface{ Client() *gen.Client }).Client(), acct.(int), field)
			if err != nil {
				return nil, err
			}
			if err := m.SetField(field, n); err != nil {
				return nil, err
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate)
}

// nextNumber increments the account's counter of document and returns the
// new value. The upsert takes the counter row's lock (PostgreSQL holds it
// until the transaction ends; SQLite serialises writers), so a concurrent
// creation waits for this one to commit or roll back: numbers increase
// without gaps, and a rolled-back creation gives its number back.
func nextNumber(ctx context.Context, c *gen.Client, account int, document string) (int, error) {
	err := c.DocumentCounter.Create().
		SetAccountID(account).
		SetDocument(document).
		SetLast(1).
		OnConflictColumns(documentcounter.FieldAccountID, documentcounter.FieldDocument).
		AddLast(1).
		Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("number %s: %w", document, err)
	}
	row, err := c.DocumentCounter.Query().
		Where(documentcounter.AccountID(account), documentcounter.Document(document)).
		Only(ctx)
	if err != nil {
		return 0, fmt.Errorf("number %s: %w", document, err)
	}
	return row.Last, nil
}

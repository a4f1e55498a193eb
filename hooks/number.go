package hooks

import (
	"context"
	"fmt"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/documentcounter"
	"larder.dev/larder/ent/hook"
)

// NumberProduction gives a new run the account's next production_no.
func NumberProduction() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ProductionFunc(func(ctx context.Context, m *gen.ProductionMutation) (ent.Value, error) {
			if _, set := m.ProductionNo(); !set {
				if _, err := m.Tx(); err != nil {
					return nil, fmt.Errorf("document numbers must be given in a transaction: %w", err)
				}
				acct, ok := m.AccountID()
				if !ok {
					return nil, fmt.Errorf("number a production: no account")
				}
				n, err := nextNumber(ctx, m.Client(), acct, "production_no")
				if err != nil {
					return nil, err
				}
				m.SetProductionNo(n)
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

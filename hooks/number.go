package hooks

import (
	"context"
	"fmt"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
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
			if _, ok := gen.TxOf(m); !ok {
				return nil, fmt.Errorf("document numbers must be given in a transaction (a %s was not)", m.Type())
			}
			acct, ok := m.Field("account_id")
			if !ok {
				return nil, fmt.Errorf("number a %s: no account", m.Type())
			}
			n, err := nextNumber(ctx, gen.ClientOf(m), acct.(int), field)
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

// nextCounter is the upsert of nextNumber, in SQL both PostgreSQL and SQLite
// (3.35 and later) read: it returns the new value in the same statement.
const nextCounter = `INSERT INTO document_counters (account_id, document, last) VALUES ($1, $2, 1)
ON CONFLICT (account_id, document) DO UPDATE SET last = document_counters.last + 1
RETURNING last`

// nextNumber increments the account's counter of document and returns the
// new value. The upsert takes the counter row's lock (PostgreSQL holds it
// until the transaction ends; SQLite serialises writers), so a concurrent
// creation waits for this one to commit or roll back: numbers increase
// without gaps, and a rolled-back creation gives its number back.
func nextNumber(ctx context.Context, c *gen.Client, account int, document string) (int, error) {
	// Direct SQL: one upsert with RETURNING takes the next document number (ent's upsert returns only the id, which cost a second statement); the account is the created document's, which its mixin stamped from the viewer.
	rows, err := c.QueryContext(ctx, nextCounter, account, document)
	if err != nil {
		return 0, fmt.Errorf("number %s: %w", document, err)
	}
	defer rows.Close()
	var n int
	if !rows.Next() {
		err = rows.Err()
		if err == nil {
			err = fmt.Errorf("the counter upsert returned no row")
		}
		return 0, fmt.Errorf("number %s: %w", document, err)
	}
	if err := rows.Scan(&n); err != nil {
		return 0, fmt.Errorf("number %s: %w", document, err)
	}
	return n, rows.Close()
}

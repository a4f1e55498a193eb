package hooks

// The statement modifiers that the hooks and the write workflows share:
// changing many rows in one round trip, and locking what a write reads.

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/shopspring/decimal"
)

// SetEach sets column to each row's own decimal in one UPDATE (a CASE on the
// id), for rows whose new values the caller computed exactly: the database
// does no arithmetic (SQLite's would be in binary floating point). Use it as
// the modifier of an ent Update restricted to ids. The CASE is the searched
// form (CASE WHEN id = $n …): Citus 13.2, planning such an update for one
// shard, substitutes a simple CASE's (CASE id WHEN $n …) parameters wrongly.
func SetEach(column string, ids []int, values map[int]decimal.Decimal) func(*sql.UpdateBuilder) {
	return func(u *sql.UpdateBuilder) {
		u.Set(column, sql.ExprFunc(func(b *sql.Builder) {
			b.WriteString("CASE")
			for _, id := range ids {
				b.WriteString(" WHEN ").Ident("id").WriteString(" = ").Arg(id).
					WriteString(" THEN CAST(").Arg(values[id].String()).WriteString(" AS NUMERIC)")
			}
			b.WriteString(" END")
		}))
	}
}

// ForUpdate locks the rows a query reads until the transaction ends
// (PostgreSQL; SQLite serialises writers already). Use it as the modifier of
// an ent query. The lock is FOR NO KEY UPDATE, the one an UPDATE that keeps
// the key takes: it excludes every other writer of the row, yet lets another
// transaction insert a row that references it (which takes KEY SHARE), so a
// writer that references a row before locking it cannot deadlock with one
// that locked it first.
func ForUpdate(s *sql.Selector) {
	if s.Dialect() == dialect.Postgres {
		s.For(sql.LockNoKeyUpdate)
	}
}

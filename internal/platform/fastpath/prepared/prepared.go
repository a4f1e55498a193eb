// Package prepared runs the server's own fixed statements (a key's lookup,
// the rate limit's upsert): prepared once on each connection, or, when
// preparing is off, sent with their text each time as an unnamed statement.
// A pooler in transaction mode (PgBouncer before 1.21) hands one server
// connection to many clients in turn, so a named statement prepared by one
// is unknown to the next, or collides with its own ("prepared statement "1"
// already exists"); `--db-statements 0` turns preparing off for these as for
// the statement cache.
package prepared

import (
	"context"
	"database/sql"
)

// Stmt is one statement.
type Stmt struct {
	db    *sql.DB
	query string
	// stmt is nil when preparing is off.
	stmt *sql.Stmt
}

// Prepare returns query on db, prepared when prepare is true.
func Prepare(db *sql.DB, query string, prepare bool) (*Stmt, error) {
	s := &Stmt{db: db, query: query}
	if !prepare {
		return s, nil
	}
	var err error
	s.stmt, err = db.Prepare(query)
	return s, err
}

// Prepared reports whether the statement is prepared.
func (s *Stmt) Prepared() bool { return s.stmt != nil }

// QueryRowContext runs the statement for one row.
func (s *Stmt) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	if s.stmt != nil {
		return s.stmt.QueryRowContext(ctx, args...)
	}
	// Direct SQL: the caller's own fixed statement (a key's lookup, the rate limit's upsert), sent with its text.
	return s.db.QueryRowContext(ctx, s.query, args...)
}

// ExecContext runs the statement.
func (s *Stmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	if s.stmt != nil {
		return s.stmt.ExecContext(ctx, args...)
	}
	// Direct SQL: the caller's own fixed statement (a key's use stamped), sent with its text.
	return s.db.ExecContext(ctx, s.query, args...)
}

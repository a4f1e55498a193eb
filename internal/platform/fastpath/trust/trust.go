// Package trust is the part of a trusted key's check (fastpath.TrustedKeys)
// that rides in the request's own statements: a boolean expression that the
// first rows the request reads carry, computed in their statement, so that
// the request learns whether its key still stands as it was trusted without
// a statement of its own. Package auth writes the expression and its
// arguments (Expr); the gate (handlers/gate.go) hands the request's Check to
// ent, whose queries carry a context's column (ent.Carry), and reads what the
// rows carried (Seen).
package trust

import (
	"fmt"
	"sync"

	entsql "entgo.io/ent/dialect/sql"
)

// Expr is a check's boolean expression of its arguments, under the alias of
// its column. Use one Expr for every check of its kind: ent keeps a compiled
// statement (Read) per column alias, so no two kinds share one.
type Expr struct {
	// Column is the alias of the expression's column among a row's columns.
	Column string
	// Write writes the expression of args, uncorrelated with the rows, each
	// argument through b.Arg: the database computes it once per statement.
	Write func(b *entsql.Builder, args []any)
}

// Check is one request's check: it asks for its column in every query that
// reads rows until a row has carried it, and keeps what the rows carried. A
// query that returns no row leaves it pending for the next; once a row has
// carried it, queries read as before. It is an ent.Carried.
type Check struct {
	expr *Expr
	args []any

	mu    sync.Mutex
	holds bool
	seen  bool
}

// New is a check of expr on args.
func New(expr *Expr, args []any) *Check {
	return &Check{expr: expr, args: args}
}

// Column is the alias of the check's column.
func (c *Check) Column() string { return c.expr.Column }

// Write writes the check's expression of args: its own arguments, or the
// placeholders of a statement being compiled.
func (c *Check) Write(b *entsql.Builder, args []any) { c.expr.Write(b, args) }

// Args are the check's arguments.
func (c *Check) Args() []any { return c.args }

// Wants reports whether no row has carried the check's value yet.
func (c *Check) Wants() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.seen
}

// Scan reads the check's column of a row.
func (c *Check) Scan(v any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch v := v.(type) {
	case nil:
		c.holds = false
	case bool:
		// A false is kept: rows read concurrently cannot undo it.
		c.holds = v && (!c.seen || c.holds)
	case int64: // SQLite's booleans
		c.holds = v != 0 && (!c.seen || c.holds)
	default:
		return fmt.Errorf("ent: key check: unexpected %T", v)
	}
	c.seen = true
	return nil
}

// Seen returns the value the rows carried (NULL is false; false if any row
// carried false), and whether a row carried one.
func (c *Check) Seen() (holds, seen bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.holds, c.seen
}

package policy

import (
	"context"
	"errors"
)

// A statement written outside ent (a "direct SQL" site of docs/ACCESS.md)
// reads an account's tables without the tenant filter of FilterTenantReads,
// so it carries the same filter itself, from here: the viewer's account is
// the statement's first parameter (AccountParam), bound by AccountArgs from
// the viewer of the context, and every table of an account the statement
// reads carries AccountRows (AccountOrSharedRows for a schema with shared
// rows) on its alias. A statement built of these reads what the tenant
// policy lets the viewer read, and runs for no one without an account.

// AccountParam is the placeholder of the viewer's account in a direct SQL
// statement: always its first parameter, so that a statement reading many
// tables binds the account once, whatever the dialect (SQLite numbers $N
// parameters in the order it meets them, and the account's comes first).
const AccountParam = "$1"

// ErrNoAccount refuses a direct SQL statement to a context without a viewer
// of an account: no viewer, or the system viewer, which has no account.
var ErrNoAccount = errors.New("a statement of an account's rows needs a viewer of an account")

// AccountRows is the predicate that limits the table alias to the viewer's
// account's rows, the condition of FilterTenantReads(false).
func AccountRows(alias string) string {
	return column(alias, "account_id") + " = " + AccountParam
}

// AccountOrSharedRows is the predicate that limits the table alias of a
// schema with shared rows to the viewer's account's rows and the shared
// rows, the condition of FilterTenantReads(true).
func AccountOrSharedRows(alias string) string {
	return "(" + column(alias, "account_id") + " = " + AccountParam + " OR " + column(alias, "is_global") + ")"
}

// AccountArgs returns the arguments of a direct SQL statement made of
// AccountRows and AccountOrSharedRows: the viewer's account (AccountParam)
// first, then args. Without a viewer of an account it fails with
// ErrNoAccount, and the statement is not run.
func AccountArgs(ctx context.Context, args ...any) ([]any, error) {
	v := FromContext(ctx)
	if v == nil || v.system || v.AccountID == 0 {
		return nil, ErrNoAccount
	}
	return append([]any{v.AccountID}, args...), nil
}

// column is alias.name; an alias is a plain SQL identifier, written in the
// statement's own text (never a value of a request), so anything else is
// a mistake of the statement and panics.
func column(alias, name string) string {
	if alias == "" {
		panic("policy: a table alias is needed")
	}
	for i, r := range alias {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			panic("policy: " + alias + " is no table alias")
		}
	}
	return alias + "." + name
}

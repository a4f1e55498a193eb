package testaccount

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"entgo.io/ent/dialect/sql/schema"

	"larder.dev/larder/ent/migrate"
)

// kept are the tables whose rows a reset leaves alone although they belong
// to the account or could reference its rows: how a developer reaches the
// test account (its keys), where its events go (its endpoints), and the
// audit history, none of them data the account holds. Every other table with
// an account_id is business data and is cleared; a table added later is
// cleared too unless it is named here.
var kept = map[string]bool{
	migrate.APIKeysTable.Name:          true,
	migrate.WebhookEndpointsTable.Name: true,
	migrate.AuditRecordsTable.Name:     true,
}

// step is the deletion of one table's rows of the account.
type step struct {
	table string
	// rows is a SELECT of the ids of the table's rows that belong to the
	// account ($1): by account_id, or, for a table without one, through its
	// references to rows that do.
	rows string
}

// plan is the order in which a reset deletes, each table after every table
// that references it, derived from the generated schema.
type plan []step

// thePlan is derived once: the schema is compiled in.
var thePlan = sync.OnceValues(func() (plan, error) { return derive(migrate.Tables) })

// derive orders the deletion of an account's rows over tables: the tables
// with an account_id referencing the accounts (except kept), and the tables
// without one whose rows reference those rows and would block or lose them
// (none in today's schema: the webhook deliveries and attempts carry their
// account). A table a
// reset keeps must not reference a cleared one, and the references among
// cleared tables must not form a cycle (a table referencing itself is
// deleted in one statement, which the databases check at its end).
func derive(tables []*schema.Table) (plan, error) {
	rows := map[string]string{} // table -> SELECT of its rows of the account
	byName := map[string]*schema.Table{}
	for _, t := range tables {
		byName[t.Name] = t
		if ownedByAccount(t) && !kept[t.Name] {
			rows[t.Name] = fmt.Sprintf("SELECT id FROM %s WHERE account_id = $1", t.Name)
		}
	}
	// Tables without an account_id join as long as one references a cleared
	// table, each through the rows it references.
	for grown := true; grown; {
		grown = false
		for _, t := range tables {
			if _, in := rows[t.Name]; in || kept[t.Name] || hasColumn(t, "account_id") {
				continue
			}
			var refs []string
			for _, fk := range t.ForeignKeys {
				if sel, ok := rows[fk.RefTable.Name]; ok && fk.RefTable != t && fk.OnDelete != schema.SetNull {
					refs = append(refs, fmt.Sprintf("%s IN (%s)", fk.Columns[0].Name, sel))
				}
			}
			if len(refs) > 0 {
				rows[t.Name] = fmt.Sprintf("SELECT id FROM %s WHERE %s", t.Name, strings.Join(refs, " OR "))
				grown = true
			}
		}
	}
	// Kept tables must not hold references that a reset would break.
	for _, t := range tables {
		if _, cleared := rows[t.Name]; cleared {
			continue
		}
		for _, fk := range t.ForeignKeys {
			if _, ok := rows[fk.RefTable.Name]; ok && fk.OnDelete != schema.SetNull && (kept[t.Name] || hasColumn(t, "account_id")) {
				return nil, fmt.Errorf("table %s, which a reset keeps, references %s, which it clears", t.Name, fk.RefTable.Name)
			}
		}
	}
	// Order: a table is deleted once every cleared table referencing it has
	// been (Kahn's algorithm, ties by name so the order is stable).
	referrers := map[string]map[string]bool{} // table -> cleared tables referencing it
	for name := range rows {
		for _, fk := range byName[name].ForeignKeys {
			ref := fk.RefTable.Name
			if _, ok := rows[ref]; ok && ref != name {
				if referrers[ref] == nil {
					referrers[ref] = map[string]bool{}
				}
				referrers[ref][name] = true
			}
		}
	}
	var out plan
	done := map[string]bool{}
	for len(done) < len(rows) {
		var ready []string
		for name := range rows {
			if done[name] {
				continue
			}
			free := true
			for r := range referrers[name] {
				free = free && done[r]
			}
			if free {
				ready = append(ready, name)
			}
		}
		if len(ready) == 0 {
			var left []string
			for name := range rows {
				if !done[name] {
					left = append(left, name)
				}
			}
			slices.Sort(left)
			return nil, fmt.Errorf("references among tables %v form a cycle: no order deletes them", left)
		}
		slices.Sort(ready)
		for _, name := range ready {
			out = append(out, step{table: name, rows: rows[name]})
			done[name] = true
		}
	}
	return out, nil
}

// ownedByAccount reports whether t's rows belong to an account: its
// account_id references the accounts.
func ownedByAccount(t *schema.Table) bool {
	for _, fk := range t.ForeignKeys {
		if fk.RefTable != nil && fk.RefTable.Name == migrate.AccountsTable.Name && fk.Columns[0].Name == "account_id" {
			return true
		}
	}
	return false
}

func hasColumn(t *schema.Table, name string) bool {
	return slices.ContainsFunc(t.Columns, func(c *schema.Column) bool { return c.Name == name })
}

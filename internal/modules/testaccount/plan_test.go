package testaccount

import (
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect/sql/schema"

	"larder.dev/larder/ent/migrate"
)

// The plan of the compiled schema clears every table whose account_id
// references the accounts but the keys and endpoints, and the deliveries and
// attempts of the account's events, which have no account_id; it keeps the
// tables of organizations, people and the audit history; and it deletes a
// table only after every table that references it.
func TestPlan(t *testing.T) {
	p, err := thePlan()
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, s := range p {
		pos[s.table] = i
	}
	for _, tb := range migrate.Tables {
		_, in := pos[tb.Name]
		if want := ownedByAccount(tb) && !kept[tb.Name]; want && !in {
			t.Errorf("%s, an account's table, is not cleared", tb.Name)
		}
	}
	for _, name := range []string{"webhook_deliveries", "webhook_attempts", "events", "document_counters", "idempotency_keys", "products", "locations"} {
		if _, in := pos[name]; !in {
			t.Errorf("%s is not cleared", name)
		}
	}
	for _, name := range []string{"api_keys", "webhook_endpoints", "audit_records", "accounts", "organizations", "users", "sessions", "user_links", "rate_windows"} {
		if _, in := pos[name]; in {
			t.Errorf("%s is cleared; a reset keeps it", name)
		}
	}
	for _, tb := range migrate.Tables {
		for _, fk := range tb.ForeignKeys {
			i, from := pos[tb.Name]
			j, to := pos[fk.RefTable.Name]
			if from && to && tb != fk.RefTable && i > j {
				t.Errorf("%s is deleted after %s, which it references", tb.Name, fk.RefTable.Name)
			}
		}
	}
	if len(p) < 50 {
		t.Errorf("the plan clears %d tables", len(p))
	}
}

// table is a table for derive: an id, the columns named, and references.
func table(name string, cols ...string) *schema.Table {
	t := &schema.Table{Name: name, Columns: []*schema.Column{{Name: "id"}}}
	for _, c := range cols {
		t.Columns = append(t.Columns, &schema.Column{Name: c})
	}
	return t
}

func refer(from *schema.Table, col string, to *schema.Table, onDelete schema.ReferenceOption) {
	for _, c := range from.Columns {
		if c.Name == col {
			from.ForeignKeys = append(from.ForeignKeys, &schema.ForeignKey{Columns: []*schema.Column{c}, RefTable: to, RefColumns: to.Columns[:1], OnDelete: onDelete})
		}
	}
}

// derive refuses a schema it cannot reset: a kept table referencing a
// cleared one, or cleared tables referencing each other in a cycle; and it
// orders a chain of references child first, through a table without an
// account_id, whatever the order the tables come in.
func TestDerive(t *testing.T) {
	accounts := table("accounts")
	owned := func(name string, cols ...string) *schema.Table {
		t := table(name, append([]string{"account_id"}, cols...)...)
		refer(t, "account_id", accounts, schema.Restrict)
		return t
	}

	parent, child := owned("widgets"), owned("widget_parts", "widget_id")
	refer(child, "widget_id", parent, schema.Cascade)
	log := table("widget_log", "part_id")
	refer(log, "part_id", child, schema.Restrict)
	p, err := derive([]*schema.Table{parent, accounts, log, child})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range p {
		order = append(order, s.table)
	}
	if !slices.Equal(order, []string{"widget_log", "widget_parts", "widgets"}) {
		t.Errorf("order %v", order)
	}
	if got := p[0].rows; got != "SELECT id FROM widget_log WHERE part_id IN (SELECT id FROM widget_parts WHERE account_id = $1)" {
		t.Errorf("rows of a table without account_id: %s", got)
	}

	keys := owned("api_keys", "widget_id")
	refer(keys, "widget_id", parent, schema.Restrict)
	if _, err := derive([]*schema.Table{accounts, parent, keys}); err == nil || !strings.Contains(err.Error(), "api_keys, which a reset keeps, references widgets") {
		t.Errorf("kept table referencing a cleared one: %v", err)
	}
	history := table("audit_records", "widget_id")
	refer(history, "widget_id", parent, schema.Restrict)
	if _, err := derive([]*schema.Table{accounts, parent, history}); err == nil || !strings.Contains(err.Error(), "audit_records, which a reset keeps, references widgets") {
		t.Errorf("audit history referencing a cleared table: %v", err)
	}

	a, b := owned("a", "b_id"), owned("b", "a_id")
	refer(a, "b_id", b, schema.Restrict)
	refer(b, "a_id", a, schema.Restrict)
	self := owned("self", "parent_id")
	refer(self, "parent_id", self, schema.Cascade)
	if _, err := derive([]*schema.Table{accounts, a, b, self}); err == nil || !strings.Contains(err.Error(), "[a b] form a cycle") {
		t.Errorf("cycle: %v", err)
	}
	if _, err := derive([]*schema.Table{accounts, self}); err != nil {
		t.Errorf("a table referencing itself: %v", err)
	}
}

package codegen

import (
	"strings"
	"testing"

	"entgo.io/ent/dialect/sql/schema"

	"larder.dev/larder/internal/generators/annotate"
)

// The generator refuses a class that the table's account_id does not allow,
// and a class it does not know; it accepts every other.
func TestPlacementError(t *testing.T) {
	table := func(account string) *schema.Table {
		tb := &schema.Table{Name: "things", Columns: []*schema.Column{{Name: "id"}}}
		switch account {
		case "not null":
			tb.Columns = append(tb.Columns, &schema.Column{Name: "account_id"})
		case "nullable":
			tb.Columns = append(tb.Columns, &schema.Column{Name: "account_id", Nullable: true})
		}
		return tb
	}
	cases := []struct {
		account string
		class   annotate.Class
		refused string // what the refusal says; "" for none
	}{
		{"not null", annotate.Distributed, ""},
		{"nullable", annotate.Distributed, "does not have NOT NULL"},
		{"none", annotate.Distributed, "does not have NOT NULL"},
		{"not null", annotate.Reference, ""},
		{"nullable", annotate.Reference, ""},
		{"none", annotate.Local, ""},
		{"not null", annotate.Local, ""},
		{"none", annotate.Class("sharded"), `has class "sharded"`},
		{"none", annotate.Class(""), `has class ""`},
	}
	for _, c := range cases {
		got := placementError(table(c.account), c.class)
		switch {
		case c.refused == "" && got != "":
			t.Errorf("account_id %s, class %q: refused (%s), want accepted", c.account, c.class, got)
		case c.refused != "" && !strings.Contains(got, c.refused):
			t.Errorf("account_id %s, class %q: %q, want a refusal saying %q", c.account, c.class, got, c.refused)
		}
	}
}

// Every class has its Go name in the generated code, and the names are
// distinct.
func TestClassConsts(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range classConsts() {
		if c.Name == "" || seen[c.Name] {
			t.Errorf("class %q has the Go name %q, empty or taken", c.Value, c.Name)
		}
		seen[c.Name] = true
	}
	if len(seen) != len(annotate.Classes) {
		t.Errorf("%d Go names for %d classes", len(seen), len(annotate.Classes))
	}
}

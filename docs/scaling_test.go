package docs

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect/sql/schema"

	"larder.dev/larder/ent/migrate"
)

// scaling.md's tables make claims about the schema ent generates
// (ent/migrate.Tables, which the migrations are diffed from, and
// ent/migrate.Classes, the tables' classes on a distributed PostgreSQL as
// the schemas declare them with annotate.Placement); these tests
// derive the same facts and fail when the two differ. A failure prints the
// rows the schema gives, to paste after reviewing what they say.

// distributedClass reports whether a class puts a table's rows on the shards
// of their account.
func distributedClass(c migrate.Class) bool {
	return c == migrate.Distributed
}

// mdTable returns the cells of the first Markdown table after the heading
// (its header row and separator left out), each trimmed of spaces and of
// the backticks around code.
func mdTable(t *testing.T, doc, heading string) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(sectionOf(t, doc, heading), "\n") {
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.ReplaceAll(strings.TrimSpace(c), "`", ""))
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 {
		t.Fatalf("scaling.md: no table under %q", heading)
	}
	return rows[2:]
}

// sectionOf is the text of doc under heading, up to the next heading.
func sectionOf(t *testing.T, doc, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("scaling.md has no heading %q", heading)
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

func readScaling(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("scaling.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// accountColumn is what scaling.md says of a table's account_id: "not null",
// "nullable" or "none".
func accountColumn(tb *schema.Table) string {
	for _, c := range tb.Columns {
		if c.Name == "account_id" {
			if c.Nullable {
				return "nullable"
			}
			return "not null"
		}
	}
	return "none"
}

// classes returns the class of every table of the schema, as the schemas
// declare it (annotate.Placement, listed by the generator in
// ent/migrate.Classes), and, with check, checks them and scaling.md's table
// by class against the schema: every table has a class that its account_id
// allows; every row of the page names a table of the schema, once, with its
// account_id as the schema has it and the class its schema declares; and
// every table whose class is not distributed is on the page, which says why.
func classes(t *testing.T, doc string, check bool) map[string]migrate.Class {
	t.Helper()
	errorf := t.Errorf
	if !check {
		errorf = func(string, ...any) {}
	}
	byName := map[string]*schema.Table{}
	for _, tb := range migrate.Tables {
		byName[tb.Name] = tb
	}
	class := map[string]migrate.Class{}
	for name, cl := range migrate.Classes {
		if byName[name] == nil {
			errorf("ent/migrate.Classes classes %s, which is not a table of the schema: run go generate", name)
			continue
		}
		class[name] = cl
	}
	for _, tb := range migrate.Tables {
		acct := accountColumn(tb)
		switch cl := class[tb.Name]; cl {
		case "":
			errorf("%s has no class in ent/migrate.Classes: run go generate", tb.Name)
		case migrate.Distributed:
			if acct != "not null" {
				errorf("%s is distributed by account_id, which it does not have NOT NULL", tb.Name)
			}
		case migrate.Reference, migrate.Local:
		default:
			errorf("%s has class %q; the classes are %q", tb.Name, cl, []migrate.Class{migrate.Distributed, migrate.Reference, migrate.Local})
		}
	}
	listed := map[string]bool{}
	for _, row := range mdTable(t, doc, "### Every table by class") {
		if len(row) != 4 {
			errorf("table by class: row %q has %d cells, want 4 (table, account_id, class, why)", row, len(row))
			continue
		}
		name, acct, cl := row[0], row[1], migrate.Class(row[2])
		tb, ok := byName[name]
		switch {
		case !ok:
			errorf("table by class: %s is not a table of the schema", name)
			continue
		case listed[name]:
			errorf("table by class: %s is listed twice", name)
		}
		listed[name] = true
		if got := accountColumn(tb); acct != got {
			errorf("table by class: %s's account_id is %q in the schema, %q in scaling.md", name, got, acct)
		}
		if cl != class[name] {
			errorf("table by class: %s is %q in scaling.md; its schema declares %q (annotate.Placement)", name, cl, class[name])
		}
		if row[3] == "" {
			errorf("table by class: %s says nothing of why", name)
		}
	}
	var missing []string
	for _, tb := range migrate.Tables {
		if cl := class[tb.Name]; cl != "" && cl != migrate.Distributed && !listed[tb.Name] {
			missing = append(missing, fmt.Sprintf("| `%s` | %s | %s | ? |", tb.Name, accountColumn(tb), cl))
		}
	}
	if len(missing) > 0 {
		errorf("scaling.md's table by class lacks tables whose schemas place them other than distributed; say why:\n%s", strings.Join(missing, "\n"))
	}
	return class
}

// TestScalingClasses: every table of the schema has the class its schema
// declares, which its account_id allows, and scaling.md's table by class
// agrees with them (classes); migrate.DistributedTables lists the tables of
// the distributed classes; and its foreign keys are of the kinds a
// distributed PostgreSQL such as Citus accepts between those classes: a
// reference table refers to reference tables only, a local (coordinator)
// table to local or reference tables, a distributed table to distributed or
// reference tables.
func TestScalingClasses(t *testing.T) {
	doc := readScaling(t)
	class := classes(t, doc, true)

	// The API fuzzer's statement check watches migrate.DistributedTables:
	// every table of a distributed class, and no other.
	var dist []string
	for name, cl := range class {
		if distributedClass(cl) {
			dist = append(dist, name)
		}
	}
	slices.Sort(dist)
	if got := migrate.DistributedTables(); !slices.Equal(got, dist) {
		t.Errorf("migrate.DistributedTables() = %q; the tables of a distributed class are %q", got, dist)
	}

	for _, tb := range migrate.Tables {
		from := class[tb.Name]
		for _, fk := range tb.ForeignKeys {
			to := class[fk.RefTable.Name]
			ok := true
			switch {
			case from == migrate.Reference:
				ok = to == migrate.Reference
			case from == migrate.Local:
				ok = to == migrate.Local || to == migrate.Reference
			case distributedClass(from):
				ok = distributedClass(to) || to == migrate.Reference
			}
			if !ok && from != "" && to != "" {
				t.Errorf("%s.%s refers to %s: a %s table cannot refer to a %s one", tb.Name, fk.Columns[0].Name, fk.RefTable.Name, from, to)
			}
		}
	}
}

// uniqueWithout are the unique indexes of the distributed tables that leave
// account_id out, as rows of scaling.md's table: table, index, columns, and
// the predicate of a partial index. A unique column is PostgreSQL's
// <table>_<column>_key. Primary keys are left out: every one is (id).
func uniqueWithout(class map[string]migrate.Class) []string {
	var rows []string
	for _, tb := range migrate.Tables {
		if !distributedClass(class[tb.Name]) {
			continue
		}
		for _, c := range tb.Columns {
			if c.Unique && c.Name != "account_id" {
				rows = append(rows, uniqueRow(tb.Name, tb.Name+"_"+c.Name+"_key", c.Name, ""))
			}
		}
		for _, ix := range tb.Indexes {
			if !ix.Unique {
				continue
			}
			var cols []string
			for _, c := range ix.Columns {
				cols = append(cols, c.Name)
			}
			if slices.Contains(cols, "account_id") {
				continue
			}
			where := ""
			if ix.Annotation != nil {
				where = ix.Annotation.Where
			}
			rows = append(rows, uniqueRow(tb.Name, ix.Name, strings.Join(cols, ", "), where))
		}
	}
	slices.Sort(rows)
	return rows
}

// uniqueRow is a row of scaling.md's table of unique indexes, as written there.
func uniqueRow(table, index, columns, where string) string {
	if where != "" {
		where = " `" + where + "`"
	}
	return fmt.Sprintf("| `%s` | `%s` | `%s` |%s |", table, index, columns, where)
}

// TestScalingUniqueIndexes: scaling.md lists, by name, exactly the unique
// indexes of the distributed tables that do not include account_id, which a
// distributed PostgreSQL cannot enforce as they are.
func TestScalingUniqueIndexes(t *testing.T) {
	doc := readScaling(t)
	want := uniqueWithout(classes(t, doc, false))
	var got []string
	var rows [][]string
	if len(want) > 0 || strings.Contains(sectionOf(t, doc, "### Unique indexes without account_id"), "\n|") {
		rows = mdTable(t, doc, "### Unique indexes without account_id")
	}
	for _, row := range rows {
		if len(row) != 4 {
			t.Fatalf("unique indexes: row %q has %d cells, want 4 (table, index, columns, partial on)", row, len(row))
		}
		got = append(got, uniqueRow(row[0], row[1], row[2], row[3]))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("scaling.md's unique indexes without account_id differ from the schema's; the schema gives:\n%s\nscaling.md has:\n%s",
			strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}

// TestScalingPartitions: each table scaling.md would partition by time has
// its partition column, NOT NULL and a time; and the foreign keys that
// point at it are those scaling.md names, since each must carry the
// partition column or go.
func TestScalingPartitions(t *testing.T) {
	doc := readScaling(t)
	byName := map[string]*schema.Table{}
	refs := map[string][]string{}
	for _, tb := range migrate.Tables {
		byName[tb.Name] = tb
		for _, fk := range tb.ForeignKeys {
			refs[fk.RefTable.Name] = append(refs[fk.RefTable.Name], tb.Name+"."+fk.Columns[0].Name)
		}
	}
	rows := mdTable(t, doc, "### Tables and keys")
	if len(rows) < 4 {
		t.Fatalf("partitioning: %d tables; scaling.md names at least the events, deliveries, attempts, request log and stock movements", len(rows))
	}
	for _, row := range rows {
		if len(row) != 5 {
			t.Errorf("partitioning: row %q has %d cells, want 5 (table, partition by, primary key, retention, referenced by)", row, len(row))
			continue
		}
		tb, ok := byName[row[0]]
		if !ok {
			t.Errorf("partitioning: %s is not a table of the schema", row[0])
			continue
		}
		var col *schema.Column
		for _, c := range tb.Columns {
			if c.Name == row[1] {
				col = c
			}
		}
		switch {
		case col == nil:
			t.Errorf("partitioning: %s has no column %s", tb.Name, row[1])
		case col.Nullable || col.Type.String() != "time.Time":
			t.Errorf("partitioning: %s.%s is not a NOT NULL time (%v, nullable %v)", tb.Name, col.Name, col.Type, col.Nullable)
		}
		// An account table's key leads with account_id on PostgreSQL
		// (migrate's keys.go); the partition column joins it.
		pk := "id, " + row[1]
		if migrate.Classes[tb.Name] == migrate.Distributed {
			pk = "account_id, " + pk
		}
		if row[2] != pk {
			t.Errorf("partitioning: %s's primary key would be (%s), scaling.md says (%s)", tb.Name, pk, row[2])
		}
		want := refs[tb.Name]
		slices.Sort(want)
		got := []string{}
		if row[4] != "none" {
			for _, r := range strings.Split(row[4], ",") {
				got = append(got, strings.TrimSpace(r))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, append([]string{}, want...)) {
			w := "none"
			if len(want) > 0 {
				w = strings.Join(want, ", ")
			}
			t.Errorf("partitioning: %s is referenced by %s in the schema; scaling.md says %s", tb.Name, w, row[4])
		}
	}
}

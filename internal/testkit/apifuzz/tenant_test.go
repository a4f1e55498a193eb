package apifuzz_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"larder.dev/larder/ent/migrate"
	"larder.dev/larder/internal/platform/store"
)

// docs/scaling.md claims that every statement the API sends to a table it
// would distribute by account names the account, so that a request of one
// account runs on one shard. TestFuzzAPI checks it with a tenantCheck: its
// server runs on a store that reports every statement (dbtest.Observed), and
// each distinct statement is read once.

// scalingDoc is the page that lists the statements the check accepts
// without the account.
var scalingDoc = filepath.Join("..", "..", "..", "docs", "scaling.md")

// distributedTables are the tables the schemas place distributed by
// account_id, now or once the column is added (annotate.Placement, listed
// in migrate.DistributedTables); docs' TestScalingClasses holds
// docs/scaling.md's table by class to the same classes.
func distributedTables(t testing.TB) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, name := range migrate.DistributedTables() {
		out[name] = true
	}
	if len(out) < 10 {
		t.Fatalf("only %d distributed tables in migrate.DistributedTables", len(out))
	}
	return out
}

var (
	// tableRef is a table a statement reads or writes, with its alias:
	// FROM, JOIN, UPDATE or INTO, a name (quoted or not), then maybe AS and
	// an alias.
	tableRef = regexp.MustCompile(`(?i)\b(FROM|JOIN|UPDATE|INTO)\s+"?([a-z_][a-z0-9_]*)"?(?:\s+(?:AS\s+)?"?([a-z_][a-z0-9_]*)"?)?`)
	// insertColumns is an INSERT's table and column list.
	insertColumns = regexp.MustCompile(`(?i)\bINTO\s+"?([a-z_][a-z0-9_]*)"?\s*\(([^)]*)\)`)
	// bareAccount is account_id, unqualified, compared with a value.
	bareAccount = regexp.MustCompile(`(?i)(^|[^."a-z_])"?account_id"?\s*(=|IN\b)`)
	// notAlias are the words that may follow a table's name without being
	// its alias.
	notAlias = map[string]bool{
		"where": true, "join": true, "left": true, "right": true, "inner": true, "outer": true, "cross": true,
		"on": true, "set": true, "order": true, "group": true, "limit": true, "offset": true, "for": true,
		"values": true, "select": true, "union": true, "returning": true, "default": true, "having": true,
		"using": true, "natural": true, "lateral": true, "window": true, "except": true, "intersect": true,
	}
)

// unscoped returns, for one statement, the distributed tables it names
// without the account: a table read, updated or deleted from (under its
// name or alias) whose account_id the statement never compares with a value
// (= or IN), and a table inserted into without account_id among the columns
// set. A table named without an alias may compare account_id unqualified in
// its own clause (up to the next table named), and anywhere when it is the
// only table the statement names.
// The check reads text: it does not prove where in the statement the
// comparison sits (docs/scaling.md, "Statements the API sends").
func unscoped(q string, dist map[string]bool) []string {
	q = strings.ReplaceAll(q, "`", `"`) // SQLite's quotes, as ent writes them
	var out []string
	if m := insertColumns.FindStringSubmatch(q); m != nil && dist[strings.ToLower(m[1])] {
		if !regexp.MustCompile(`(?i)(^|[\s,"])account_id("|\s|,|$)`).MatchString(m[2]) {
			out = append(out, strings.ToLower(m[1])+" (INSERT without account_id)")
		}
	}
	refs := tableRef.FindAllStringSubmatchIndex(q, -1)
	tables := map[string]bool{}
	for _, r := range refs {
		tables[strings.ToLower(q[r[4]:r[5]])] = true
	}
	for i, r := range refs {
		kw, table := strings.ToUpper(q[r[2]:r[3]]), strings.ToLower(q[r[4]:r[5]])
		alias := ""
		if r[6] >= 0 {
			alias = strings.ToLower(q[r[6]:r[7]])
		}
		if kw == "INTO" || !dist[table] {
			continue
		}
		if alias == "" || notAlias[alias] {
			alias = table
		}
		// Its own clause: from the reference to the next table named.
		own := q[r[1]:]
		if i+1 < len(refs) {
			own = q[r[1]:refs[i+1][0]]
		}
		qualified := regexp.MustCompile(`(?i)"?` + regexp.QuoteMeta(alias) + `"?\."?account_id"?\s*(=|IN\b)`)
		if qualified.MatchString(q) || (alias == table && bareAccount.MatchString(own)) || (len(tables) == 1 && bareAccount.MatchString(q)) {
			continue
		}
		out = append(out, table)
	}
	return out
}

var (
	selectList   = regexp.MustCompile(`^SELECT .*? FROM `)
	placeholders = regexp.MustCompile(`\$\d+|\?`)
	inList       = regexp.MustCompile(`IN \(\?(, \?)*\)`)
	spaces       = regexp.MustCompile(`\s+`)
)

// shape is a statement as docs/scaling.md lists it: without quotes, its
// selected columns as "…", every placeholder "?", and an IN list of
// placeholders "IN (…)", so that SQLite's and PostgreSQL's statements of
// one query, and the IN lists of one load, are one shape.
func shape(q string) string {
	q = strings.NewReplacer("`", "", `"`, "").Replace(q)
	q = spaces.ReplaceAllString(strings.TrimSpace(q), " ")
	q = selectList.ReplaceAllString(q, "SELECT … FROM ")
	q = placeholders.ReplaceAllString(q, "?")
	return inList.ReplaceAllString(q, "IN (…)")
}

// knownUnscoped are the shapes docs/scaling.md lists as statements the API
// sends to distributed tables without the account today.
func knownUnscoped(t testing.TB) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(scalingDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n#### Statements without the account\n")
	if !ok {
		t.Fatalf("%s has no list of statements without the account", scalingDoc)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		if q, ok := strings.CutPrefix(line, "- `"); ok {
			out[strings.TrimSuffix(q, "`")] = true
		}
	}
	return out
}

// tenantCheck collects the statements that name a distributed table without
// the account.
type tenantCheck struct {
	dist  map[string]bool
	known map[string]bool // shapes docs/scaling.md lists

	mu       sync.Mutex
	seen     map[string]bool
	checked  int                 // distinct statements naming a distributed table
	failures map[string][]string // shape → tables
	listed   map[string]bool     // shapes seen that docs/scaling.md lists
}

func newTenantCheck(t testing.TB) *tenantCheck {
	return &tenantCheck{dist: distributedTables(t), known: knownUnscoped(t), seen: map[string]bool{}, failures: map[string][]string{}, listed: map[string]bool{}}
}

// see is a store.Options.Observe function.
func (c *tenantCheck) see(call store.Call) {
	if !call.Statement() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[call.SQL] {
		return
	}
	c.seen[call.SQL] = true
	names := false
	for _, r := range tableRef.FindAllStringSubmatch(strings.ReplaceAll(call.SQL, "`", `"`), -1) {
		names = names || c.dist[strings.ToLower(r[2])]
	}
	if !names {
		return
	}
	c.checked++
	if bad := unscoped(call.SQL, c.dist); len(bad) > 0 {
		if sh := shape(call.SQL); c.known[sh] {
			c.listed[sh] = true
		} else {
			c.failures[sh] = bad
		}
	}
}

// report fails t with every statement that named a distributed table
// without the account and that docs/scaling.md does not list.
func (c *tenantCheck) report(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Logf("tenant filter: %d distinct statements on distributed tables (migrate.DistributedTables); %d shapes without account_id that it lists (of %d listed), %d that it does not",
		c.checked, len(c.listed), len(c.known), len(c.failures))
	if c.checked == 0 {
		t.Error("tenant filter: no statement on a distributed table was seen: the check saw nothing")
	}
	var msgs []string
	for q, tables := range c.failures {
		msgs = append(msgs, fmt.Sprintf("- `%s`\n    names %s without comparing its account_id", q, strings.Join(tables, ", ")))
	}
	slices.Sort(msgs)
	if len(msgs) > 0 {
		t.Errorf("tenant filter: statements on distributed tables without account_id that docs/scaling.md does not list (\"Statements without the account\"):\n%s", strings.Join(msgs, "\n"))
	}
}

// TestShape: a statement's shape is the same on both databases and for IN
// lists of any length.
func TestShape(t *testing.T) {
	want := "SELECT … FROM product_tags WHERE product_tags.product_id IN (…) ORDER BY product_tags.id ASC"
	for _, q := range []string{
		`SELECT "product_tags"."id", "product_tags"."tag_id" FROM "product_tags" WHERE "product_tags"."product_id" IN ($1, $2, $3) ORDER BY "product_tags"."id" ASC`,
		"SELECT `product_tags`.`id` FROM `product_tags` WHERE `product_tags`.`product_id` IN (?) ORDER BY `product_tags`.`id` ASC",
	} {
		if got := shape(q); got != want {
			t.Errorf("shape(%s) = %s, want %s", q, got, want)
		}
	}
}

// TestUnscoped pins what the check accepts and refuses, on statements as ent
// and the hand-written SQL write them.
func TestUnscoped(t *testing.T) {
	dist := map[string]bool{"tags": true, "products": true, "product_tags": true, "events": true}
	for q, want := range map[string][]string{
		`SELECT "tags"."id", "tags"."name" FROM "tags" WHERE "tags"."account_id" = $1 ORDER BY "tags"."id" LIMIT 50`:                                                                       nil,
		`SELECT "tags"."id" FROM "tags" WHERE "tags"."id" = $1`:                                                                                                                            {"tags"},
		`SELECT "products"."id" FROM "products" WHERE "products"."account_id" = $1 AND "products"."id" IN (SELECT "t1"."product_id" FROM "product_tags" AS "t1" WHERE "t1"."tag_id" = $2)`: {"product_tags"},
		`SELECT "products"."id" FROM "products" JOIN "product_tags" AS "t1" ON "t1"."product_id" = "products"."id" WHERE "products"."account_id" = ? AND "t1"."account_id" = ?`:            nil,
		`UPDATE "tags" SET "name" = $1 WHERE "tags"."id" = $2 AND "tags"."account_id" IN ($3)`:                                                                                             nil,
		`UPDATE "tags" SET "name" = $1 WHERE "id" = $2`:                                                                                                                                    {"tags"},
		`DELETE FROM "tags" WHERE "tags"."id" = $1`:                                                                                                                                        {"tags"},
		`DELETE FROM tags WHERE account_id = $1 AND id = $2`:                                                                                                                               nil,
		`INSERT INTO "events" ("event_id", "account_id", "type") VALUES ($1, $2, $3)`:                                                                                                      nil,
		`INSERT INTO "events" ("event_id", "type") VALUES ($1, $2)`:                                                                                                                        {"events (INSERT without account_id)"},
		`WITH fwd AS (SELECT id FROM product_lots WHERE account_id = $1 UNION SELECT tags.id FROM tags WHERE tags.id = $2) SELECT * FROM fwd`:                                              {"tags"},
		"SELECT `tags`.`id` FROM `tags` WHERE `tags`.`id` = ?":                                                                                                                             {"tags"},
		"SELECT `tags`.`id` FROM `tags` WHERE `tags`.`account_id` = ?":                                                                                                                     nil,
		`SELECT "allergens"."id" FROM "allergens" WHERE "allergens"."is_global"`:                                                                                                           nil,
		`INSERT INTO rate_windows (bucket, window_start, hits) VALUES ($1, $2, $3) ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_windows.hits + $3`:                         nil,
	} {
		if got := unscoped(q, dist); !slices.Equal(got, want) {
			t.Errorf("unscoped(%s) = %q, want %q", q, got, want)
		}
	}
}

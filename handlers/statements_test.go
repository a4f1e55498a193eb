package handlers_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// statements records what an observed store (dbtest.Observed) sends to the
// database, in order: each statement's SQL, and BEGIN, COMMIT and ROLLBACK.
// Left out are the preparations of statements, which the pool makes once
// per connection and statement (which connection a request gets is the
// pool's choice, so whether its statement is prepared there yet is too); the
// stamp of a key's last use, which the authenticator writes off the
// request's path, once a minute per key, whenever its goroutine runs
// (auth.recordUse); and the request log's inserts, which its writer sends
// in batches of earlier requests' rows, every 250 ms (package reqlog), so
// one may fall in any window on a busy machine.
type statements struct {
	mu  sync.Mutex
	all []string
}

func (s *statements) see(c store.Call) {
	if c.Op == store.OpPrepare || strings.Contains(c.SQL, "UPDATE api_keys SET last_used_at") {
		return
	}
	s.mu.Lock()
	s.all = append(s.all, c.String())
	s.mu.Unlock()
}

// observe is a store on the database of st, opened as production opens
// its own, whose statements sql records.
func (s *statements) observe(t *testing.T, st *store.Store) *store.Store {
	return dbtest.Observed(t, st, s.see)
}

// authStatements name the statements of authentication and rate limiting
// (package auth, package ratelimit), which requests send before or after
// their own; SQLite's lookup has its own placeholder.
var authStatements = map[string]string{
	auth.LookupSQL: "key", strings.ReplaceAll(auth.LookupSQL, "$1", "?"): "key",
	auth.LookupPrintSQL:    "key",
	auth.LookupAndSpendSQL: "key+budget",
	auth.PrintSQL:          "print",
	ratelimit.ReserveSQL:   "budget",
}

// labels are statements with those of authentication by name, and those of
// a request by table: "key", "key+budget", "print", "budget"; "tags" (a
// statement that reads or writes table tags first); "tags+key" (one that
// carries a trusted key's check, trust.Check); BEGIN, COMMIT, ROLLBACK.
func labels(sent []string) []string {
	out := make([]string, len(sent))
	for i, q := range sent {
		if l, ok := authStatements[q]; ok {
			out[i] = l
			continue
		}
		out[i] = q
		if t := firstTable(q); t != "" {
			out[i] = t
			if strings.Contains(q, "larder_key") {
				out[i] += "+key"
			}
		}
	}
	return out
}

// firstTable is the table a SELECT reads (its FROM outside parentheses), or
// the first a statement names after FROM, INTO or UPDATE; or "".
func firstTable(q string) string {
	if list, ok := strings.CutPrefix(q, "SELECT "); ok {
		if parts := topLevel(list, " FROM "); len(parts) > 1 {
			return unquote(strings.Fields(parts[1])[0])
		}
	}
	f := strings.Fields(q)
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "FROM", "INTO", "UPDATE":
			return unquote(f[i+1])
		}
	}
	return ""
}

// keyRead are the statements with which a request to a's server that reads
// its key authenticates, before its own: on SQLite, the key's read (the
// budget is counted in memory); on PostgreSQL, on the fast path, the key's
// read that reserves numbers of its account's budget in the same statement
// (fastpath.ReservedBudget), or the read alone when the server holds
// reserved numbers of the account (held: api.hold); on the plain path, the
// key's read, then the budget's count in a statement of its own.
func (a *api) keyRead(held bool) []string {
	switch {
	case a.st.Dialect != dialect.Postgres:
		return []string{"key"}
	case !a.fast.Has(fastpath.ReservedBudget):
		return []string{"key", "budget"}
	case held:
		return []string{"key"}
	}
	return []string{"key+budget"}
}

// sent returns the statements do sends, in order.
func (s *statements) sent(do func()) []string {
	s.mu.Lock()
	from := len(s.all)
	s.mu.Unlock()
	do()
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.all[from:])
}

// during returns the columns of every row SELECT that do sends, by table
// (each SELECT once, in order); counts are left out, and so is a page's
// total (ent.PageTotal), a subquery in the select list.
func (s *statements) during(do func()) map[string][][]string {
	out := map[string][][]string{}
	for _, q := range s.sent(do) {
		list, ok := strings.CutPrefix(q, "SELECT ")
		if !ok || strings.HasPrefix(list, "COUNT(") {
			continue
		}
		parts := topLevel(list, " FROM ")
		if len(parts) < 2 {
			continue
		}
		table := unquote(strings.Fields(parts[1])[0])
		var cols []string
		for _, c := range topLevel(strings.TrimPrefix(parts[0], "DISTINCT "), ", ") {
			if strings.HasPrefix(c, "(") {
				continue
			}
			cols = append(cols, unquote(c[strings.LastIndex(c, ".")+1:]))
		}
		slices.Sort(cols)
		out[table] = append(out[table], cols)
	}
	return out
}

// topLevel splits s at each sep outside parentheses.
func topLevel(s, sep string) []string {
	var out []string
	depth, from := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '(':
			depth++
		case s[i] == ')':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], sep):
			out = append(out, s[from:i])
			from = i + len(sep)
			i = from - 1
		}
	}
	return append(out, s[from:])
}

func unquote(s string) string { return strings.Trim(s, "`\"") }

// Generated reads select the columns their answer shows, not the whole row
// (codegen's Resource.Shown): a list, a retrieval and a
// write's answer, and the rows of an edge beside them.
func TestReadsSelectTheShownColumns(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var sql statements
		a := newAPI(t, sql.observe(t, st))
		tag := []string{"description", "id", "name", "ref_type"}

		var id int
		got := sql.during(func() {
			id = a.post("/v1/tags", map[string]any{"name": "Organic", "ref_type": "PRODUCT"}).want(201).ID()
		})
		for _, cols := range got["tags"] { // it answers from the row it wrote
			if !slices.Equal(cols, tag) {
				t.Errorf("a create's answer reads %v", cols)
			}
		}
		got = sql.during(func() { a.get(path("/v1/tags", id)).want(200) })
		if diff := cmp.Diff([][]string{tag}, got["tags"]); diff != "" {
			t.Errorf("a retrieval reads the tag (-want +got):\n%s", diff)
		}
		got = sql.during(func() { a.get("/v1/tags?ref_type=PRODUCT").want(200) })
		if diff := cmp.Diff([][]string{tag}, got["tags"]); diff != "" {
			t.Errorf("a list reads the tags (-want +got):\n%s", diff)
		}
		// The page's statement carries its total: one statement, no COUNT
		// of its own; a page past the end counts on its own. Each request
		// authenticates first, with the statements of keyRead (this
		// server holds no reserved numbers of the account, which requests
		// only now and then: each reads its key, none is taken on trust).
		var total int
		sent := sql.sent(func() {
			total = int(a.get("/v1/tags?ref_type=PRODUCT").want(200).JSON()["pagination"].(map[string]any)["total"].(float64))
		})
		want := append(a.keyRead(false), "tags")
		if got := labels(sent); !slices.Equal(got, want) || !strings.Contains(sent[len(sent)-1], "larder_total") || total != 1 {
			t.Errorf("a list of 1 tag sent %q (%q), total %d; want %q, the page with its total", got, sent, total, want)
		}
		sent = sql.sent(func() { a.get("/v1/tags?ref_type=PRODUCT&offset=5").want(200) })
		want = append(a.keyRead(false), "tags", "tags")
		if got := labels(sent); !slices.Equal(got, want) || !strings.HasPrefix(sent[len(sent)-1], "SELECT COUNT(*)") {
			t.Errorf("a list past the end sent %q (%q); want %q, the page then its count", got, sent, want)
		}

		s := seeded(t, a)
		var cookie int
		for _, p := range s.get("/v1/products?limit=200").want(200).List() {
			if p["product_code"] == "FG-COOKIE12" {
				cookie = int(p["id"].(float64))
			}
		}
		got = sql.during(func() { s.get(path("/v1/products", cookie)).want(200) })
		// An edge of ids reads the id it collects and the key it joins on
		// (ent adds the row's id), an entry edge its entry's fields, and
		// the rows an entry borrows from only the borrowed columns.
		for table, want := range map[string][]string{
			"product_tags":      {"id", "product_id", "tag_id"},
			"product_allergens": {"allergen_id", "id", "product_id", "source"},
			"allergens":         {"code", "id", "is_major_allergen", "name"},
		} {
			if diff := cmp.Diff([][]string{want}, got[table]); diff != "" {
				t.Errorf("a product's %s (-want +got):\n%s", table, diff)
			}
		}
		products := got["products"]
		if len(products) != 1 || slices.Contains(products[0], "account_id") || !slices.Contains(products[0], "product_code") {
			t.Errorf("the product's columns: %v", products)
		}
		got = sql.during(func() { s.get("/v1/products?limit=5").want(200) })
		if len(got["product_tags"]) != 0 {
			t.Errorf("a list, which shows tag_ids as null, read product_tags: %v", got["product_tags"])
		}
		// Lists that load edges and borrowed fields beside their page count
		// in the page's statement too.
		for _, list := range []string{"/v1/products?limit=5", "/v1/product-lots?limit=5", "/v1/sales-orders?limit=5", "/v1/bills?limit=5"} {
			for _, q := range sql.sent(func() { s.get(list).want(200) }) {
				if strings.HasPrefix(q, "SELECT COUNT(") {
					t.Errorf("%s counted on its own: %s", list, q)
				}
			}
		}

		// A document's create answers with the row and the lines it wrote
		// (codegen.Resource.AnswersWritten), reading neither back.
		flour, sup := s.productID("RM-FLOUR"), s.supplierFor("READS")
		got = sql.during(func() {
			s.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "lines": lines(3, line(flour, 1, "cost", 2))}).want(201)
		})
		if len(got["purchase_orders"]) != 0 || len(got["purchase_order_lines"]) != 0 {
			t.Errorf("a purchase order's create read back %v and %v", got["purchase_orders"], got["purchase_order_lines"])
		}
	})
}

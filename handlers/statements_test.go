package handlers_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/dbtest"
	"larder.dev/larder/store"
)

// statements records the SQL an observed store sends.
type statements struct {
	mu  sync.Mutex
	all []string
}

func (s *statements) see(statement string) {
	// ent's debug driver: "driver.Query: query=SQL args=[…]" or "Tx(id).Query: …".
	q, ok := strings.CutPrefix(statement[strings.Index(statement, ": ")+2:], "query=")
	if !ok {
		return // a transaction starting or ending
	}
	if i := strings.LastIndex(q, " args="); i >= 0 {
		q = q[:i]
	}
	s.mu.Lock()
	s.all = append(s.all, q)
	s.mu.Unlock()
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
// (bench/README.md, "columns the answer shows"): a list, a retrieval and a
// write's answer, and the rows of an edge beside them.
func TestReadsSelectTheShownColumns(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var sql statements
		a := newAPI(t, st.Observed(sql.see))
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
		// of its own; a page past the end counts on its own.
		var total int
		sent := sql.sent(func() {
			total = int(a.get("/v1/tags?ref_type=PRODUCT").want(200).JSON()["pagination"].(map[string]any)["total"].(float64))
		})
		if len(sent) != 1 || !strings.Contains(sent[0], "larder_total") || total != 1 {
			t.Errorf("a list of 1 tag sent %q, total %d", sent, total)
		}
		sent = sql.sent(func() { a.get("/v1/tags?ref_type=PRODUCT&offset=5").want(200) })
		if len(sent) != 2 || !strings.HasPrefix(sent[1], "SELECT COUNT(*)") {
			t.Errorf("a list past the end sent %q", sent)
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

package handlers_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/migrate"
	"larder.dev/larder/internal/platform/dberror"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/openapi"
	"larder.dev/larder/policy"
)

// cursorList is a paginated list of the API description, with its sortable
// fields and the table under it.
type cursorList struct {
	// path holds the list's required filters, each at its first value.
	path, op string
	sorts    []string
	since    bool // takes updated_since
	table    *schema.Table
}

// cursorLists reads every list taking a cursor from the API description, and
// finds each one's table through the access report's entities (by path).
func cursorLists(t *testing.T) []cursorList {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []struct {
				Ref         string `json:"$ref"`
				Name        string `json:"name"`
				Description string `json:"description"`
				In          string `json:"in"`
				Required    bool   `json:"required"`
				Schema      struct {
					Ref string `json:"$ref"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	var enums struct {
		Components struct {
			Schemas map[string]struct {
				Enum []string `json:"enum"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(openapi.Document, &enums); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../internal/generators/access/data/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var access struct {
		Entities []struct{ Path, Table string } `json:"entities"`
	}
	if err := json.Unmarshal(raw, &access); err != nil {
		t.Fatal(err)
	}
	tables := map[string]*schema.Table{}
	for _, tb := range migrate.Tables {
		tables[tb.Name] = tb
	}
	var out []cursorList
	for p, ops := range doc.Paths {
		op, ok := ops["get"]
		if !ok {
			continue
		}
		l := cursorList{path: "/v1" + p + "?", op: op.OperationID}
		cursor := false
		for _, prm := range op.Parameters {
			switch {
			case prm.Required && prm.In == "query":
				e := enums.Components.Schemas[strings.TrimPrefix(prm.Schema.Ref, "#/components/schemas/")].Enum
				if len(e) == 0 {
					t.Fatalf("%s: required %s is not an enum", op.OperationID, prm.Name)
				}
				l.path += prm.Name + "=" + e[0] + "&"
			case prm.Ref == "#/components/parameters/cursor":
				cursor = true
			case prm.Ref == "#/components/parameters/updated_since":
				l.since = true
			case prm.Name == "sort":
				_, fields, _ := strings.Cut(prm.Description, "Fields: ")
				for _, f := range strings.Split(strings.TrimSuffix(fields, "."), ", ") {
					l.sorts = append(l.sorts, f)
				}
			}
		}
		if !cursor {
			continue
		}
		for _, e := range access.Entities {
			if e.Path != "" && "/"+e.Path == p {
				l.table = tables[e.Table]
			}
		}
		if l.table == nil || len(l.sorts) == 0 || strings.Contains(p, "{") {
			t.Fatalf("%s: table %v, sorts %v", l.op, l.table, l.sorts)
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(x, y cursorList) int { return strings.Compare(x.op, y.op) })
	if len(out) < 25 {
		t.Fatalf("only %d lists take a cursor", len(out))
	}
	return out
}

// rowsTable changes the rows of one account in a list's table behind the
// API's back, between the pages of a walk.
type rowsTable struct {
	a       *api
	t       *schema.Table
	account int
	copies  []int
}

func (r *rowsTable) has(col string) bool {
	return slices.ContainsFunc(r.t.Columns, func(c *schema.Column) bool { return c.Name == col })
}

func (r *rowsTable) ph(i int) string {
	if r.a.st.Dialect == dialect.Postgres {
		return fmt.Sprintf("$%d", i)
	}
	return "?"
}

// mine reports whether the row id is the account's (not a shared one).
func (r *rowsTable) mine(id int) bool {
	if !r.has("account_id") {
		return false
	}
	var n int
	q := fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE id = %s AND account_id = %s", r.t.Name, r.ph(1), r.ph(2))
	if err := r.a.st.DB.QueryRow(q, id, r.account).Scan(&n); err != nil {
		r.a.t.Fatal(err)
	}
	return n == 1
}

// touch sets the row's updated_at to at, as an update through the API would.
func (r *rowsTable) touch(id int, at time.Time) bool {
	if !r.has("updated_at") || !r.mine(id) {
		return false
	}
	r.exec(fmt.Sprintf("UPDATE %s SET updated_at = %s WHERE id = %s AND account_id = %s", r.t.Name, r.ph(1), r.ph(2), r.ph(3)), at, id, r.account)
	return true
}

// exec runs a write of the walk's own, by account as the API's are (on a
// Citus cluster, on the account's shard alone), and runs it again when the
// database chose it as a deadlock's victim, as the API's transactions do
// (ent.RunInTx). On a cluster a write of an account's row in a shared
// table, a reference table there, takes Citus's exclusive lock on that
// table and on accounts and organizations, in an order the creation of an
// organization by a test running meanwhile takes the other way.
func (r *rowsTable) exec(q string, args ...any) {
	for attempt := 1; ; attempt++ {
		_, err := r.a.st.DB.Exec(q, args...)
		if err == nil {
			return
		}
		if !dberror.Retryable(err) || attempt == ent.TxAttempts {
			r.a.t.Fatal(err)
		}
	}
}

// copyRow inserts a copy of the row id with a new id (its unique texts
// suffixed): the same sort values, so it sorts right after the row. It
// reports 0 when the table's unique keys allow no copy.
func (r *rowsTable) copyRow(id int) int {
	if !r.mine(id) {
		return 0
	}
	unique := map[string]bool{}
	for _, c := range r.t.Columns {
		if c.Unique {
			unique[c.Name] = true
		}
	}
	for _, ix := range r.t.Indexes {
		if ix.Unique {
			for _, c := range ix.Columns {
				unique[c.Name] = true
			}
		}
	}
	var cols, vals []string
	for _, c := range r.t.Columns {
		if c.Name == "id" {
			continue
		}
		cols = append(cols, c.Name)
		if unique[c.Name] && c.Type == field.TypeString {
			vals = append(vals, fmt.Sprintf("%s || '~%d'", c.Name, len(r.copies)))
		} else {
			vals = append(vals, c.Name)
		}
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE id = %s AND account_id = %s RETURNING id",
		r.t.Name, strings.Join(cols, ", "), strings.Join(vals, ", "), r.t.Name, r.ph(1), r.ph(2))
	var n int
	if err := r.a.st.DB.QueryRow(q, id, r.account).Scan(&n); err != nil {
		return 0 // a unique key of numbers, or a text too long for a suffix
	}
	r.copies = append(r.copies, n)
	return n
}

func (r *rowsTable) remove(id int) {
	r.exec(fmt.Sprintf("DELETE FROM %s WHERE id = %s AND account_id = %s", r.t.Name, r.ph(1), r.ph(2)), id, r.account)
	r.copies = slices.DeleteFunc(r.copies, func(x int) bool { return x == id })
}

// ids lists every row id of the list at query, by offset (nothing changes
// while it reads).
func (a *api) ids(key, query string) map[int]bool {
	a.t.Helper()
	out := map[int]bool{}
	for off := 0; ; off += 200 {
		r := a.do("GET", query+"&limit=200&offset="+fmt.Sprint(off), key, nil).want(200)
		for _, x := range r.List() {
			out[int(x["id"].(float64))] = true
		}
		if !r.JSON()["pagination"].(map[string]any)["has_more"].(bool) {
			return out
		}
	}
}

// Every paginated list, walked by cursor in every order while rows are
// updated, created and deleted between its pages, returns every row that
// exists throughout the walk exactly once; a row updated during a walk by
// updated_at appears on a page read after the update. The lists and their
// sortable fields come from the API description.
func TestCursorWalkIsComplete(t *testing.T) {
	lists := cursorLists(t)
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		a := newAPI(t, st, limit(1<<30))
		org := dbtest.NewSeededOrg(t, st)
		key := org.Key(t, policy.Test, "all")
		clock := time.Now().Add(time.Hour) // later than every row's own
		var walks, touched, created, deletedCursorRows int
		for _, l := range lists {
			var queries []string
			for _, f := range l.sorts {
				queries = append(queries, "sort="+f+":asc", "sort="+f+":desc")
			}
			if l.since {
				queries = append(queries, "sort=updated_at:asc&updated_since=2000-01-01T00:00:00Z")
			}
			for _, q := range queries {
				rt := &rowsTable{a: a, t: l.table, account: org.Test.ID}
				base := l.path + q
				before := a.ids(key, base)
				limit := max(1, len(before)/5)
				seen := map[int][]int{} // id: the pages it came on
				bumped := map[int]int{} // id: 1 + the page after which it was updated
				deleted := map[int]bool{}
				byUpdatedAt := strings.HasPrefix(q, "sort=updated_at:")
				next := ""
				for page := 0; ; page++ {
					if page > 500 {
						t.Fatalf("%s: no end after %d pages", base, page)
					}
					u := fmt.Sprintf("%s&limit=%d", base, limit)
					if next != "" {
						u += "&cursor=" + url.QueryEscape(next)
					}
					r := a.do("GET", u, key, nil).want(200)
					p := r.JSON()["pagination"].(map[string]any)
					rows := r.List()
					for _, x := range rows {
						id := int(x["id"].(float64))
						seen[id] = append(seen[id], page)
					}
					if p["offset"] != float64(0) || len(rows) > limit {
						t.Fatalf("%s page %d: %v, %d rows", base, page, p, len(rows))
					}
					c, more := p["next_cursor"].(string)
					if more != p["has_more"].(bool) || (more && len(rows) != limit) {
						t.Fatalf("%s page %d: has_more %v, next_cursor %v, %d rows", base, page, p["has_more"], p["next_cursor"], len(rows))
					}
					if !more {
						break
					}
					next = c
					// Between pages: the cursor's own row goes if it is a
					// copy; one row already read and one not yet read are
					// updated; a row is copied.
					last := int(rows[len(rows)-1]["id"].(float64))
					if slices.Contains(rt.copies, last) {
						rt.remove(last)
						deleted[last] = true
						deletedCursorRows++
					} else if len(rt.copies) > 2 {
						deleted[rt.copies[0]] = true
						rt.remove(rt.copies[0])
					}
					clock = clock.Add(time.Millisecond)
					// Each row at most once, or a walk by updated_at
					// would never end.
					if first := int(rows[0]["id"].(float64)); bumped[first] == 0 && rt.touch(first, clock) {
						bumped[first] = page + 1
						touched++
					}
					for id := range before {
						if _, read := seen[id]; !read && !deleted[id] {
							if bumped[id] == 0 && rt.touch(id, clock) {
								bumped[id] = page + 1
								touched++
								break
							}
						}
					}
					if rt.copyRow(last) != 0 {
						created++
					}
				}
				walks++
				after := a.ids(key, base)
				for id := range before {
					if !after[id] || deleted[id] {
						continue // not there throughout
					}
					pages := seen[id]
					at, wasBumped := bumped[id]-1, bumped[id] != 0
					switch {
					case wasBumped && byUpdatedAt && strings.Contains(q, ":desc"):
						// Its sort key moved behind the walk: not promised.
					case wasBumped && byUpdatedAt:
						if len(pages) == 0 || pages[len(pages)-1] <= at {
							t.Errorf("%s: row %d updated after page %d came only on pages %v", base, id, at, pages)
						}
					case len(pages) != 1:
						t.Errorf("%s: row %d, there throughout, came on pages %v", base, id, pages)
					}
				}
				for id, pages := range seen {
					if len(pages) > 1 && !before[id] && !(bumped[id] != 0 && byUpdatedAt) {
						t.Errorf("%s: new row %d came on pages %v", base, id, pages)
					}
				}
				for _, id := range rt.copies {
					rt.remove(id)
				}
			}
		}
		t.Logf("%d walks over %d lists; %d rows updated, %d created, %d cursor rows deleted between pages",
			walks, len(lists), touched, created, deletedCursorRows)
		if touched == 0 || created == 0 || deletedCursorRows == 0 {
			t.Fatal("the walks changed too little to prove anything")
		}
	})
}

// A cursor comes back only to the list, sort, account and filters that
// issued it, never with an offset; a garbled one is a 400 naming cursor.
func TestCursorRefusals(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		for i := 0; i < 5; i++ {
			a.post("/v1/tags", map[string]any{"name": fmt.Sprintf("c%d", i), "ref_type": "SUPPLIER"}).want(201)
		}
		base := "/v1/tags?ref_type=SUPPLIER&limit=2&sort=name"
		c := a.get(base).want(200).JSON()["pagination"].(map[string]any)["next_cursor"].(string)
		if got := a.column(base+"&cursor="+c, "name"); !slices.Equal(got, []string{"c2", "c3"}) {
			t.Fatalf("the cursor's page: %v", got)
		}
		tampered := func(edit func(m map[string]any)) string {
			b, err := base64URL.DecodeString(c)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			edit(m)
			b, _ = json.Marshal(m)
			return base64URL.EncodeToString(b)
		}
		testKey := a.org.Key(t, policy.Test, "all")
		cases := []struct {
			name, path, key string
		}{
			{"another list", "/v1/warehouses?limit=2&cursor=" + c, a.key},
			{"another sort", "/v1/tags?ref_type=SUPPLIER&limit=2&sort=name:desc&cursor=" + c, a.key},
			{"no sort", "/v1/tags?ref_type=SUPPLIER&limit=2&cursor=" + c, a.key},
			{"other filters", "/v1/tags?ref_type=PRODUCT&limit=2&sort=name&cursor=" + c, a.key},
			{"another account", base + "&cursor=" + c, testKey},
			{"with offset 0", base + "&offset=0&cursor=" + c, a.key},
			{"with an offset", base + "&offset=2&cursor=" + c, a.key},
			{"garbled", base + "&cursor=" + c[:len(c)-4], a.key},
			{"not base64", base + "&cursor=%25%25%25", a.key},
			{"too long", base + "&cursor=" + strings.Repeat("A", 5000), a.key},
			{"a text for the id", base + "&cursor=" + tampered(func(m map[string]any) {
				k := m["k"].([]any)
				k[len(k)-1] = "1 OR 1=1"
			}), a.key},
			{"a number for the name", base + "&cursor=" + tampered(func(m map[string]any) { m["k"].([]any)[0] = 7 }), a.key},
			{"another version", base + "&cursor=" + tampered(func(m map[string]any) { m["v"] = 99 }), a.key},
		}
		for _, tc := range cases {
			a.do("GET", tc.path, tc.key, nil).field(400, "VALIDATION_ERROR", "cursor")
		}
		a.get(base + "&cursor=" + c).want(200)
		a.get("/v1/tags?ref_type=SUPPLIER&limit=3&sort=name&cursor=" + c).want(200) // the page size may change
	})
}

// The walk goes on from where it was when the cursor's own row is deleted
// and rows are created before it: the cursor holds the row's sort values,
// not the row.
func TestCursorSurvivesItsRow(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		ids := map[string]int{}
		for _, n := range []string{"b", "d", "f", "h", "j"} {
			ids[n] = a.post("/v1/tags", map[string]any{"name": n, "ref_type": "SUPPLIER"}).want(201).ID()
		}
		base := "/v1/tags?ref_type=SUPPLIER&limit=2&sort=name:asc"
		r := a.get(base).want(200)
		c := r.JSON()["pagination"].(map[string]any)["next_cursor"].(string)
		a.del(path("/v1/tags", ids["d"])).want(200)
		a.post("/v1/tags", map[string]any{"name": "a", "ref_type": "SUPPLIER"}).want(201)
		a.post("/v1/tags", map[string]any{"name": "e", "ref_type": "SUPPLIER"}).want(201)
		r = a.get(base + "&cursor=" + c).want(200)
		var got []string
		for _, x := range r.List() {
			got = append(got, x["name"].(string))
		}
		p := r.JSON()["pagination"].(map[string]any)
		if !slices.Equal(got, []string{"e", "f"}) || p["total"] != float64(6) || p["has_more"] != true || p["offset"] != float64(0) {
			t.Fatalf("after the deleted cursor row: %v, %v", got, p)
		}
		last := a.get(base + "&cursor=" + p["next_cursor"].(string)).want(200)
		lp := last.JSON()["pagination"].(map[string]any)
		if len(last.List()) != 2 || lp["has_more"] != false || lp["next_cursor"] != nil {
			t.Fatalf("last page: %s", last.Body)
		}
	})
}

var base64URL = base64.RawURLEncoding

// BenchmarkCursorPage reads the same page of 200 tags (the second of a list
// of 401, sorted by name) by offset and by cursor, per backend.
func BenchmarkCursorPage(b *testing.B) {
	for _, be := range dbtest.Backends(b) {
		st := dbtest.Open(b, be)
		a := newAPI(b, st, limit(1<<30))
		for i := range 401 {
			a.post("/v1/tags", map[string]any{"name": fmt.Sprintf("bench %03d", (i*7)%401), "ref_type": "PRODUCT"}).want(201)
		}
		base := "/v1/tags?ref_type=PRODUCT&limit=200&sort=name"
		c := a.get(base).want(200).JSON()["pagination"].(map[string]any)["next_cursor"].(string)
		byOffset, byCursor := a.column(base+"&offset=200", "name"), a.column(base+"&cursor="+c, "name")
		if !slices.Equal(byOffset, byCursor) || len(byCursor) != 200 {
			b.Fatalf("the pages differ: %d and %d rows", len(byOffset), len(byCursor))
		}
		for _, p := range []struct{ name, path string }{
			{"offset", base + "&offset=200"},
			{"cursor", base + "&cursor=" + c},
		} {
			b.Run(string(be)+"/"+p.name, func(b *testing.B) {
				req, _ := http.NewRequest("GET", a.url+p.path, nil)
				req.Header.Set("Authorization", "Bearer "+a.key)
				b.ReportAllocs()
				for b.Loop() {
					res, err := http.DefaultClient.Do(req)
					if err != nil || res.StatusCode != 200 {
						b.Fatalf("%v %v", res, err)
					}
					_, _ = io.Copy(io.Discard, res.Body)
					_ = res.Body.Close()
				}
			})
		}
	}
}

// Command requestlog measures the request log at scale: it fills one live
// account's log with -rows requests and another's with -other beside it (and
// -failed failed authentications), spread over 30 days, then times each query
// the console and the CLI run through package reqlog, on the store the server
// opens, and writes each query's plan. bench/requestlog.sh runs it; see
// docs/performance.md.
//
// The mix: about 90% GETs answered 200 (reads of many operations, the first
// resources far more often than the last), 5% writes answered 2xx with a
// request body and an answer of a few hundred bytes, 5% answers 4xx with a
// problem body and its code, 0.1% 5xx, and one rare operation (one request in
// 10,000); five keys per account, used 50/25/15/7/3%.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/migrate"
	"larder.dev/larder/policy"
)

var (
	dbURL     = flag.String("database", "", "database URL (required)")
	rows      = flag.Int("rows", 10_000_000, "requests of the measured account")
	other     = flag.Int("other", 1_000_000, "requests of the other account, interleaved in time")
	failed    = flag.Int("failed", 20_000, "failed authentications (no account)")
	runs      = flag.Int("runs", 7, "timed runs of each query (after one untimed)")
	pruneRuns = flag.Int("prune-runs", 3, "Prune runs, each deleting the oldest day left")
	fill      = flag.Bool("fill", true, "fill the log; false: measure the log a previous run filled (its fill.json in -out)")
	out       = flag.String("out", ".", "directory of results.txt, results.json, plans.txt and fill.json")
)

// The rare operation, and the common one the operation filter is timed on.
const (
	rareOperation   = "cancelSalesOrder"
	rareRead        = "getOrganization"
	commonOperation = "listProducts"
)

// filled is what a fill leaves for the measurement.
type filled struct {
	MeasuredOrg, OtherOrg int
	// Keys are the measured account's keys, most used first.
	Keys []int
	// Start is the time of the oldest request.
	Start time.Time
	// RequestID is one request of the measured account, halfway.
	RequestID string
	Rows      int
}

func main() {
	flag.Parse()
	if *dbURL == "" {
		log.Fatal("-database is required")
	}
	ctx := context.Background()
	var capture []store.Call
	capturing := false
	st, err := store.Open(ctx, *dbURL, store.Options{Statements: 256, Snapshots: restapi.Snapshots{}, Observe: func(c store.Call) {
		if capturing && c.Statement() && strings.Contains(c.SQL, "api_request") {
			capture = append(capture, c)
		}
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	if _, err := migrate.Apply(ctx, st.DB, st.Dialect, func(ctx context.Context) error { return seed.Shared(ctx, st.Client) }); err != nil {
		log.Fatal(err)
	}
	meta := filepath.Join(*out, "fill.json")
	var f filled
	if *fill {
		if f, err = fillLog(ctx, st); err != nil {
			log.Fatal(err)
		}
		b, _ := json.MarshalIndent(f, "", "  ")
		if err := os.WriteFile(meta, b, 0o644); err != nil {
			log.Fatal(err)
		}
	} else {
		b, err := os.ReadFile(meta)
		if err != nil {
			log.Fatal(err)
		}
		if err := json.Unmarshal(b, &f); err != nil {
			log.Fatal(err)
		}
	}
	plans, err := os.Create(filepath.Join(*out, "plans.txt"))
	if err != nil {
		log.Fatal(err)
	}
	defer plans.Close()

	// The CLI runs each statement once, unprepared, so the database plans
	// it for its arguments; the console's server keeps its statements
	// prepared (the statement cache), and PostgreSQL may then run a generic
	// plan, the same whatever the arguments. Each query is timed both ways.
	plain, err := store.Open(ctx, *dbURL, store.Options{Statements: 0, Snapshots: restapi.Snapshots{}})
	if err != nil {
		log.Fatal(err)
	}
	defer plain.Close()
	c := st.Client
	list := func(fl reqlog.Filter) func(context.Context, *ent.Client) (int, error) {
		return func(ctx context.Context, c *ent.Client) (int, error) {
			r, err := reqlog.List(ctx, c, f.MeasuredOrg, policy.Live, fl)
			return len(r), err
		}
	}
	mid := f.Start.Add(15 * 24 * time.Hour)
	// The cursor of page 99, found once: page 100 is timed.
	cursor := 0
	for range 99 {
		page, err := reqlog.List(ctx, c, f.MeasuredOrg, policy.Live, reqlog.Filter{Before: cursor})
		if err != nil {
			log.Fatal(err)
		}
		cursor = page[len(page)-1].ID
	}
	queries := []struct {
		name string
		run  func(context.Context, *ent.Client) (int, error)
	}{
		{"newest page", list(reqlog.Filter{})},
		{"status 4xx", list(reqlog.Filter{StatusClass: 4})},
		{"status 5xx", list(reqlog.Filter{StatusClass: 5})},
		{"status 3xx (matching none)", list(reqlog.Filter{StatusClass: 3})},
		{"error code VALIDATION_ERROR", list(reqlog.Filter{ErrorCode: "VALIDATION_ERROR"})},
		{"error code matching none", list(reqlog.Filter{ErrorCode: "NO_SUCH_CODE"})},
		{"key (15% of requests)", list(reqlog.Filter{KeyID: f.Keys[2]})},
		{"key (3% of requests)", list(reqlog.Filter{KeyID: f.Keys[4]})},
		{"method POST", list(reqlog.Filter{Method: "POST"})},
		{"method DELETE (0.5%)", list(reqlog.Filter{Method: "DELETE"})},
		{"method PUT (matching none)", list(reqlog.Filter{Method: "PUT"})},
		{"operation " + commonOperation, list(reqlog.Filter{Operation: commonOperation})},
		{"operation " + rareOperation + " (rare write)", list(reqlog.Filter{Operation: rareOperation})},
		{"operation " + rareRead + " (rare read)", list(reqlog.Filter{Operation: rareRead})},
		{"one hour, 15 days ago", list(reqlog.Filter{Since: mid, Until: mid.Add(time.Hour)})},
		{"status 4xx, one hour, 15 days ago", list(reqlog.Filter{StatusClass: 4, Since: mid, Until: mid.Add(time.Hour)})},
		{"page 100 by the cursor", list(reqlog.Filter{Before: cursor})},
		{"Find by request id", func(ctx context.Context, c *ent.Client) (int, error) {
			_, _, err := reqlog.Find(ctx, c, f.MeasuredOrg, f.RequestID)
			return 1, err
		}},
		// The Requests page's pictures, as at the end of the fill: requests
		// per hour over 24 hours and per day over 30 days (every row of the
		// account but the first day's part).
		{"activity per hour, 24 hours", activity(f, time.Hour)},
		{"activity per day, 30 days", activity(f, 24*time.Hour)},
		{"failed authentications, newest page", func(ctx context.Context, c *ent.Client) (int, error) {
			r, err := reqlog.ListFailedAuth(ctx, c, reqlog.Filter{})
			return len(r), err
		}},
	}
	var results []map[string]any
	report, err := os.Create(filepath.Join(*out, "results.txt"))
	if err != nil {
		log.Fatal(err)
	}
	defer report.Close()
	line := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		fmt.Println(s)
		fmt.Fprintln(report, s)
	}
	// The requests: the rows, and the plain reads the rows of reads hold.
	count := func(where string) (rows, reads, held int) {
		if err := st.DB.QueryRowContext(ctx, "SELECT count(*) FROM api_requests"+where).Scan(&rows); err != nil {
			log.Fatal(err)
		}
		if err := st.DB.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(requests), 0) FROM api_request_reads"+where).Scan(&reads, &held); err != nil {
			log.Fatal(err)
		}
		return rows, reads, held
	}
	tRows, tReads, tHeld := count("")
	mRows, mReads, mHeld := count(fmt.Sprintf(" WHERE account_id = (SELECT id FROM accounts WHERE organization_id = %d AND environment = 'live')", f.MeasuredOrg))
	line("%s, %d requests in the measured account (%d rows, %d plain reads in %d rows of reads), %d in the tables (%d rows, %d plain reads in %d rows of reads); median (min, max) of %d runs, ms",
		st.Dialect, mRows+mHeld, mRows, mHeld, mReads, tRows+tHeld, tRows, tHeld, tReads, *runs)
	line("%-40s %26s %26s %6s", "query", "unprepared (CLI)", "prepared (console)", "rows")
	for _, q := range queries {
		row := map[string]any{"query": q.name}
		cols := make([]string, 0, 2)
		for _, mode := range []struct {
			name string
			c    *ent.Client
		}{{"unprepared", plain.Client}, {"prepared", c}} {
			// Prepared: past PostgreSQL's five custom plans, as on a server
			// that has run the console's searches a while (SQLite plans a
			// statement once, whatever its arguments).
			warm := 1
			if mode.name == "prepared" && st.Dialect == "postgres" {
				warm = 8
			}
			n, med, lo, hi, k := timeQuery(ctx, q.name, warm, func(ctx context.Context) (int, error) { return q.run(ctx, mode.c) })
			cols = append(cols, fmt.Sprintf("%9.2f (%.2f, %.2f)", med, lo, hi))
			row["rows"] = n
			row[mode.name] = map[string]any{"median_ms": med, "min_ms": lo, "max_ms": hi, "runs": k}
		}
		line("%-40s %26s %26s %6v", q.name, cols[0], cols[1], row["rows"])
		results = append(results, row)

		capture, capturing = nil, true
		_, err = q.run(ctx, c)
		capturing = false
		if err != nil {
			log.Fatal(err)
		}
		explain(ctx, st, plans, q.name, capture)
	}

	// Prune: each run deletes the oldest day left, as the hourly pruning of
	// a server does (reqlog.Pruner: the day's partition dropped on
	// PostgreSQL, its rows deleted in batches on SQLite).
	prune := reqlog.Pruner(st)
	pruned := make([]float64, 0, *pruneRuns)
	var deleted []int
	for i := range *pruneRuns {
		var oldest time.Time
		if err := st.DB.QueryRowContext(ctx, "SELECT created_at FROM api_requests ORDER BY created_at LIMIT 1").Scan(&oldest); err != nil {
			log.Fatal(err)
		}
		cutoff := oldest.Add(24 * time.Hour)
		capture, capturing = nil, i == 0
		t0 := time.Now()
		n, err := prune(ctx, cutoff)
		d := time.Since(t0)
		capturing = false
		if err != nil {
			log.Fatal(err)
		}
		if i == 0 && len(capture) >= 2 && st.Dialect != "postgres" {
			explain(ctx, st, plans, "Prune (one batch)", capture[:2])
		}
		pruned = append(pruned, ms(d))
		deleted = append(deleted, n)
	}
	if len(pruned) > 0 {
		s := slices.Clone(pruned)
		slices.Sort(s)
		line("%-40s %9.0f %9.0f %9.0f %6d  (rows deleted per run: %v)", "Prune of one day (whole run)", s[len(s)/2], s[0], s[len(s)-1], deleted[0], deleted)
		results = append(results, map[string]any{"query": "Prune of one day", "runs_ms": pruned, "deleted": deleted})
	}
	b, _ := json.MarshalIndent(map[string]any{"dialect": st.Dialect, "rows": mRows + mHeld, "table_rows": tRows + tHeld, "plain_reads": mHeld, "reads_rows": mReads, "runs": *runs, "results": results}, "", "  ")
	if err := os.WriteFile(filepath.Join(*out, "results.json"), b, 0o644); err != nil {
		log.Fatal(err)
	}
}

// activity is the console's count of the measured account's requests per
// period of step, over the day (per hour) or the 30 days (per day) up to
// the end of the fill.
func activity(f filled, step time.Duration) func(context.Context, *ent.Client) (int, error) {
	end := f.Start.Add(30 * 24 * time.Hour)
	since := end.Add(-23 * time.Hour)
	if step == 24*time.Hour {
		since = end.AddDate(0, 0, -29)
	}
	return func(ctx context.Context, c *ent.Client) (int, error) {
		p, err := reqlog.Activity(ctx, c, f.MeasuredOrg, policy.Live, since, end, step)
		n := 0
		for _, x := range p {
			n += x.Requests
		}
		return n, err
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// timeQuery runs q warm times untimed, then -runs times (three when the
// first takes over two seconds), and returns the rows of a run and the median,
// least and most milliseconds of the timed runs, and how many ran.
func timeQuery(ctx context.Context, name string, warm int, q func(context.Context) (int, error)) (int, float64, float64, float64, int) {
	var n int
	var err error
	for range warm {
		t0 := time.Now()
		if n, err = q(ctx); err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		if time.Since(t0) > 2*time.Second {
			break // slow whatever the plan
		}
	}
	times := make([]float64, 0, *runs)
	for range *runs {
		t0 := time.Now()
		if _, err := q(ctx); err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		times = append(times, ms(time.Since(t0)))
		if times[0] > 2000 && len(times) == 3 {
			break // slow enough: three runs tell
		}
	}
	slices.Sort(times)
	return n, times[len(times)/2], times[0], times[len(times)-1], len(times)
}

// explain writes the plan of each statement of a query: EXPLAIN (ANALYZE,
// BUFFERS) on PostgreSQL (a DELETE only EXPLAINed, so nothing is deleted),
// EXPLAIN QUERY PLAN on SQLite.
func explain(ctx context.Context, st *store.Store, w *os.File, name string, calls []store.Call) {
	fmt.Fprintf(w, "== %s\n", name)
	for _, c := range calls {
		prefix := "EXPLAIN QUERY PLAN "
		if st.Dialect == "postgres" {
			prefix = "EXPLAIN (ANALYZE, BUFFERS) "
			if strings.HasPrefix(strings.TrimSpace(c.SQL), "DELETE") {
				prefix = "EXPLAIN "
			}
		}
		fmt.Fprintf(w, "-- %s\n-- args %v\n", c.SQL, c.Args)
		rs, err := st.DB.QueryContext(ctx, prefix+c.SQL, c.Args...)
		if err != nil {
			fmt.Fprintf(w, "(no plan: %v)\n", err)
			continue
		}
		cols, _ := rs.Columns()
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				log.Fatal(err)
			}
			parts := make([]string, len(vals))
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				parts[i] = fmt.Sprint(v)
			}
			fmt.Fprintln(w, strings.Join(parts, " | "))
		}
		rs.Close()
	}
	fmt.Fprintln(w)
}

// fillLog creates the two organizations and their keys, and writes the log.
func fillLog(ctx context.Context, st *store.Store) (filled, error) {
	var f filled
	scopes, err := policy.ParseScopes("read-all")
	if err != nil {
		return f, err
	}
	var accounts [2]int
	var keys [2][]int
	for i, name := range []string{"Measured", "Other"} {
		o, err := tenancy.Create(ctx, st.Client, name, tenancy.Entitled, "CAD")
		if err != nil {
			return f, err
		}
		accounts[i] = o.Live.ID
		for k := range 5 {
			key, err := auth.CreateKey(ctx, st.Client, o.Org.ID, auth.Holder, policy.Live, scopes, fmt.Sprintf("integration %d", k+1))
			if err != nil {
				return f, err
			}
			keys[i] = append(keys[i], key.Record.ID)
		}
		if i == 0 {
			f.MeasuredOrg = o.Org.ID
		} else {
			f.OtherOrg = o.Org.ID
		}
	}
	f.Keys, f.Rows = keys[0], *rows
	end := time.Now().UTC().Truncate(time.Second)
	f.Start = end.Add(-30 * 24 * time.Hour)
	total := *rows + *other
	step := (30 * 24 * time.Hour) / time.Duration(total)
	rng := rand.New(rand.NewPCG(1, 2))
	// On PostgreSQL each day of the 30 needs its partition before its rows.
	for d := f.Start; !d.After(end); d = d.Add(24 * time.Hour) {
		if err := reqlog.MakeRoom(ctx, st, d); err != nil {
			return f, err
		}
	}
	if err := reqlog.MakeRoom(ctx, st, end); err != nil {
		return f, err
	}
	ins, err := newInserter(ctx, st)
	if err != nil {
		return f, err
	}
	t0 := time.Now()
	measured := 0
	for g := range total {
		at := f.Start.Add(time.Duration(g) * step).Truncate(time.Microsecond)
		acct := 0
		// Bresenham: exactly *other rows of the other account, evenly spread.
		if (g+1)*(*other)/total > g*(*other)/total {
			acct = 1
		}
		r := request(rng, at)
		r.AccountID, r.KeyID = accounts[acct], keys[acct][pickKey(rng)]
		if acct == 0 {
			measured++
			if measured == *rows/2 {
				f.RequestID = r.RequestID
			}
		}
		if err := ins.add(r); err != nil {
			return f, err
		}
		if (g+1)%1_000_000 == 0 {
			log.Printf("%d rows, %.0f rows/s", g+1, float64(g+1)/time.Since(t0).Seconds())
		}
	}
	for range *failed {
		at := f.Start.Add(time.Duration(rng.Int64N(int64(30 * 24 * time.Hour)))).Truncate(time.Microsecond)
		if err := ins.add(failedAuth(rng, at)); err != nil {
			return f, err
		}
	}
	if err := ins.close(); err != nil {
		return f, err
	}
	log.Printf("filled %d rows in %s", total+*failed, time.Since(t0).Round(time.Second))
	if st.Dialect == "postgres" {
		// As autovacuum leaves a table that has taken this many rows.
		if _, err := st.DB.ExecContext(ctx, "VACUUM ANALYZE api_requests, api_request_reads, api_request_hours"); err != nil {
			return f, err
		}
	}
	// SQLite is measured as the server leaves it: Larder runs no ANALYZE.
	return f, nil
}

func pickKey(rng *rand.Rand) int {
	x := rng.IntN(100)
	switch {
	case x < 50:
		return 0
	case x < 75:
		return 1
	case x < 90:
		return 2
	case x < 97:
		return 3
	}
	return 4
}

// resources are the API's collections, most requested first.
var resources = []struct{ path, one, many string }{
	{"products", "Product", "Products"}, {"product-lots", "ProductLot", "ProductLots"},
	{"sales-orders", "SalesOrder", "SalesOrders"}, {"customers", "Customer", "Customers"},
	{"stock-movements", "StockMovement", "StockMovements"}, {"invoices", "Invoice", "Invoices"},
	{"purchase-orders", "PurchaseOrder", "PurchaseOrders"}, {"suppliers", "Supplier", "Suppliers"},
	{"bills", "Bill", "Bills"}, {"locations", "Location", "Locations"}, {"tags", "Tag", "Tags"},
	{"productions", "Production", "Productions"}, {"shipments", "Shipment", "Shipments"},
	{"price-lists", "PriceList", "PriceLists"}, {"tax-rates", "TaxRate", "TaxRates"},
	{"contacts", "Contact", "Contacts"}, {"addresses", "Address", "Addresses"},
	{"units", "Unit", "Units"}, {"territories", "Territory", "Territories"},
	{"employees", "Employee", "Employees"},
}

// resourceCut is the cumulative weights of resources (1/rank).
var resourceCut = func() []float64 {
	var sum float64
	out := make([]float64, len(resources))
	for i := range resources {
		sum += 1 / float64(i+1)
		out[i] = sum
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}()

func pickResource(rng *rand.Rand) int {
	x := rng.Float64()
	for i, c := range resourceCut {
		if x < c {
			return i
		}
	}
	return len(resources) - 1
}

// row is one request as inserted.
type row struct {
	At                         time.Time
	AccountID, KeyID           int
	Method, Operation, Path    string
	Status                     int
	ErrorCode                  string
	RequestID, ClientRequestID string
	DurationUs                 int64
	ClientAddr, UserAgent      string
	RequestBody, ResponseBody  []byte
}

var agents = []string{"larder-sync/1.4 (go1.23)", "python-requests/2.32.3", "shop-connector/3.1", "curl/8.5.0", "erp-bridge/0.9"}

func request(rng *rand.Rand, at time.Time) *row {
	res := resources[pickResource(rng)]
	id := 1 + rng.IntN(200_000)
	r := &row{At: at, RequestID: ids.NewAt("req_", at), Method: "GET", Status: 200,
		ClientAddr: fmt.Sprintf("203.0.113.%d", 1+rng.IntN(12)), UserAgent: agents[rng.IntN(len(agents))],
		DurationUs: 600 + int64(rng.ExpFloat64()*3000)}
	if rng.IntN(10) < 3 {
		r.ClientRequestID = fmt.Sprintf("sync-%d", rng.IntN(1_000_000_000))
	}
	one := func(verb string) { r.Operation, r.Path = verb+res.one, fmt.Sprintf("/v1/%s/%d", res.path, id) }
	many := func(verb string) {
		r.Operation, r.Path = verb+res.many, "/v1/"+res.path
		if verb == "list" && rng.IntN(2) == 0 {
			r.Path += fmt.Sprintf("?limit=200&after=%d", id)
		}
	}
	write := func() {
		r.DurationUs *= 3
		switch x := rng.IntN(10); {
		case x < 6:
			r.Method, r.Status = "POST", 201
			many("create")
			r.Operation = "create" + res.one
		case x < 9:
			r.Method = "PATCH"
			one("update")
		default:
			r.Method, r.Status = "DELETE", 204
			one("delete")
		}
		r.RequestBody = requestBody(rng, id)
		if r.Status != 204 {
			r.ResponseBody = responseBody(rng, id, at)
		}
	}
	switch x := rng.Float64(); {
	case x < 0.0001:
		r.Method, r.Operation, r.Path = "POST", rareOperation, fmt.Sprintf("/v1/sales-orders/%d/cancel", id)
		r.RequestBody, r.ResponseBody = []byte(`{}`), responseBody(rng, id, at)
	case x < 0.0002:
		r.Method, r.Operation, r.Path, r.RequestBody, r.ResponseBody = "GET", rareRead, "/v1/organization", nil, nil
	case x < 0.001:
		one("get")
		r.Status, r.ErrorCode = 500, "INTERNAL_ERROR"
		if rng.IntN(5) == 0 {
			r.Status, r.ErrorCode = 503, "SERVICE_UNAVAILABLE"
		}
		r.ResponseBody = problem(r.Status, r.ErrorCode, r.RequestID)
	case x < 0.051:
		switch y := rng.IntN(100); {
		case y < 35:
			one("get")
			r.Status, r.ErrorCode = 404, "NOT_FOUND"
		case y < 75:
			write()
			r.Status, r.ErrorCode = 400, "VALIDATION_ERROR"
		case y < 85:
			write()
			r.Status, r.ErrorCode = 409, "DUPLICATE"
		case y < 95:
			write()
			r.Status, r.ErrorCode = 403, "INSUFFICIENT_SCOPE"
		default:
			many("list")
			r.Status, r.ErrorCode = 429, "RATE_LIMITED"
		}
		r.ResponseBody = problem(r.Status, r.ErrorCode, r.RequestID)
	case x < 0.10:
		write()
	default:
		if rng.IntN(5) < 2 {
			many("list")
		} else {
			one("get")
		}
	}
	return r
}

func failedAuth(rng *rand.Rand, at time.Time) *row {
	res := resources[pickResource(rng)]
	r := &row{At: at, RequestID: ids.NewAt("req_", at), Method: "GET", Operation: "list" + res.many, Path: "/v1/" + res.path,
		Status: 401, ErrorCode: "INVALID_API_KEY", ClientAddr: fmt.Sprintf("198.51.100.%d", 1+rng.IntN(200)),
		UserAgent: agents[rng.IntN(len(agents))], DurationUs: 200 + int64(rng.ExpFloat64()*300)}
	r.ResponseBody = problem(401, r.ErrorCode, r.RequestID)
	return r
}

func requestBody(rng *rand.Rand, id int) []byte {
	return fmt.Appendf(nil, `{"product_code":"RM-%06d","name":"Stone-ground wholemeal flour, type %d","description":"Organic, from the %d harvest; 25 kg sacks on pallets of 40","unit":"kg","category":"raw-materials","reorder_point":"%d.000","lead_time_days":%d,"tags":["organic","bulk","supplier-%d"],"notes":"delivered to dock %d"}`,
		id, rng.IntN(100), 2020+rng.IntN(6), rng.IntN(5000), rng.IntN(30), rng.IntN(50), rng.IntN(8))
}

func responseBody(rng *rand.Rand, id int, at time.Time) []byte {
	return fmt.Appendf(nil, `{"id":%d,"product_code":"RM-%06d","name":"Stone-ground wholemeal flour, type %d","description":"Organic, from the harvest; 25 kg sacks on pallets of 40","unit":"kg","category":"raw-materials","reorder_point":"%d.000","lead_time_days":%d,"tags":["organic","bulk"],"is_deleted":false,"created_at":"%s","updated_at":"%s","version":%d}`,
		id, id, rng.IntN(100), rng.IntN(5000), rng.IntN(30), at.Format(time.RFC3339), at.Format(time.RFC3339), 1+rng.IntN(9))
}

func problem(status int, code, requestID string) []byte {
	return fmt.Appendf(nil, `{"type":"https://larder.dev/problems/%s","title":"The request was refused","status":%d,"code":"%s","detail":"See errors for each field refused.","request_id":"%s","errors":[{"field":"reorder_point","message":"must be a decimal of at most 3 places"}]}`,
		strings.ToLower(code), status, code, requestID)
}

// inserter writes rows in bulk as the log's writer stores its batches
// (reqlog.Load: the plain reads grouped as the writer groups a batch's,
// the others as rows, the hours' counts with them), chunk rows a
// transaction.
type inserter struct {
	ctx  context.Context
	st   *store.Store
	rows []*ent.APIRequest
}

const chunk = 100_000

// batchSpan is the time the writer's batches span: it writes what arrived
// in a quarter of a second (reqlog's flushEvery), so that a row of reads
// holds a key's reads of one operation within it.
const batchSpan = 250 * time.Millisecond

func newInserter(ctx context.Context, st *store.Store) (*inserter, error) {
	return &inserter{ctx: ctx, st: st}, nil
}

func (in *inserter) add(r *row) error {
	e := &ent.APIRequest{CreatedAt: r.At, Method: r.Method, Operation: r.Operation, Path: r.Path, Status: r.Status,
		StatusClass: r.Status / 100, ErrorCode: r.ErrorCode, RequestID: r.RequestID, ClientRequestID: r.ClientRequestID,
		DurationUs: r.DurationUs, ClientAddr: r.ClientAddr, UserAgent: r.UserAgent, RequestBody: r.RequestBody, ResponseBody: r.ResponseBody}
	if e.AccountID = r.AccountID; r.AccountID != 0 {
		key := r.KeyID
		e.APIKeyID = &key
	}
	if in.rows = append(in.rows, e); len(in.rows) == chunk {
		return in.flush()
	}
	return nil
}

func (in *inserter) flush() error {
	err := reqlog.Load(in.ctx, in.st, batchSpan, in.rows...)
	in.rows = in.rows[:0]
	return err
}

// close writes the last rows.
func (in *inserter) close() error { return in.flush() }

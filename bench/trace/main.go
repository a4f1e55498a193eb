// Command trace measures a lot's trace at scale on PostgreSQL: it fills one
// account with a plant of about a million lots and ten million stock
// movements (fill.go), picks a raw lot whose trace at -depth reaches about
// -target nodes, then times, alternated one run at a time, the trace's
// recursive statement alone (inventory.TraceReachSQL through database/sql,
// unnamed and prepared, on the server's pool), inventory.TraceLotOf in the
// process, and GET /v1/product-lots/{lot_id}/trace against a running server
// (-url), and writes the plan of every statement the trace sends.
// bench/trace.sh runs it; see docs/performance.md, "Lot trace at scale".
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/policy"
)

var (
	dbURL    = flag.String("database", "", "PostgreSQL URL (required)")
	fill     = flag.Bool("fill", true, "fill the plant (the database must be new); false: measure the plant a previous run left")
	nLots    = flag.Int("lots", 1_000_000, "lots of the plant (movements about ten times as many)")
	gens     = flag.Int("generations", 10, "generations of production runs between the raw lots and the finished goods")
	depth    = flag.Int("depth", 10, "the trace's depth")
	target   = flag.Int("target", 500, "nodes the traced lot's trace should reach")
	runs     = flag.Int("runs", 30, "timed runs of each way, alternated")
	warm     = flag.Int("warm", 10, "untimed runs of each way first (past PostgreSQL's five custom plans of a prepared statement)")
	url      = flag.String("url", "", "base URL of a larder serve on the same database (empty: no HTTP)")
	fillOnly = flag.Bool("fill-only", false, "fill, then stop")
	out      = flag.String("out", ".", "directory of results.txt, results.json and plans.txt")
)

func main() {
	flag.Parse()
	if *dbURL == "" {
		log.Fatal("-database is required")
	}
	ctx := context.Background()
	var capture []store.Call
	capturing := false
	st, err := store.Open(ctx, *dbURL, store.Options{Statements: 256, Snapshots: restapi.Snapshots{}, Observe: func(c store.Call) {
		if capturing && c.Statement() {
			capture = append(capture, c)
		}
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	if st.Dialect != "postgres" {
		log.Fatal("the trace at scale is measured on PostgreSQL")
	}
	var p *plan
	if *fill {
		if p, err = fillPlant(ctx, st, *nLots, *gens, *depth, *target); err != nil {
			log.Fatal(err)
		}
	} else if p, err = planOf(ctx, st.DB); err != nil {
		log.Fatal(err)
	}
	if *fillOnly {
		return
	}
	actx := policy.App(ctx, p.Account, policy.Live)

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

	// The trace once, to describe it.
	t, err := inventory.TraceLotOf(actx, st.Client, p.Lot, inventory.Both, *depth)
	if err != nil {
		log.Fatal(err)
	}
	kinds := map[inventory.NodeKind]int{}
	minLevel, maxLevel := 0, 0
	for _, n := range t.Nodes {
		kinds[n.Kind]++
		minLevel, maxLevel = min(minLevel, n.Level), max(maxLevel, n.Level)
	}
	reachRows, err := reachOnce(ctx, st.DB, p)
	if err != nil {
		log.Fatal(err)
	}
	line("plant: %d lots (%d raw, %d generations of %d, finished lots shipped %d times each), %d movements in the account",
		p.Lots, p.Raw, p.Generations, p.PerGen, p.ShipsPerLot, p.Movements)
	line("traced lot %d, direction both, depth %d: %d nodes (%d lots, %d runs, %d bills, %d shipments, %d origins), %d edges, levels %d..%d, truncated %v; the recursive statement returns %d rows",
		p.Lot, *depth, len(t.Nodes), kinds[inventory.NodeLot], kinds[inventory.NodeProduction], kinds[inventory.NodeBill], kinds[inventory.NodeShipment], kinds[inventory.NodeOrigin],
		len(t.Edges), minLevel, maxLevel, t.Truncated, reachRows)

	// The ways, each a function returning what it read.
	prepared, err := st.DB.PrepareContext(ctx, inventory.TraceReachSQL)
	if err != nil {
		log.Fatal(err)
	}
	defer prepared.Close()
	type way struct {
		name string
		run  func() (int, error)
	}
	ways := []way{
		{"a. TraceReachSQL alone", func() (int, error) {
			rs, err := st.DB.QueryContext(ctx, inventory.TraceReachSQL, p.Account, p.Lot, *depth, *depth)
			return drain(rs, err)
		}},
		{"a'. TraceReachSQL alone, prepared", func() (int, error) {
			rs, err := prepared.QueryContext(ctx, p.Account, p.Lot, *depth, *depth)
			return drain(rs, err)
		}},
		{"b. inventory.TraceLotOf", func() (int, error) {
			t, err := inventory.TraceLotOf(actx, st.Client, p.Lot, inventory.Both, *depth)
			if err != nil {
				return 0, err
			}
			return len(t.Nodes), nil
		}},
	}
	if *url != "" {
		scopes, err := policy.ParseScopes("read-all")
		if err != nil {
			log.Fatal(err)
		}
		key, err := auth.CreateKey(ctx, st.Client, p.Org, auth.Holder, policy.Live, scopes, fmt.Sprintf("trace bench %d", time.Now().Unix()))
		if err != nil {
			log.Fatal(err)
		}
		client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
		path := fmt.Sprintf("%s/v1/product-lots/%d/trace?direction=both&depth=%d", strings.TrimRight(*url, "/"), p.Lot, *depth)
		get := func() ([]byte, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
			if err != nil {
				return nil, err
			}
			req.Header.Set("Authorization", "Bearer "+key.Key)
			res, err := client.Do(req)
			if err != nil {
				return nil, err
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil {
				return nil, err
			}
			if res.StatusCode != http.StatusOK {
				return nil, fmt.Errorf("GET %s: %d %s", path, res.StatusCode, b)
			}
			return b, nil
		}
		b, err := get()
		if err != nil {
			log.Fatal(err)
		}
		var body struct {
			Data struct {
				Nodes []json.RawMessage `json:"nodes"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			log.Fatal(err)
		}
		if len(body.Data.Nodes) != len(t.Nodes) {
			log.Fatalf("the API's trace has %d nodes, TraceLotOf's %d", len(body.Data.Nodes), len(t.Nodes))
		}
		line("the API's answer: %d bytes, %d nodes", len(b), len(body.Data.Nodes))
		ways = append(ways, way{"c. GET …/trace over HTTP", func() (int, error) {
			b, err := get()
			return len(b), err
		}})
	}

	for range *warm {
		for _, w := range ways {
			if _, err := w.run(); err != nil {
				log.Fatalf("%s: %v", w.name, err)
			}
		}
	}
	times := make([][]float64, len(ways))
	for i := range *runs {
		// Each run turns the order, so that no way always follows another.
		for k := range ways {
			j := (i + k) % len(ways)
			t0 := time.Now()
			if _, err := ways[j].run(); err != nil {
				log.Fatalf("%s: %v", ways[j].name, err)
			}
			times[j] = append(times[j], ms(time.Since(t0)))
		}
	}
	type stat struct {
		Way                   string
		Median, P90, Min, Max float64
		Runs                  []float64
	}
	stats := make([]stat, len(ways))
	for i, w := range ways {
		s := slices.Clone(times[i])
		slices.Sort(s)
		stats[i] = stat{Way: w.name, Median: pct(s, 50), P90: pct(s, 90), Min: s[0], Max: s[len(s)-1], Runs: times[i]}
	}
	line("")
	line("%d runs of each way, alternated, after %d untimed; ms", *runs, *warm)
	line("%-36s %9s %9s %9s %9s %12s", "way", "median", "p90", "min", "max", "median / a")
	for _, s := range stats {
		line("%-36s %9.2f %9.2f %9.2f %9.2f %11.2f×", s.Way, s.Median, s.P90, s.Min, s.Max, s.Median/stats[0].Median)
	}

	// The plans.
	plans, err := os.Create(filepath.Join(*out, "plans.txt"))
	if err != nil {
		log.Fatal(err)
	}
	defer plans.Close()
	var scans []string
	text := explain(ctx, st.DB, "TraceReachSQL, planned for its arguments (as run alone, unprepared)", inventory.TraceReachSQL, []any{p.Account, p.Lot, *depth, *depth})
	fmt.Fprint(plans, text)
	scans = append(scans, summary("TraceReachSQL (custom plan)", text)...)
	text, err = explainPrepared(ctx, st.DB, p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprint(plans, text)
	scans = append(scans, summary("TraceReachSQL (prepared, after 6 runs)", text)...)
	capture, capturing = nil, true
	_, err = inventory.TraceLotOf(actx, st.Client, p.Lot, inventory.Both, *depth)
	capturing = false
	if err != nil {
		log.Fatal(err)
	}
	for i, c := range capture {
		if c.SQL == inventory.TraceReachSQL {
			continue
		}
		text := explain(ctx, st.DB, fmt.Sprintf("TraceLotOf's statement %d of %d", i+1, len(capture)), c.SQL, c.Args)
		fmt.Fprint(plans, text)
		scans = append(scans, summary(fmt.Sprintf("statement %d: %s", i+1, abridge(c.SQL)), text)...)
	}
	line("")
	line("scans of each statement (plans in plans.txt):")
	bad := 0
	for _, s := range scans {
		line("  %s", s)
		if strings.Contains(s, "Seq Scan on stock_movements") || strings.Contains(s, "Seq Scan on product_lots") {
			bad++
		}
	}
	if bad > 0 {
		line("NOT INDEX-BACKED: %d statements scan stock_movements or product_lots sequentially", bad)
	} else {
		line("every read of stock_movements and product_lots goes through an index")
	}
	b, _ := json.MarshalIndent(map[string]any{"plan": p, "nodes": len(t.Nodes), "edges": len(t.Edges), "kinds": kinds, "reach_rows": reachRows,
		"depth": *depth, "runs": *runs, "warm": *warm, "ways": stats, "scans": scans, "date": time.Now().UTC().Format(time.RFC3339)}, "", "  ")
	if err := os.WriteFile(filepath.Join(*out, "results.json"), b, 0o644); err != nil {
		log.Fatal(err)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// pct is the q-th percentile of sorted s, by nearest rank.
func pct(s []float64, q int) float64 {
	i := (q*len(s) + 99) / 100
	return s[max(i-1, 0)]
}

// drain reads every row of a query's result and counts them.
func drain(rs *sql.Rows, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return 0, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return n, err
		}
		n++
	}
	return n, rs.Err()
}

func reachOnce(ctx context.Context, db *sql.DB, p *plan) (int, error) {
	rs, err := db.QueryContext(ctx, inventory.TraceReachSQL, p.Account, p.Lot, *depth, *depth)
	return drain(rs, err)
}

// explain is the EXPLAIN (ANALYZE, BUFFERS) of one statement, headed by it.
func explain(ctx context.Context, db *sql.DB, name, q string, args []any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "== %s\n-- %s\n-- args %v\n", name, q, args)
	rs, err := db.QueryContext(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+q, args...)
	if err != nil {
		fmt.Fprintf(&b, "(no plan: %v)\n\n", err)
		return b.String()
	}
	defer rs.Close()
	for rs.Next() {
		var s string
		if err := rs.Scan(&s); err != nil {
			log.Fatal(err)
		}
		fmt.Fprintln(&b, s)
	}
	b.WriteString("\n")
	return b.String()
}

// explainPrepared is the plan PostgreSQL runs for the recursive statement
// once prepared and run six times, as the server's statement cache runs it:
// the generic plan when PostgreSQL chose it.
func explainPrepared(ctx context.Context, db *sql.DB, p *plan) (string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PREPARE trace_reach AS "+inventory.TraceReachSQL); err != nil {
		return "", err
	}
	defer conn.ExecContext(ctx, "DEALLOCATE trace_reach")
	exec := fmt.Sprintf("EXECUTE trace_reach(%d, %d, %d, %d)", p.Account, p.Lot, *depth, *depth)
	for range 6 {
		if _, err := conn.ExecContext(ctx, exec); err != nil {
			return "", err
		}
	}
	rs, err := conn.QueryContext(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+exec)
	if err != nil {
		return "", err
	}
	defer rs.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "== TraceReachSQL, prepared and run six times first (as the statement cache runs it)\n-- %s\n", exec)
	for rs.Next() {
		var s string
		if err := rs.Scan(&s); err != nil {
			return "", err
		}
		fmt.Fprintln(&b, s)
	}
	b.WriteString("\n")
	return b.String(), rs.Err()
}

var scanNode = regexp.MustCompile(`(Seq Scan|Index Only Scan|Index Scan|Bitmap Index Scan|Bitmap Heap Scan|CTE Scan|WorkTable Scan)( Backward)?( using \S+)? on \S+`)

// summary lists, once each, the scans of a plan's tables (not of its CTEs).
func summary(name, plan string) []string {
	var found []string
	for _, m := range scanNode.FindAllString(plan, -1) {
		if strings.HasPrefix(m, "CTE Scan") || strings.HasPrefix(m, "WorkTable Scan") || slices.Contains(found, m) {
			continue
		}
		found = append(found, m)
	}
	return []string{fmt.Sprintf("%s: %s", name, strings.Join(found, "; "))}
}

// abridge is a statement's first words, up to its FROM's table.
func abridge(q string) string {
	if i := strings.Index(q, " FROM "); i >= 0 {
		rest := q[i+6:]
		if j := strings.IndexAny(rest, " "); j >= 0 {
			rest = rest[:j]
		}
		return "SELECT … FROM " + rest
	}
	if len(q) > 60 {
		return q[:60] + "…"
	}
	return q
}

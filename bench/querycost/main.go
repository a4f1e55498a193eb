// Command querycost measures, one at a time, the SQL statements a Larder
// request runs on PostgreSQL: the key lookup, the rate-limit upsert, and the
// tag queries, with a trivial parameterized SELECT as the floor. Each is run
// by a number of workers over a database/sql pool like Larder's (20
// connections, lib/pq) for a fixed time, so its throughput and latency under
// the benchmark's concurrency can be set against a whole request's. It also
// prints the server-side planning and execution time from EXPLAIN ANALYZE.
package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	_ "github.com/lib/pq" // registers "postgres"
)

// query is one statement under test; args gives its arguments for worker w.
type query struct {
	name string
	sql  string
	args func(w, i int) []any
}

// main parses the flags and measures each selected query.
func main() {
	dsn := flag.String("database", os.Getenv("LARDER_DATABASE_URL"), "PostgreSQL URL")
	key := flag.String("key", "", "API key whose lookup is measured")
	account := flag.Int64("account", 1, "account of the tags and of the key")
	conc := flag.Int("c", 16, "concurrent workers")
	dur := flag.Duration("d", 5*time.Second, "time per query")
	only := flag.String("only", "", "comma-separated names of the queries to run (default: all)")
	flag.Parse()
	if *dsn == "" || *key == "" {
		log.Fatal("querycost: --database and --key are required")
	}
	db, err := sql.Open("postgres", *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(20)
	ctx := context.Background()
	ids, err := tagIDs(ctx, db, *account)
	if err != nil {
		log.Fatalf("querycost: %v", err)
	}
	if len(ids) == 0 {
		log.Fatalf("querycost: account %d has no tags", *account)
	}
	window := time.Now().Truncate(time.Minute).Unix()
	sum := sha256.Sum256([]byte(*key))
	hash := hex.EncodeToString(sum[:])
	queries := []query{
		{"floor: SELECT $1", `SELECT $1::int`, func(w, i int) []any { return []any{i} }},
		{"auth: key lookup", `SELECT k.id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, a.id, a.environment, o.id, o.name, o.plan, o.currency
FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN organizations o ON o.id = a.organization_id
WHERE k.secret_hash = $1`, func(w, i int) []any { return []any{hash} }},
		{"ratelimit: one row", upsert, func(w, i int) []any { return []any{"bench:hot", window} }},
		{"ratelimit: row/worker", upsert, func(w, i int) []any { return []any{fmt.Sprintf("bench:w%d", w), window} }},
		{"tag by id", `SELECT id, created_at, updated_at, description, name, ref_type, account_id FROM tags WHERE id = $1 AND account_id = $2`,
			func(w, i int) []any { return []any{ids[(w*7919+i)%len(ids)], *account} }},
		{"tag count", `SELECT COUNT(*) FROM tags WHERE account_id = $1 AND ref_type = $2`,
			func(w, i int) []any { return []any{*account, "PRODUCT"} }},
		{"tag list 200", `SELECT id, created_at, updated_at, description, name, ref_type, account_id FROM tags
WHERE account_id = $1 AND ref_type = $2 ORDER BY id LIMIT 200`, func(w, i int) []any { return []any{*account, "PRODUCT"} }},
	}
	fmt.Printf("%-22s %9s %9s %9s %9s %11s %11s\n", "query", "q/s", "mean ms", "p50 ms", "p99 ms", "plan ms", "exec ms")
	for _, q := range queries {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), q.name) {
			continue
		}
		n, lat, err := measure(ctx, db, q, *conc, *dur)
		if err != nil {
			log.Fatalf("querycost: %s: %v", q.name, err)
		}
		plan, exec := explain(ctx, db, q)
		fmt.Printf("%-22s %9.0f %9.3f %9.3f %9.3f %11s %11s\n", q.name, float64(n)/dur.Seconds(),
			ms(mean(lat)), ms(pct(lat, 0.5)), ms(pct(lat, 0.99)), plan, exec)
	}
}

// upsert is Larder's rate-limit statement on PostgreSQL.
const upsert = `INSERT INTO rate_windows (bucket, window_start, hits) VALUES ($1, $2, 1)
ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_windows.hits + 1 RETURNING hits`

// tagIDs lists the ids of the tags of account.
func tagIDs(ctx context.Context, db *sql.DB, account int64) ([]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT id FROM tags WHERE account_id = $1`, account)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// measure runs q from conc workers for d and returns how many ran and their
// latencies, sorted.
func measure(ctx context.Context, db *sql.DB, q query, conc int, d time.Duration) (int, []time.Duration, error) {
	until := time.Now().Add(d)
	lats := make([][]time.Duration, conc)
	errs := make([]error, conc)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Go(func() {
			for i := 0; time.Now().Before(until); i++ {
				t0 := time.Now()
				if err := drain(ctx, db, q.sql, q.args(w, i)); err != nil {
					errs[w] = err
					return
				}
				lats[w] = append(lats[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	var all []time.Duration
	for w := range conc {
		if errs[w] != nil {
			return 0, nil, errs[w]
		}
		all = append(all, lats[w]...)
	}
	slices.Sort(all)
	return len(all), all, nil
}

// drain runs a query and reads every column of every row.
func drain(ctx context.Context, db *sql.DB, query string, args []any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(any)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
	}
	return rows.Err()
}

// timing matches the planning and execution lines of EXPLAIN ANALYZE.
var timing = regexp.MustCompile(`^(Planning|Execution) Time: ([0-9.]+) ms`)

// explain returns the planning and execution time PostgreSQL reports for one
// run of q, or "?" when EXPLAIN fails.
func explain(ctx context.Context, db *sql.DB, q query) (plan, exec string) {
	plan, exec = "?", "?"
	rows, err := db.QueryContext(ctx, "EXPLAIN (ANALYZE) "+q.sql, q.args(0, 0)...)
	if err != nil {
		return plan, exec
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if rows.Scan(&line) != nil {
			return plan, exec
		}
		if m := timing.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			if m[1] == "Planning" {
				plan = m[2]
			} else {
				exec = m[2]
			}
		}
	}
	return plan, exec
}

// mean is the average of durations.
func mean(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	var s time.Duration
	for _, x := range d {
		s += x
	}
	return s / time.Duration(len(d))
}

// pct is the nearest-rank q-quantile of sorted durations.
func pct(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// ms converts a duration to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

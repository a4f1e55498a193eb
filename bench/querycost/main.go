// Command querycost measures, one at a time, the SQL statements a request runs
// on PostgreSQL: Larder's (prepared, as Larder runs them) and the baseline's
// (unnamed statements, as bench/baseline runs them), with a trivial
// parameterized SELECT as the floor. Each is run by a number of workers over a
// database/sql pool like the servers' (20 connections, lib/pq with
// binary_parameters) for a fixed time, so its throughput and latency under the
// benchmark's concurrency can be set against a whole request's. It also
// reports the CPU time PostgreSQL (all its processes) and this process spent
// per statement, and the server-side planning and execution time from EXPLAIN
// ANALYZE. The last column is the CPU other programs took meanwhile, in cores:
// a run where it is high was disturbed.
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

	"larder.dev/larder/bench/internal/proccpu"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/store"
)

// The statements below are Larder's own (auth, ratelimit) or copies; keep the
// copies in step with their sources, or the numbers stop describing Larder:
//
//   - entByID, entCount, entList: the SQL ent generates for GET /v1/tags/{id}
//     and GET /v1/tags?ref_type=PRODUCT&limit=200, as PostgreSQL logs it with
//     log_statement=all (ent writes LIMIT as a literal).
//   - baseByID, baseCount, baseList: bench/baseline/main.go.
const (
	keyLookup      = auth.LookupPrintSQL
	keyPrint       = auth.PrintSQL
	lookupAndSpend = auth.LookupAndSpendSQL
	reserve        = ratelimit.ReserveSQL

	entByID  = `SELECT "tags"."id", "tags"."description", "tags"."name", "tags"."ref_type" FROM "tags" WHERE "tags"."id" = $1 AND "tags"."account_id" = $2 LIMIT 2`
	entCount = `SELECT COUNT(*) FROM "tags" WHERE "tags"."ref_type" = $1 AND "tags"."account_id" = $2`
	entList  = `SELECT "tags"."id", "tags"."description", "tags"."name", "tags"."ref_type" FROM "tags" WHERE "tags"."ref_type" = $1 AND "tags"."account_id" = $2 ORDER BY "tags"."id" LIMIT 200`

	baseByID  = `SELECT id, description, name, ref_type FROM tags WHERE id = $1`
	baseCount = `SELECT COUNT(*) FROM tags WHERE account_id = $1 AND ref_type = $2`
	baseList  = `SELECT id, description, name, ref_type FROM tags
WHERE account_id = $1 AND ref_type = $2 ORDER BY id LIMIT 200`
)

// query is one statement under test; args gives its arguments for the i-th
// run of worker w. A prepared query is prepared once per connection (a named
// statement, planned once) instead of sent as lib/pq's unnamed statement,
// which PostgreSQL parses and plans on every run.
type query struct {
	id       string
	what     string
	sql      string
	args     func(w, i int) []any
	prepared bool
}

// main parses the flags and measures each selected query.
func main() {
	dsn := flag.String("database", os.Getenv("LARDER_DATABASE_URL"), "PostgreSQL URL")
	key := flag.String("key", "", "API key whose lookup is measured (key_live_… or key_test_…)")
	account := flag.Int64("account", 1, "account of the tags and of the key")
	conc := flag.Int("c", 16, "concurrent workers")
	dur := flag.Duration("d", 5*time.Second, "time per query")
	only := flag.String("only", "", "comma-separated ids of the queries to run (default: all)")
	flag.Parse()
	if *dsn == "" || *key == "" {
		log.Fatal("querycost: --database and --key are required")
	}
	env, ok := keyEnv(*key)
	if !ok {
		log.Fatal("querycost: --key must start with key_live_ or key_test_")
	}
	db, err := sql.Open("postgres", store.PostgresDSN(*dsn))
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
	sum := sha256.Sum256([]byte(*key))
	hash := hex.EncodeToString(sum[:])
	if err := checkSpend(ctx, db, hash, env); err != nil {
		log.Fatalf("querycost: %v", err)
	}
	acct := *account
	tagID := func(w, i int) int64 { return ids[(w*7919+i)%len(ids)] }
	// spendArgs are lookupAndSpend's arguments as Authenticate passes them
	// for a quiet account: one number reserved in the current window.
	spendArgs := func(w, i int) []any {
		now := time.Now()
		return []any{hash, now.Truncate(time.Minute).Unix(), now, env, 1}
	}
	queries := []query{
		{"floor", "SELECT $1::int (unnamed)", `SELECT $1::int`, func(w, i int) []any { return []any{i} }, false},
		{"floor-prep", "SELECT $1::int (prepared)", `SELECT $1::int`, func(w, i int) []any { return []any{i} }, true},
		{"key", "Larder: key lookup (prepared)", keyLookup, func(w, i int) []any { return []any{hash} }, true},
		{"print", "Larder: a trusted key's print (prepared)", keyPrint, func(w, i int) []any { return []any{hash} }, true},
		{"spend", "Larder: lookupAndSpend, reserve 1 (prepared)", lookupAndSpend, spendArgs, true},
		{"reserve", "Larder: Reserve upsert, 1 (unnamed)", reserve, func(w, i int) []any {
			return []any{fmt.Sprintf("acct:%d", acct), time.Now().Truncate(time.Minute).Unix(), 1}
		}, false},
		{"byid", "Larder: tag by id (prepared)", entByID, func(w, i int) []any { return []any{tagID(w, i), acct} }, true},
		{"count", "Larder: tag count (prepared)", entCount, func(w, i int) []any { return []any{"PRODUCT", acct} }, true},
		{"list", "Larder: tag list, 200 rows (prepared)", entList, func(w, i int) []any { return []any{"PRODUCT", acct} }, true},
		{"base-byid", "baseline: tag by id (unnamed)", baseByID, func(w, i int) []any { return []any{tagID(w, i)} }, false},
		{"base-count", "baseline: tag count (unnamed)", baseCount, func(w, i int) []any { return []any{acct, "PRODUCT"} }, false},
		{"base-list", "baseline: tag list, 200 rows (unnamed)", baseList, func(w, i int) []any { return []any{acct, "PRODUCT"} }, false},
		{"key-unnamed", "key lookup (unnamed, before the change)", keyLookup, func(w, i int) []any { return []any{hash} }, false},
	}
	cpuSet := proccpu.Set{PIDs: map[string]int{"client": os.Getpid()}, Comms: []string{"postgres"}}
	fmt.Printf("%-12s %-44s %8s %8s %8s %8s | %9s %9s | %8s %8s | %s\n", "", "", "", "", "", "", "CPU ms per query", "", "EXPLAIN ANALYZE", "", "")
	fmt.Printf("%-12s %-44s %8s %8s %8s %8s | %9s %9s | %8s %8s | %s\n", "id", "statement", "q/s", "mean ms", "p50 ms", "p99 ms", "postgres", "client", "plan ms", "exec ms", "other cores")
	for _, q := range queries {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), q.id) {
			continue
		}
		before := cpuSet.Take()
		n, lat, err := measure(ctx, db, q, *conc, *dur)
		if err != nil {
			log.Fatalf("querycost: %s: %v", q.id, err)
		}
		cpu := cpuSet.Take().Since(before)
		plan, exec := explain(ctx, db, q)
		if q.prepared {
			plan = "-" // planned when prepared (or a cached generic plan)
		}
		fmt.Printf("%-12s %-44s %8.0f %8.3f %8.3f %8.3f | %9.3f %9.3f | %8s %8s | %.2f\n", q.id, q.what, float64(n)/dur.Seconds(),
			ms(mean(lat)), ms(pct(lat, 0.5)), ms(pct(lat, 0.99)),
			ms(cpu["postgres"])/float64(n), ms(cpu["client"])/float64(n), plan, exec, cpu[proccpu.Other].Seconds()/dur.Seconds())
	}
}

// keyEnv is the environment a key's prefix names, as auth reads it.
func keyEnv(key string) (string, bool) {
	for _, env := range []string{"live", "test"} {
		if strings.HasPrefix(key, "key_"+env+"_") {
			return env, true
		}
	}
	return "", false
}

// checkSpend runs lookupAndSpend once and fails unless it found the key and
// counted a hit, so the measured statement takes the write path as in Larder.
func checkSpend(ctx context.Context, db *sql.DB, hash, env string) error {
	now := time.Now()
	rows, err := db.QueryContext(ctx, lookupAndSpend, hash, now.Truncate(time.Minute).Unix(), now, env, 1)
	if err != nil {
		return fmt.Errorf("lookupAndSpend: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	if !rows.Next() {
		return fmt.Errorf("lookupAndSpend found no key with that hash: %v", rows.Err())
	}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(any)
	}
	var hits int64
	dest[len(dest)-1] = &hits
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	if hits == 0 {
		return fmt.Errorf("lookupAndSpend counted no hit: the key is revoked, expired or of another environment")
	}
	return rows.Err()
}

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
	run := db.QueryContext
	if q.prepared {
		stmt, err := db.PrepareContext(ctx, q.sql)
		if err != nil {
			return 0, nil, err
		}
		defer stmt.Close()
		run = func(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
			return stmt.QueryContext(ctx, args...)
		}
	}
	until := time.Now().Add(d)
	lats := make([][]time.Duration, conc)
	errs := make([]error, conc)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Go(func() {
			for i := 0; time.Now().Before(until); i++ {
				t0 := time.Now()
				if err := drain(ctx, run, q.sql, q.args(w, i)); err != nil {
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
func drain(ctx context.Context, run func(context.Context, string, ...any) (*sql.Rows, error), query string, args []any) error {
	rows, err := run(ctx, query, args...)
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

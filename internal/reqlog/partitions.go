package reqlog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/platform/dberror"
	"larder.dev/larder/internal/platform/store"
)

// On PostgreSQL api_requests is partitioned by range of created_at, one
// partition a UTC day (api_requests_20261205 holds 5 December 2026), so that
// a row is written into the small indexes of its own day, and pruning drops
// whole days instead of deleting rows; api_request_reads likewise by its
// rows' last_at (api_request_reads_20261205). A day's partitions of the two
// tables are made together and dropped together. The migration creates the days of the
// rows it converts and three ahead; the writer creates each day a batch needs
// before writing it, with Ahead days after it, and again on demand when an
// insert finds no partition for a row (a day another server pruned).
// SQLite keeps one plain table.

// Ahead is how many days after the newest row's the writer keeps created,
// so that a day's partition exists before its first request.
const Ahead = 3

// partitionPrefix begins the name of every day partition of api_requests,
// readsPrefix of api_request_reads.
const (
	partitionPrefix = "api_requests_"
	readsPrefix     = "api_request_reads_"
)

// day is the UTC day of t, at midnight.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// PartitionName is the name of the partition that holds the rows of t's
// UTC day.
func PartitionName(t time.Time) string { return partitionPrefix + day(t).Format("20060102") }

// readsPartitionName is the name of the partition of api_request_reads that
// holds the rows of reads whose last request arrived on t's UTC day.
func readsPartitionName(t time.Time) string { return readsPrefix + day(t).Format("20060102") }

// partitions remembers the day partitions known to exist, so that a batch
// of days already seen costs no statement.
type partitions struct {
	db   *sql.DB
	mu   sync.Mutex
	have map[time.Time]bool
}

func newPartitions(db *sql.DB) *partitions {
	return &partitions{db: db, have: map[time.Time]bool{}}
}

// ensure creates the partitions of the days of times, and of the Ahead days
// after the newest, that are not known to exist.
func (p *partitions) ensure(ctx context.Context, times ...time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var newest time.Time
	for _, t := range times {
		d := day(t)
		if d.After(newest) {
			newest = d
		}
		if err := p.create(ctx, d); err != nil {
			return err
		}
	}
	if newest.IsZero() {
		return nil
	}
	for i := 1; i <= Ahead; i++ {
		if err := p.create(ctx, newest.AddDate(0, 0, i)); err != nil {
			return err
		}
	}
	return nil
}

// create creates day's partition unless it is known to exist.
func (p *partitions) create(ctx context.Context, d time.Time) error {
	if p.have[d] {
		return nil
	}
	if err := CreatePartition(ctx, p.db, d); err != nil {
		return err
	}
	p.have[d] = true
	return nil
}

// forget empties the memory of the partitions, after an insert found one
// missing.
func (p *partitions) forget() {
	p.mu.Lock()
	p.have = map[time.Time]bool{}
	p.mu.Unlock()
}

// CreatePartition creates the partitions of t's UTC day in db
// (PostgreSQL), of api_requests and of api_request_reads, unless they
// exist. Servers writing at once may race to create the same day: the one
// that loses finds it created.
func CreatePartition(ctx context.Context, db *sql.DB, t time.Time) error {
	d := day(t)
	for _, p := range []struct{ table, name string }{{"api_requests", PartitionName(d)}, {"api_request_reads", readsPartitionName(d)}} {
		// Direct SQL: a partition of the request log, which ent has no words for; the name and bounds are made from a day, never from input.
		_, err := db.ExecContext(ctx, fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s PARTITION OF %s FOR VALUES FROM ('%s') TO ('%s')`,
			quote(p.name), p.table, d.Format(time.RFC3339), d.AddDate(0, 0, 1).Format(time.RFC3339)))
		if err == nil {
			continue
		}
		var exists bool
		if db.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, p.name).Scan(&exists) == nil && exists {
			continue
		}
		return fmt.Errorf("create request log partition %s: %w", p.name, err)
	}
	return nil
}

// quote is a partition's name as an SQL identifier (the names are made
// from days: letters, digits and underscores).
func quote(name string) string { return `"` + name + `"` }

// noPartition reports whether err is PostgreSQL's refusal of a row for
// which the partitioned table has no partition: a check violation
// (23514), the only one an insert into api_requests, which has no CHECK
// constraint, can meet.
func noPartition(err error) bool {
	code, ok := dberror.SQLState(err)
	return ok && code == "23514"
}

// Partition is one day partition of the request log.
type Partition struct {
	Name string
	// Day is the UTC day whose rows it holds.
	Day time.Time
}

// Partitions lists the request log's day partitions in db (PostgreSQL),
// oldest first. Partitions of other names (one an operator attached) are
// left out.
func Partitions(ctx context.Context, db *sql.DB) ([]Partition, error) {
	// Direct SQL: the request log's partitions, from PostgreSQL's catalog.
	rows, err := db.QueryContext(ctx, `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'api_requests'::regclass ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Partition
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		d, err := time.Parse("20060102", strings.TrimPrefix(name, partitionPrefix))
		if err != nil || !strings.HasPrefix(name, partitionPrefix) {
			continue
		}
		out = append(out, Partition{Name: name, Day: d})
	}
	return out, rows.Err()
}

// dropWait bounds how long dropping a day waits for its lock on the log (the
// writers' inserts hold it briefly): past it the day is left for the next
// run rather than holding up the writes queued behind the drop.
const dropWait = 5 * time.Second

// DropPartitions drops the request log's day partitions whose whole day is
// before cutoff, each with its hours' counts (api_request_hours) in one
// transaction, and returns how many rows went with them. A day that holds
// the cutoff is kept whole: a row is kept up to a day past the period.
func DropPartitions(ctx context.Context, db *sql.DB, cutoff time.Time) (int, error) {
	parts, err := Partitions(ctx, db)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, p := range parts {
		if p.Day.AddDate(0, 0, 1).After(cutoff) {
			break
		}
		n, err := dropPartition(ctx, db, p)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// dropPartition drops partition p, and api_request_reads' partition of the
// same day, and deletes the counts of its day's hours, in one transaction,
// and returns how many requests they held.
func dropPartition(ctx context.Context, db *sql.DB, p Partition) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	// Direct SQL: pruning drops a whole day of the request log, a partition ent has no words for, with its hours' counts; name comes from the catalog.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`SET LOCAL lock_timeout = '%dms'`, dropWait.Milliseconds())); err != nil {
		return 0, err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+quote(p.Name)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count request log partition %s: %w", p.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE `+quote(p.Name)); err != nil {
		return 0, fmt.Errorf("drop request log partition %s: %w", p.Name, err)
	}
	reads := readsPartitionName(p.Day)
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, reads).Scan(&exists); err != nil {
		return 0, err
	}
	if exists {
		var held int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(requests), 0) FROM `+quote(reads)).Scan(&held); err != nil {
			return 0, fmt.Errorf("count request log partition %s: %w", reads, err)
		}
		if _, err := tx.ExecContext(ctx, `DROP TABLE `+quote(reads)); err != nil {
			return 0, fmt.Errorf("drop request log partition %s: %w", reads, err)
		}
		n += held
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM api_request_hours WHERE hour >= $1 AND hour < $2`, p.Day, p.Day.AddDate(0, 0, 1)); err != nil {
		return 0, fmt.Errorf("delete the counts of request log partition %s: %w", p.Name, err)
	}
	return n, tx.Commit()
}

// Pruner is the request log's pruning on st's database, for package
// retention: on PostgreSQL it creates today's partition and the Ahead days
// after it when missing, then drops the days before the cutoff
// (DropPartitions); on SQLite it deletes the rows before it (Prune).
func Pruner(st *store.Store) func(ctx context.Context, cutoff time.Time) (int, error) {
	if st.Dialect != dialect.Postgres {
		return func(ctx context.Context, cutoff time.Time) (int, error) {
			return Prune(ctx, st.Client, cutoff)
		}
	}
	parts := newPartitions(st.DB)
	return func(ctx context.Context, cutoff time.Time) (int, error) {
		if err := parts.ensure(ctx, time.Now()); err != nil {
			return 0, err
		}
		return DropPartitions(ctx, st.DB, cutoff)
	}
}

// MakeRoom creates, on PostgreSQL, the day partition a row of time t
// needs, unless it exists; on SQLite it does nothing. The writer makes its
// own room; this is for rows written another way (tests, tools).
func MakeRoom(ctx context.Context, st *store.Store, t time.Time) error {
	if st.Dialect != dialect.Postgres {
		return nil
	}
	return CreatePartition(ctx, st.DB, t)
}

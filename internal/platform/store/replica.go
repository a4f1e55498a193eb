package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"entgo.io/ent/dialect"
)

// A Replica is a PostgreSQL streaming replica of a primary store, which
// answers the reads of the contexts routed to it (Route): the ent client of
// the primary sends their queries to the replica's pool, with its own
// statement cache; their writes and transactions stay on the primary, and
// so does everything that does not go through the client (keys, rate
// limits, idempotency keys, the dispatcher). Code over the client is
// unchanged.
//
// What the replica has replayed is measured every ReplicaOptions.Interval:
// the primary's WAL position (pg_current_wal_lsn()), then the replica's
// replay position (pg_last_wal_replay_lsn()). Once the replica has replayed
// a position the primary had at instant t, it holds every commit made
// before t: t is its horizon. A replica whose horizon is more than
// ReplicaOptions.MaxLag old (lagging, stopped, unreachable, promoted) serves
// nothing until it catches up; its reads go to the primary. The measure
// needs no write on an idle primary: its position stays, and the replica
// has replayed it.
//
// Read-your-writes: the writes of each account in this process are
// remembered (Writing), and an account's reads go to the replica only while
// none of its writes is running and the replica's horizon is after the end
// of its last one. A client that reads after its own write (through this
// process) therefore never sees the state before it.
type Replica struct {
	// Store is the replica's own store: its pool, statement cache and client.
	Store   *Store
	primary *Store
	o       ReplicaOptions

	mu sync.Mutex
	// horizon: every commit of the primary before it is on the replica.
	horizon time.Time
	// samples are the primary's positions not yet replayed, oldest first.
	samples []sample
	failing bool
	// writes are the account writes of this process, shared by every
	// replica of a Replicas.
	writes *writeRecord
}

// ReplicaOptions tune a Replica.
type ReplicaOptions struct {
	// MaxLag is the oldest horizon a replica may serve with (default 2s).
	MaxLag time.Duration
	// Interval separates the measures of the replica (default 1s).
	Interval time.Duration
	// Log takes the replica's changes of state (nil: slog.Default()).
	Log *slog.Logger
	// Measure, when set, replaces the measure of positions: it returns the
	// primary's position, then the replica's replayed one, read in that
	// order. Tests set it to stand a plain database in for a replica.
	Measure func(ctx context.Context) (primary, replayed uint64, err error)
}

// sample is the primary's WAL position at an instant.
type sample struct {
	at  time.Time
	lsn uint64
}

// accountWrites are an account's writes in this process: how many run, and
// when the last one ended.
type accountWrites struct {
	running int
	last    time.Time
}

// writeRecord holds the writes of each account in this process. One record
// serves every replica of the process: which writes a replica must have
// replayed does not depend on the replica.
type writeRecord struct {
	mu sync.Mutex
	m  map[int]*accountWrites
	// keep is the greatest MaxLag of the replicas that read the record: a
	// write that ended longer ago than keep is on every replica that serves
	// at all, and its entry goes.
	keep time.Duration
}

func newWriteRecord(keep time.Duration) *writeRecord {
	return &writeRecord{m: map[int]*accountWrites{}, keep: keep}
}

// writing records that a write of account begins; done records its end.
func (w *writeRecord) writing(account int) (done func()) {
	w.mu.Lock()
	a := w.m[account]
	if a == nil {
		a = &accountWrites{}
		w.m[account] = a
	}
	a.running++
	w.mu.Unlock()
	return func() {
		end := time.Now()
		w.mu.Lock()
		defer w.mu.Unlock()
		a.running--
		if end.After(a.last) {
			a.last = end
		}
		w.m[account] = a
	}
}

// replayed reports whether a replica whose horizon is horizon has every
// write of account (none running).
func (w *writeRecord) replayed(account int, horizon time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, ok := w.m[account]
	return !ok || (a.running == 0 && a.last.Before(horizon))
}

// prune forgets the accounts whose last write ended more than keep before
// now, none running: a replica that serves at all (its horizon at most its
// MaxLag, at most keep, old) has replayed them.
func (w *writeRecord) prune(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for account, a := range w.m {
		if a.running == 0 && now.Sub(a.last) > w.keep {
			delete(w.m, account)
		}
	}
}

// maxSamples bounds the positions kept while a replica does not replay
// (ten minutes of measures a second apart); the oldest go first, which
// only makes the horizon later to come.
const maxSamples = 600

// OpenReplica opens the replica at rawURL (postgres://…) for the reads of
// primary, a PostgreSQL store, with the pool options o (Snapshots and Fast
// as the primary's). The caller runs Run for the replica to serve anything.
func OpenReplica(ctx context.Context, primary *Store, rawURL string, o Options, ro ReplicaOptions) (*Replica, error) {
	if primary.Dialect != dialect.Postgres {
		return nil, errors.New("store: a read replica needs a PostgreSQL primary")
	}
	if _, dia, _, err := Parse(rawURL); err != nil {
		return nil, err
	} else if dia != dialect.Postgres {
		return nil, errors.New("store: a read replica must be a PostgreSQL database (postgres://…)")
	}
	st, err := Open(ctx, rawURL, o)
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	return NewReplica(primary, st, ro), nil
}

// NewReplica is the replica st of primary.
func NewReplica(primary, st *Store, ro ReplicaOptions) *Replica {
	if ro.MaxLag <= 0 {
		ro.MaxLag = 2 * time.Second
	}
	if ro.Interval <= 0 {
		ro.Interval = time.Second
	}
	if ro.Log == nil {
		ro.Log = slog.Default()
	}
	r := &Replica{Store: st, primary: primary, o: ro, writes: newWriteRecord(ro.MaxLag)}
	if r.o.Measure == nil {
		r.o.Measure = r.measure
	}
	return r
}

// Close closes the replica's pool.
func (r *Replica) Close() error { return r.Store.Close() }

// MaxLag is the oldest horizon the replica serves with.
func (r *Replica) MaxLag() time.Duration { return r.o.MaxLag }

// Run measures the replica every Interval until ctx ends.
func (r *Replica) Run(ctx context.Context) {
	t := time.NewTicker(r.o.Interval)
	defer t.Stop()
	for {
		_ = r.Poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Poll measures the replica once and moves its horizon.
func (r *Replica) Poll(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, max(r.o.Interval, time.Second))
	defer cancel()
	at := time.Now()
	primary, replayed, err := r.o.Measure(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if !r.failing && ctx.Err() == nil {
			r.o.Log.Warn("read replica not measured; its reads go to the primary until it is", "error", err)
		}
		r.failing = true
		return err
	}
	if r.failing {
		r.o.Log.Info("read replica measured again")
		r.failing = false
	}
	r.samples = append(r.samples, sample{at: at, lsn: primary})
	if len(r.samples) > maxSamples {
		r.samples = r.samples[len(r.samples)-maxSamples:]
	}
	n := 0
	for n < len(r.samples) && r.samples[n].lsn <= replayed {
		n++
	}
	if n > 0 {
		if h := r.samples[n-1].at; h.After(r.horizon) {
			r.horizon = h
		}
		r.samples = append(r.samples[:0], r.samples[n:]...)
	}
	r.writes.prune(at)
	return nil
}

// measure reads the primary's WAL position, then the replica's replayed one.
func (r *Replica) measure(ctx context.Context) (uint64, uint64, error) {
	var primary, replayed sql.NullInt64
	// Direct SQL: the WAL positions are the servers' own state, no table of the schema.
	if err := r.primary.DB.QueryRowContext(ctx, `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&primary); err != nil {
		return 0, 0, fmt.Errorf("primary's WAL position: %w", err)
	}
	// Direct SQL: as above; NULL on a server that is not in recovery.
	if err := r.Store.DB.QueryRowContext(ctx, `SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&replayed); err != nil {
		return 0, 0, fmt.Errorf("replica's replay position: %w", err)
	}
	if !replayed.Valid {
		return 0, 0, errors.New("the replica is not in recovery (promoted, or not a replica)")
	}
	return uint64(primary.Int64), uint64(replayed.Int64), nil
}

// Lag is how old the replica's horizon is at now (its replay lag, measured
// to within Interval); zero before the first measure.
func (r *Replica) Lag(now time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.horizon.IsZero() {
		return 0
	}
	return now.Sub(r.horizon)
}

// Ready reports whether the replica serves at all now: measured, and its
// horizon at most MaxLag old.
func (r *Replica) Ready(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fresh(now)
}

func (r *Replica) fresh(now time.Time) bool {
	return !r.failing && !r.horizon.IsZero() && now.Sub(r.horizon) <= r.o.MaxLag
}

// Serves reports whether account's reads may go to the replica now: it is
// Ready, and has replayed every write of the account this process made (none
// still running).
func (r *Replica) Serves(account int, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.fresh(now) {
		return false
	}
	return r.writes.replayed(account, r.horizon)
}

// Writing records that a write of account begins; done records its end,
// after its commit (or failure) and before its answer leaves. The record is
// the one of every replica of r's Replicas.
func (r *Replica) Writing(account int) (done func()) { return r.writes.writing(account) }

// unusable takes the replica out of rotation until its next measure, after
// a query on it failed for want of a connection.
func (r *Replica) unusable(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.failing {
		r.o.Log.Warn("read replica failed a read; its reads go to the primary until it is measured again", "error", err)
	}
	r.failing = true
}

// replicaKey is the context key of the *Replica a context's reads go to.
type replicaKey struct{}

// Route returns ctx with its reads through the primary's client sent to
// the replica. Transactions, writes and the pool's direct users stay on
// the primary.
func (r *Replica) Route(ctx context.Context) context.Context {
	return context.WithValue(ctx, replicaKey{}, r)
}

// routed returns the replica of the pool db that ctx's reads go to, or nil.
func routed(ctx context.Context, db *sql.DB) *Replica {
	if r, ok := ctx.Value(replicaKey{}).(*Replica); ok && r.primary.DB == db {
		return r
	}
	return nil
}

// Routed reports whether ctx's reads go to a replica of st.
func (s *Store) Routed(ctx context.Context) bool { return routed(ctx, s.DB) != nil }

// replicaQuery runs a read routed to r on the replica. A read the replica
// fails (no connection, a server shutting down, a query cancelled for a
// conflict with recovery, a pool closed) runs on the primary (fallback)
// instead, which has the answer, and the replica is out of rotation until
// it is measured again. A read whose own context ended is not run again.
func (r *Replica) replicaQuery(ctx context.Context, query string, args, v any, fallback func() error) error {
	err := r.Store.drv.Query(ctx, query, args, v)
	if err != nil && ctx.Err() == nil {
		r.unusable(err)
		return fallback()
	}
	return err
}

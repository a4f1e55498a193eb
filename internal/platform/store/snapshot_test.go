package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// newTag commits a tag of the account of ctx outside any snapshot, within
// five seconds: a snapshot that held SQLite's write lock would make it wait
// for the busy timeout (ten seconds) and fail.
func newTag(t *testing.T, st *store.Store, ctx context.Context, name string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var id int
	err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
		tg, err := tx.Tag.Create().SetName(name).SetRefType(tag.RefTypePRODUCT).Save(ctx)
		if err == nil {
			id = tg.ID
		}
		return err
	})
	if err != nil {
		t.Fatalf("a write beside an open snapshot: %v", err)
	}
	return id
}

// A snapshot's reads see the database as of its first read: a tag committed
// after it is neither counted nor found by id (a compiled read, through the
// statement cache after the first sightings), while reads without the
// snapshot see it at once. The database sees one transaction, begun by the
// first read and rolled back at the end. The commit does not wait for the
// open snapshot (no write lock on SQLite). A write in the snapshot is
// refused; the snapshot's connection goes back to the pool when it ends, and
// its context then reads no more.
func TestSnapshotReadsOneView(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		o := dbtest.NewOrg(t, st, "")
		ctx := o.Ctx(policy.Test)
		first := newTag(t, st, ctx, "First")
		count := func(ctx context.Context, c *ent.Client) int {
			t.Helper()
			n, err := c.Tag.Query().Where(tag.RefTypeEQ(tag.RefTypePRODUCT)).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		for range 3 { // admitted to the statement cache, and the read by id compiled
			count(ctx, st.Client)
			if _, err := st.Client.Tag.Get(ctx, first); err != nil {
				t.Fatal(err)
			}
		}
		before := count(ctx, st.Client)

		sctx, end := st.Snapshot(ctx)
		defer end()
		if n := count(sctx, st.Client); n != before {
			t.Fatalf("snapshot counts %d tags, want %d", n, before)
		}
		second := newTag(t, st, ctx, "Second")
		if n := count(ctx, st.Client); n != before+1 {
			t.Errorf("outside the snapshot: %d tags, want %d", n, before+1)
		}
		for range 3 {
			if n := count(sctx, st.Client); n != before {
				t.Errorf("snapshot counts %d tags after a commit, want its first %d", n, before)
			}
			if _, err := st.Client.Tag.Get(sctx, second); !ent.IsNotFound(err) {
				t.Errorf("snapshot reads the tag committed after it by id: %v", err)
			}
			if _, err := st.Client.Tag.Get(sctx, first); err != nil {
				t.Errorf("snapshot reads the tag of before by id: %v", err)
			}
		}
		// What reaches the database: nothing until the snapshot's first
		// read, which begins its transaction; its reads in it; and its end
		// rolls it back. (The statement cache prepares a query seen twice in
		// a transaction in the background, on another connection: the
		// preparations are left out.)
		var (
			mu    sync.Mutex
			calls []string
		)
		obs := dbtest.Observed(t, st, func(c store.Call) {
			if c.Op != store.OpPrepare {
				mu.Lock()
				calls = append(calls, c.String())
				mu.Unlock()
			}
		})
		octx, oend := obs.Snapshot(ctx)
		mu.Lock()
		calls = nil
		mu.Unlock()
		for range 2 {
			if n := count(octx, obs.Client); n != before+1 {
				t.Errorf("another pool's snapshot: %d tags, want %d", n, before+1)
			}
		}
		oend()
		mu.Lock()
		countSQL := func(s string) bool { return strings.HasPrefix(s, "SELECT COUNT(") && strings.Contains(s, "tags") }
		if len(calls) != 4 || calls[0] != "BEGIN" || !countSQL(calls[1]) || calls[2] != calls[1] || calls[3] != "ROLLBACK" {
			t.Errorf("a snapshot of two reads sent %q; want BEGIN, the two counts, ROLLBACK", calls)
		}
		mu.Unlock()
		if _, err := st.Client.ExecContext(sctx, "DELETE FROM tags WHERE id = $1", first); !errors.Is(err, store.ErrSnapshotWrite) {
			t.Errorf("a write in the snapshot: %v, want ErrSnapshotWrite", err)
		}
		if n := count(ctx, st.Client); n != before+1 {
			t.Errorf("after the refused write: %d tags, want %d", n, before+1)
		}

		end()
		end() // twice is harmless: the middleware defers it
		if _, err := st.Client.Tag.Query().Count(sctx); err == nil || !strings.Contains(err.Error(), "snapshot has ended") {
			t.Errorf("a read after the end: %v", err)
		}
		// database/sql puts a connection back as the transaction's
		// rollback finishes, which a driver may complete a moment later;
		// a connection the snapshot kept stays in use past the deadline.
		deadline := time.Now().Add(2 * time.Second)
		for st.DB.Stats().InUse != 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := st.DB.Stats().InUse; n != 0 {
			t.Errorf("%d connections still in use 2 s after the snapshot ended", n)
		}
	})
}

// A snapshot is its store's pool's: a client over another pool (a second
// process's store, on the same database) reads under the snapshot's context
// as without one.
func TestSnapshotIsItsPools(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var url string
		if st.Dialect == dialect.Postgres {
			url = dbtest.URL(t, dbtest.Postgres)
		} else {
			path, _, _ := strings.Cut(strings.TrimPrefix(st.DSN, "file:"), "?")
			url = "sqlite://" + path
		}
		other := dbtest.OpenURL(t, url)
		o := dbtest.NewOrg(t, st, "")
		ctx := o.Ctx(policy.Test)
		sctx, end := st.Snapshot(ctx)
		defer end()
		before, err := st.Client.Tag.Query().Count(sctx)
		if err != nil {
			t.Fatal(err)
		}
		newTag(t, st, ctx, "After")
		if n, err := other.Client.Tag.Query().Count(sctx); err != nil || n != before+1 {
			t.Errorf("another pool under the snapshot's context: %d tags, %v; want the committed %d", n, err, before+1)
		}
		if n, err := st.Client.Tag.Query().Count(sctx); err != nil || n != before {
			t.Errorf("the snapshot's own pool: %d tags, %v; want %d", n, err, before)
		}
	})
}

// A snapshot lives under the context it was made from: when that ends, its
// transaction is rolled back and its connection returned without end, reads
// under it fail rather than wait, and end is still safe.
func TestSnapshotEndsWithItsContext(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		o := dbtest.NewOrg(t, st, "")
		// The set-up's last connection goes back to the pool as its
		// transaction finishes, which may be a moment after the call
		// returns: count from an idle pool.
		idle := time.Now().Add(2 * time.Second)
		for st.DB.Stats().InUse != 0 && time.Now().Before(idle) {
			time.Sleep(5 * time.Millisecond)
		}
		ctx, cancel := context.WithCancel(o.Ctx(policy.Test))
		sctx, end := st.Snapshot(ctx)
		defer end()
		if _, err := st.Client.Tag.Query().Count(sctx); err != nil {
			t.Fatal(err)
		}
		if n := st.DB.Stats().InUse; n != 1 {
			t.Fatalf("%d connections in use by an open snapshot, want 1", n)
		}
		cancel()
		if _, err := st.Client.Tag.Query().Count(sctx); err == nil {
			t.Error("a read under an ended context succeeded")
		}
		deadline := time.Now().Add(5 * time.Second)
		for st.DB.Stats().InUse != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // database/sql rolls back from a goroutine of its own
		}
		if n := st.DB.Stats().InUse; n != 0 {
			t.Errorf("%d connections still in use after the context ended", n)
		}
		end()
		if _, err := st.Client.Tag.Query().Count(o.Ctx(policy.Test)); err != nil {
			t.Errorf("the pool after an ended snapshot: %v", err)
		}
	})
}

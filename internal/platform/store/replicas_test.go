package store

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"
)

// twoReplicas are two replicas joined in a set, each measured by its own
// positions, both caught up with the primary at 100.
func twoReplicas(t *testing.T, maxLag time.Duration) (*Replicas, [2]*Replica, [2]*positions) {
	t.Helper()
	var rs [2]*Replica
	var pos [2]*positions
	for i := range rs {
		pos[i] = &positions{primary: 100, replayed: 100}
		rs[i] = NewReplica(&Store{}, &Store{}, ReplicaOptions{MaxLag: maxLag, Measure: pos[i].measure, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		_ = rs[i].Poll(context.Background())
	}
	return JoinReplicas(rs[0], rs[1]), rs, pos
}

// picks counts where n reads of account go: to the first replica, the
// second, or the primary (nil).
func picks(s *Replicas, rs [2]*Replica, account, n int) (first, second, primary int) {
	for range n {
		switch s.Pick(account, time.Now()) {
		case rs[0]:
			first++
		case rs[1]:
			second++
		case nil:
			primary++
		}
	}
	return first, second, primary
}

// Reads go to the replicas that serve, in turn: two caught-up replicas take
// half each; a lagging or unmeasurable one takes none while the other
// serves; with neither, the primary does.
func TestReplicasSpreadReads(t *testing.T) {
	ctx := context.Background()
	s, rs, pos := twoReplicas(t, 200*time.Millisecond)
	const account = 7
	if a, b, p := picks(s, rs, account, 10); a != 5 || b != 5 || p != 0 {
		t.Fatalf("two caught-up replicas took %d and %d of 10 reads, the primary %d; want 5, 5, 0", a, b, p)
	}
	// The second stops replaying while the primary moves on.
	pos[0].primary, pos[0].replayed = 400, 400
	pos[1].primary = 400
	time.Sleep(250 * time.Millisecond)
	_ = rs[0].Poll(ctx)
	_ = rs[1].Poll(ctx)
	if a, b, p := picks(s, rs, account, 10); a != 10 || b != 0 || p != 0 {
		t.Fatalf("with the second replica past its bound: %d, %d, primary %d; want 10, 0, 0", a, b, p)
	}
	if !s.Ready(time.Now()) {
		t.Fatal("the set is not ready with one replica serving")
	}
	// The first cannot be measured: the second has caught up meanwhile.
	pos[1].replayed = 400
	_ = rs[1].Poll(ctx)
	pos[0].err = errors.New("connection refused")
	_ = rs[0].Poll(ctx)
	if a, b, p := picks(s, rs, account, 10); a != 0 || b != 10 || p != 0 {
		t.Fatalf("with the first replica unmeasurable: %d, %d, primary %d; want 0, 10, 0", a, b, p)
	}
	// A failed read takes the second out of rotation too: the primary serves.
	rs[1].unusable(errors.New("connection refused"))
	if a, b, p := picks(s, rs, account, 4); a != 0 || b != 0 || p != 4 {
		t.Fatalf("with neither replica serving: %d, %d, primary %d; want 0, 0, 4", a, b, p)
	}
	if s.Ready(time.Now()) {
		t.Fatal("the set is ready with no replica serving")
	}
}

// An account's write, recorded once for the set, keeps its reads off every
// replica until that replica has replayed it; each serves it once it has,
// whatever the other has replayed.
func TestReplicasShareTheWrites(t *testing.T) {
	ctx := context.Background()
	s, rs, pos := twoReplicas(t, time.Minute)
	const account, other = 7, 8
	done := s.Writing(account)
	if a, b, p := picks(s, rs, account, 4); p != 4 {
		t.Fatalf("while the account's write runs its reads went %d, %d to the replicas", a, b)
	}
	done()
	if a, b, p := picks(s, rs, account, 4); p != 4 {
		t.Fatalf("before either replica replayed the write its reads went %d, %d to the replicas", a, b)
	}
	if a, b, p := picks(s, rs, other, 4); a != 2 || b != 2 || p != 0 {
		t.Fatalf("another account's reads: %d, %d, primary %d; want 2, 2, 0", a, b, p)
	}
	// The primary wrote up to 150; the second replica replays it first.
	for i := range pos {
		pos[i].primary = 150
	}
	pos[1].replayed = 150
	_ = rs[0].Poll(ctx)
	_ = rs[1].Poll(ctx)
	if a, b, p := picks(s, rs, account, 4); a != 0 || b != 4 || p != 0 {
		t.Fatalf("with only the second replica past the write: %d, %d, primary %d; want 0, 4, 0", a, b, p)
	}
	if rs[0].Serves(account, time.Now()) {
		t.Fatal("the first replica serves an account whose write it has not replayed")
	}
	pos[0].replayed = 150
	_ = rs[0].Poll(ctx)
	if a, b, p := picks(s, rs, account, 4); a != 2 || b != 2 || p != 0 {
		t.Fatalf("with both replicas past the write: %d, %d, primary %d; want 2, 2, 0", a, b, p)
	}
	// A write recorded through one replica is the set's.
	done = rs[1].Writing(account)
	if rs[0].Serves(account, time.Now()) {
		t.Fatal("a write recorded on the second replica is not the first's")
	}
	done()
}

// The record forgets a write once every replica that serves at all has it:
// its end is older than the greatest MaxLag of the set.
func TestReplicaWriteRecordPrunes(t *testing.T) {
	w := newWriteRecord(50 * time.Millisecond)
	w.writing(1)() // ended
	running := w.writing(2)
	defer running()
	w.prune(time.Now())
	if len(w.m) != 2 {
		t.Fatalf("a fresh record pruned to %d accounts, want 2", len(w.m))
	}
	w.prune(time.Now().Add(100 * time.Millisecond))
	if _, ok := w.m[1]; ok || len(w.m) != 1 {
		t.Fatalf("after keep: %v, want only the running write of account 2", w.m)
	}
}

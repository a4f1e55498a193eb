package store

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"
)

// positions is a measure that returns what the test set.
type positions struct {
	primary, replayed uint64
	err               error
}

func (p *positions) measure(context.Context) (uint64, uint64, error) {
	return p.primary, p.replayed, p.err
}

// The horizon is the instant of the latest primary position the replica has
// replayed; an account's reads go to the replica only once the horizon is
// past the end of its last write, none running, and never while the horizon
// is older than MaxLag or the measure fails.
func TestReplicaHorizon(t *testing.T) {
	pos := &positions{}
	r := NewReplica(&Store{}, &Store{}, ReplicaOptions{MaxLag: 200 * time.Millisecond, Measure: pos.measure, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx := context.Background()
	const account = 7
	if r.Ready(time.Now()) || r.Serves(account, time.Now()) {
		t.Fatal("a replica never measured serves")
	}
	// Behind: the primary at 100, the replica at 50.
	pos.primary, pos.replayed = 100, 50
	_ = r.Poll(ctx)
	if r.Ready(time.Now()) {
		t.Fatal("a replica that has replayed none of the primary's positions serves")
	}
	// The replica replays 100 while the primary is at 150: the horizon is
	// the first measure's instant.
	pos.primary, pos.replayed = 150, 120
	_ = r.Poll(ctx)
	if !r.Ready(time.Now()) || !r.Serves(account, time.Now()) {
		t.Fatal("a replica that replayed a recent position does not serve")
	}
	done := r.Writing(account)
	if r.Serves(account, time.Now()) {
		t.Fatal("an account's reads go to the replica while its write runs")
	}
	if !r.Serves(account+1, time.Now()) {
		t.Fatal("another account's reads left the replica for this one's write")
	}
	done()
	if r.Serves(account, time.Now()) {
		t.Fatal("an account's reads go to a replica that has not replayed its write")
	}
	// Caught up: the primary stays at 150 (idle), the replica has it.
	pos.replayed = 150
	_ = r.Poll(ctx)
	if !r.Serves(account, time.Now()) {
		t.Fatal("the account's reads stay on the primary once the replica has its write")
	}
	// Lagging past MaxLag: the primary moves on, the replica does not.
	pos.primary = 400
	time.Sleep(250 * time.Millisecond)
	_ = r.Poll(ctx)
	if r.Ready(time.Now()) || r.Serves(account+1, time.Now()) {
		t.Fatalf("a replica %v behind serves, past its bound of 200ms", r.Lag(time.Now()))
	}
	// Caught up again, then unreachable.
	pos.replayed = 400
	_ = r.Poll(ctx)
	if !r.Ready(time.Now()) {
		t.Fatal("a replica that caught up does not serve")
	}
	pos.err = errors.New("connection refused")
	_ = r.Poll(ctx)
	if r.Ready(time.Now()) {
		t.Fatal("a replica that cannot be measured serves")
	}
}

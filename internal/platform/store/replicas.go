package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Replicas are the read replicas of one primary that a process reads from.
// Each is measured on its own (its Replica's horizon: lag is a server's, so
// a load balancer in front of several replicas, behind one URL, would mix
// their positions and break read-your-writes). The writes of each account
// in this process are recorded once, for all of them: an account's reads go
// to a replica only when that replica has replayed the account's last
// write.
//
// A read goes to one of the replicas that serve the account at that moment
// (Replica.Serves), taken in turn (round-robin); with none, it goes to the
// primary.
type Replicas struct {
	list   []*Replica
	writes *writeRecord
	next   atomic.Uint64
}

// JoinReplicas makes rs one set with a record of writes they share. Call it
// before any of them serves: the writes each recorded alone are dropped.
func JoinReplicas(rs ...*Replica) *Replicas {
	var keep time.Duration
	for _, r := range rs {
		keep = max(keep, r.o.MaxLag)
	}
	w := newWriteRecord(keep)
	for _, r := range rs {
		r.mu.Lock()
		r.writes = w
		r.mu.Unlock()
	}
	return &Replicas{list: rs, writes: w}
}

// List is the set's replicas, in the order they were joined.
func (s *Replicas) List() []*Replica { return s.list }

// Close closes every replica's pool.
func (s *Replicas) Close() error {
	var first error
	for _, r := range s.list {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Run measures every replica (Replica.Run) until ctx ends.
func (s *Replicas) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, r := range s.list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Run(ctx)
		}()
	}
	wg.Wait()
}

// Ready reports whether any replica serves at all now (Replica.Ready).
func (s *Replicas) Ready(now time.Time) bool {
	for _, r := range s.list {
		if r.Ready(now) {
			return true
		}
	}
	return false
}

// Writing records that a write of account begins, for every replica; done
// records its end, after its commit (or failure) and before its answer
// leaves.
func (s *Replicas) Writing(account int) (done func()) { return s.writes.writing(account) }

// Pick is the replica that account's read goes to now, or nil for the
// primary: the next, in turn, of those that serve the account now.
func (s *Replicas) Pick(account int, now time.Time) *Replica {
	n := uint64(len(s.list))
	if n == 0 {
		return nil
	}
	start := s.next.Add(1)
	for i := range n {
		if r := s.list[(start+i)%n]; r.Serves(account, now) {
			return r
		}
	}
	return nil
}

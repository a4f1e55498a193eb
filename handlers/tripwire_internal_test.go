package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// contextWatchers counts the goroutines package context starts to pass the
// end of a parent it cannot see into on to a derived context.
func contextWatchers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "created by context.")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// settledWatchers is contextWatchers once it holds still: goroutines of
// earlier tests that are ending are not counted as derived here.
func settledWatchers() int {
	n := contextWatchers()
	for range 200 {
		time.Sleep(10 * time.Millisecond)
		m := contextWatchers()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// hidden is a request's context as bounded would be if its Value did not
// answer package context's private key: the deadline's end and error, the
// request's values only.
type hidden struct {
	context.Context
	dl context.Context
}

func (c hidden) Deadline() (time.Time, bool) { return c.dl.Deadline() }
func (c hidden) Done() <-chan struct{}       { return c.dl.Done() }
func (c hidden) Err() error                  { return c.dl.Err() }

// The request timeout's context (bounded.Value in handlers/middleware.go)
// answers package context's private lookup of the cancelable context behind
// a Done channel (the key context.Cause and the parent discovery of
// WithCancel and AfterFunc ask Value for) with the deadline's own. Package
// context then hangs derived contexts on the deadline's directly. If it
// looks them up another way, or stops looking, every transaction and
// AfterFunc of every request starts a goroutine of its own, and nothing else
// fails. Checked against a context that hides the key (the counter sees
// those goroutines), and the derived contexts still end with the deadline.
func TestTripwireDerivedContextsFindTheDeadline(t *testing.T) {
	const d = 300 * time.Millisecond
	const n = 20
	var got context.Context
	h := withTimeout(d, true, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = r.Context() }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/tags", nil))
	dl, ok := got.Deadline()
	if !ok {
		t.Fatal("the request's context has no deadline")
	}
	var dlCtx context.Context
	if b, ok := got.(*bounded); ok {
		dlCtx = b.dl
	} else {
		t.Fatalf("the request's context is a %T, not the timeout's bounded", got)
	}
	derive := func(parent context.Context) (watchers int, children []context.Context, stop func()) {
		before := settledWatchers()
		var cancels []context.CancelFunc
		var stops []func() bool
		for range n {
			c, cancel := context.WithCancel(parent)
			children = append(children, c)
			cancels = append(cancels, cancel)
			stops = append(stops, context.AfterFunc(parent, func() {}))
		}
		return contextWatchers() - before, children, func() {
			for i := range cancels {
				cancels[i]()
				stops[i]()
			}
		}
	}
	watchers, children, stop := derive(got)
	defer stop()
	seen, _, stopSeen := derive(hidden{Context: context.Background(), dl: dlCtx})
	stopSeen()
	if seen < 2*n {
		t.Fatalf("%d goroutines for %d contexts derived from a context hiding the key, want %d: contextWatchers no longer sees package context's", seen, 2*n, 2*n)
	}
	if watchers > 0 {
		t.Errorf("%d goroutines for %d contexts derived from a request's, want 0: package context no longer finds the deadline's cancel context through bounded.Value (handlers/middleware.go)", watchers, 2*n)
	}
	select {
	case <-got.Done():
	case <-time.After(time.Until(dl) + 10*d):
		t.Fatal("the request's context outlives its deadline")
	}
	for i, c := range children {
		select {
		case <-c.Done():
		case <-time.After(time.Second):
			t.Fatalf("context %d derived from a request's did not end with its deadline", i)
		}
		if context.Cause(c) != context.DeadlineExceeded {
			t.Fatalf("context %d derived from a request's ended with cause %v, want the deadline's", i, context.Cause(c))
		}
	}
	if context.Cause(got) != context.DeadlineExceeded {
		t.Errorf("the request's context's cause is %v, want the deadline's", context.Cause(got))
	}
}

package main

import (
	"io"
	"runtime"
	"runtime/debug"
	"testing"

	goerrors "github.com/go-faster/errors"

	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
)

// A serving process collects at its --gc-percent, records no caller frames
// in ogen's errors with the fast path (untraced-errors), and samples no allocations unless --debug-addr serves
// the heap profile.
func TestTuneForServing(t *testing.T) {
	rate := runtime.MemProfileRate
	gc := debug.SetGCPercent(100)
	t.Cleanup(func() {
		runtime.MemProfileRate = rate
		debug.SetGCPercent(gc)
	})

	// The plain path leaves go-faster/errors as it is; checked only while
	// no test of this process has switched it off, which has no way back.
	if goerrors.Trace() {
		tuneForServing(config.Config{GCPercent: 321, FastPath: fastpath.Plain})
		if !goerrors.Trace() {
			t.Error("go-faster/errors stopped recording caller frames on the plain path")
		}
	}
	tuneForServing(config.Config{GCPercent: 321, FastPath: fastpath.All})
	if got := debug.SetGCPercent(100); got != 321 {
		t.Errorf("GC percent %d, want 321", got)
	}
	if runtime.MemProfileRate != 0 {
		t.Errorf("MemProfileRate %d without --debug-addr, want 0", runtime.MemProfileRate)
	}
	if goerrors.Trace() {
		t.Error("go-faster/errors still records caller frames")
	}

	runtime.MemProfileRate = rate
	tuneForServing(config.Config{GCPercent: 321, DebugAddr: "127.0.0.1:0"})
	if runtime.MemProfileRate != rate {
		t.Errorf("MemProfileRate %d with --debug-addr, want %d", runtime.MemProfileRate, rate)
	}
}

// The access log's lines are written by hand (logline) with the fast path's
// batched-log on and a text log; otherwise, and with --fast-path=false, the
// server's slog handler writes them.
func TestFastPathAccessLines(t *testing.T) {
	for _, c := range []struct {
		args []string
		hand bool
	}{
		{[]string{"--fast-path=true", "--log-format=text"}, true},
		{[]string{"--fast-path=false", "--log-format=text"}, false},
		{[]string{"--fast-path=-batched-log", "--log-format=text"}, false},
		{[]string{"--fast-path=true", "--log-format=json"}, false},
	} {
		e := &env{cfg: config.Defaults(), stderr: io.Discard}
		fs, err := e.flags("serve", config.Server)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.parse(fs, c.args); err != nil {
			t.Fatal(err)
		}
		if got := e.accessLines != nil; got != c.hand {
			t.Errorf("%v: access lines by hand %v, want %v", c.args, got, c.hand)
		}
	}
}

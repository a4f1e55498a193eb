package main

import (
	"runtime"
	"runtime/debug"
	"testing"

	goerrors "github.com/go-faster/errors"

	"larder.dev/larder/internal/platform/config"
)

// A serving process collects at its --gc-percent, records no caller frames
// in ogen's errors, and samples no allocations unless --debug-addr serves
// the heap profile.
func TestTuneForServing(t *testing.T) {
	rate := runtime.MemProfileRate
	gc := debug.SetGCPercent(100)
	t.Cleanup(func() {
		runtime.MemProfileRate = rate
		debug.SetGCPercent(gc)
	})

	tuneForServing(config.Config{GCPercent: 321})
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

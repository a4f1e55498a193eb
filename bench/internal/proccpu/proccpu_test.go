package proccpu

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func init() {
	if os.Getenv("PROCCPU_SPIN") == "" {
		return
	}
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
	}
	os.Exit(0)
}

// TestWatchCountsAProcessThatEnded: a process that starts and ends inside
// the window counts what it used when last seen; Take before and after alone
// would miss it.
func TestWatchCountsAProcessThatEnded(t *testing.T) {
	if !Supported() {
		t.Skip("no /proc on this machine")
	}
	// The child is this test binary spinning for 0.3 s (see init), under a
	// name of its own.
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	set := Set{Comms: []string{filepath.Base(exe)[:min(len(filepath.Base(exe)), 15)]}}
	name := set.Comms[0]
	before := set.Take()
	stop := set.Watch(20 * time.Millisecond)
	cmd := exec.Command(exe, "-test.run", "^$")
	cmd.Env = append(os.Environ(), "PROCCPU_SPIN=1")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	after := stop().Since(before)
	// This process belongs to the group too; what it used is subtracted.
	self := time.Duration(0)
	if used, ok := Process(os.Getpid()); ok {
		self = used - before[name][os.Getpid()]
	}
	got := after[name] - self
	if got < 150*time.Millisecond {
		t.Errorf("a process busy for 0.3 s that ended inside the window: %v counted, want most of it", got)
	}
	if end := set.Take().Since(before)[name] - self; end >= got {
		t.Errorf("Take alone counted %v of the ended process, Watch %v: the test proves nothing", end, got)
	}
}

// TestKind names PostgreSQL's processes by their titles.
func TestKind(t *testing.T) {
	for title, want := range map[string]string{
		"postgres: 15/main: walwriter ":                                "walwriter",
		"postgres: 15/main: background writer ":                        "background-writer",
		"postgres: autovacuum worker larder":                           "autovacuum-worker",
		"postgres: 15/main: postgres larder 127.0.0.1(5432) idle":      "backend",
		"postgres: postgres larder 127.0.0.1(5432) SELECT":             "backend",
		"/usr/lib/postgresql/15/bin/postgres\x00-D\x00/var/lib/pg\x00": "postmaster",
	} {
		if got := kindOf(title); got != want {
			t.Errorf("kindOf(%q) = %q, want %q", title, got, want)
		}
	}
}

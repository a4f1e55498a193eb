// Package proccpu reads the CPU time of processes from /proc (Linux), so the
// benchmark tools can say how much CPU the server, PostgreSQL and the load
// generator each spent per request.
package proccpu

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ, 100 on
// every common Linux build).
const clockTick = 10 * time.Millisecond

// Set names the processes to watch: single processes by group name and PID,
// and whole groups by process name (as in /proc/PID/comm, e.g. "postgres").
// A group of PostgreSQL's processes is also reported in parts, one per kind
// of process (see Kind), each named "postgres/kind"; the parts are not counted
// again in Other.
type Set struct {
	PIDs  map[string]int
	Comms []string
}

// Sample is the CPU time used so far, by group name and PID.
type Sample map[string]map[int]time.Duration

// Supported reports whether /proc is there to read.
func Supported() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// Other is the group name under which Take records the machine's busy time,
// and Since reports what the machine spent beyond the watched groups: CPU
// other programs took, which makes a run noisy.
const Other = "other"

// Take reads the CPU time of every process of s, and the machine's.
func (s Set) Take() Sample {
	out := Sample{}
	if t, ok := Machine(); ok {
		out[Other] = map[int]time.Duration{0: t}
	}
	for name, pid := range s.PIDs {
		if t, ok := Process(pid); ok {
			out[name] = map[int]time.Duration{pid: t}
		}
	}
	if len(s.Comms) == 0 {
		return out
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil {
			continue
		}
		comm := strings.TrimSpace(string(b))
		for _, name := range s.Comms {
			if comm != name {
				continue
			}
			t, ok := Process(pid)
			if !ok {
				continue
			}
			out.add(name, pid, t)
			if kind := Kind(pid); kind != "" {
				out.add(name+"/"+kind, pid, t)
			}
		}
	}
	return out
}

func (s Sample) add(name string, pid int, t time.Duration) {
	if s[name] == nil {
		s[name] = map[int]time.Duration{}
	}
	s[name][pid] = t
}

// part reports whether a group name is one of a group's parts ("postgres/walwriter").
func part(name string) bool { return strings.Contains(name, "/") }

// Kind is the kind of a PostgreSQL process from its title (/proc/PID/cmdline,
// "postgres: 15/main: walwriter"): "backend" for a connection's process,
// whatever it is doing, else the background process's name with its spaces
// as dashes ("walwriter", "checkpointer", "background-writer",
// "autovacuum-worker"). It is "" for a process that is not PostgreSQL's
// server or whose title cannot be read.
func Kind(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return ""
	}
	return kindOf(string(b))
}

func kindOf(cmdline string) string {
	title, ok := strings.CutPrefix(strings.TrimRight(cmdline, "\x00 "), "postgres: ")
	if !ok {
		// The postmaster keeps its command line.
		return "postmaster"
	}
	// A cluster's name, when it has one, comes first ("15/main: ").
	if i := strings.Index(title, ": "); i >= 0 {
		title = title[i+2:]
	}
	for _, bg := range []string{"checkpointer", "background writer", "walwriter", "autovacuum launcher",
		"autovacuum worker", "logical replication launcher", "archiver", "stats collector",
		"walsender", "walreceiver", "startup", "logical replication worker", "parallel worker"} {
		if strings.HasPrefix(title, bg) {
			return strings.ReplaceAll(bg, " ", "-")
		}
	}
	return "backend"
}

// Watch samples s every interval until stop is called, and returns what
// stop's own sample adds to them: each process at the last time it was seen,
// so that one which started and ended inside the window (an autovacuum
// worker, a parallel worker) counts what it used by then, which Take alone
// would miss.
func (s Set) Watch(interval time.Duration) (stop func() Sample) {
	done := make(chan struct{})
	seen := make(chan Sample)
	go func() {
		all := Sample{}
		take := func() {
			for name, procs := range s.Take() {
				for pid, t := range procs {
					all.add(name, pid, t)
				}
			}
		}
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			take()
			select {
			case <-done:
				take()
				seen <- all
				return
			case <-tick.C:
			}
		}
	}()
	return func() Sample {
		close(done)
		return <-seen
	}
}

// Since is the CPU time each group used between before and s. Processes that
// appeared in between count from zero; ones that vanished count nothing.
// Other is the machine's busy time less that of every watched group.
func (s Sample) Since(before Sample) map[string]time.Duration {
	out := map[string]time.Duration{}
	var watched time.Duration
	for name, procs := range s {
		var d time.Duration
		for pid, t := range procs {
			d += t - before[name][pid]
		}
		out[name] = d
		if name != Other && !part(name) {
			watched += d
		}
	}
	if d, ok := out[Other]; ok {
		out[Other] = max(d-watched, 0)
	}
	return out
}

// Process is the user plus system CPU time a process has used so far.
func Process(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The name in parentheses may hold spaces; the fields after it are fixed:
	// state is field 3, utime 14 and stime 15.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}

// Machine is the CPU time all processors have spent busy so far (user, nice,
// system, irq, softirq and steal in the first line of /proc/stat).
func Machine() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, false
	}
	var busy int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, false
		}
		busy += n
	}
	return time.Duration(busy) * clockTick, true
}

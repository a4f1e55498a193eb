package main

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

// watchCPU sleeps until from, samples the CPU time of the named processes and
// of every process whose name is in comms, sleeps until until, samples again
// and returns the differences by name. Processes that appear in the window
// count from zero; ones that vanish count nothing. Off Linux it returns nil.
func watchCPU(pids map[string]int, comms []string, from, until time.Time) map[string]time.Duration {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return nil
	}
	time.Sleep(time.Until(from))
	before := sampleCPU(pids, comms)
	time.Sleep(time.Until(until))
	after := sampleCPU(pids, comms)
	out := map[string]time.Duration{}
	for name, procs := range after {
		var d time.Duration
		for pid, t := range procs {
			d += t - before[name][pid]
		}
		out[name] = d
	}
	return out
}

// sampleCPU reads the CPU time of each watched process, by group name and pid.
func sampleCPU(pids map[string]int, comms []string) map[string]map[int]time.Duration {
	out := map[string]map[int]time.Duration{}
	for name, pid := range pids {
		if t, ok := procCPU(pid); ok {
			out[name] = map[int]time.Duration{pid: t}
		}
	}
	if len(comms) == 0 {
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
		for _, name := range comms {
			if comm != name {
				continue
			}
			if t, ok := procCPU(pid); ok {
				if out[name] == nil {
					out[name] = map[int]time.Duration{}
				}
				out[name][pid] = t
			}
		}
	}
	return out
}

// procCPU is the user plus system CPU time a process has used so far.
func procCPU(pid int) (time.Duration, bool) {
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

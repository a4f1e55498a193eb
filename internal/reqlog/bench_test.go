package reqlog_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
)

// BenchmarkWrite is the writer's work per entry: a batch of 1,000 GETs
// answered 200, as a busy server records them (ns/op is per entry, the
// database's time included).
func BenchmarkWrite(b *testing.B) {
	for _, be := range dbtest.Backends(b) {
		b.Run(string(be), func(b *testing.B) {
			st := dbtest.Open(b, be)
			org := dbtest.NewOrg(b, st, "")
			w := reqlog.NewWriter(st, nil, 1<<20)
			now := time.Now()
			// On PostgreSQL the writer has a connection of its own, as a
			// server's has, whose backend's CPU is the database's side of
			// the writes.
			backend := 0
			own, err := st.Dedicated(context.Background(), "reqlog benchmark")
			if err != nil {
				b.Fatal(err)
			}
			if own != nil {
				b.Cleanup(func() { w.Close(); own.Close() })
				w.Dedicate(st, own)
				if err := own.QueryRow("SELECT pg_backend_pid()").Scan(&backend); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			start, pgStart := cpu(), procCPU(backend)
			for i := range b.N {
				// As a server records them: a request id of its own each (random
				// bits that do not compress), a row of 300 and 16 connections.
				at := now.Add(time.Duration(i) * 150 * time.Microsecond)
				w.Record(&reqlog.Entry{At: at, AccountID: org.Live.ID, KeyID: 1, Method: "GET", Operation: "getTag",
					Path: "/v1/tags/" + strconv.Itoa(1+i*7%300), Status: 200, RequestID: ids.NewAt("req_", at),
					RemoteAddr: "127.0.0.1:" + strconv.Itoa(41234+i%16), UserAgent: "Go-http-client/1.1", Duration: time.Duration(150+i%700) * time.Microsecond})
				if i%1000 == 999 {
					w.Flush()
				}
			}
			w.Flush()
			b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
			if backend != 0 {
				b.ReportMetric(float64(procCPU(backend)-pgStart)/float64(b.N), "pg-cpu-ns/op")
			}
		})
	}
}

// BenchmarkRecord is a server's side of the log as requests meet it: 16
// request goroutines each record an entry and pause 2 ms (about 8,000
// requests a second, a busy server's GETs) while the writer runs. off pauses
// the same way and records nothing; cpu-ns/op is this process's CPU per
// request, so on's less off's is the log's share of the server (the
// writer's work, SQLite's writes in the process, and every wake-up the
// recording causes).
func BenchmarkRecord(b *testing.B) {
	for _, be := range dbtest.Backends(b) {
		b.Run(string(be), func(b *testing.B) {
			st := dbtest.Open(b, be)
			org := dbtest.NewOrg(b, st, "")
			for _, on := range []bool{false, true} {
				b.Run(map[bool]string{false: "off", true: "on"}[on], func(b *testing.B) {
					var w *reqlog.Writer
					ctx, cancel := context.WithCancel(context.Background())
					ran := make(chan struct{})
					if on {
						w = reqlog.NewWriter(st, nil, 0)
						go func() { w.Run(ctx); close(ran) }()
					} else {
						close(ran)
					}
					var next atomic.Int64
					var wg sync.WaitGroup
					b.ResetTimer()
					start := cpu()
					for range 16 {
						wg.Go(func() {
							for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
								w.Record(&reqlog.Entry{At: time.Now(), AccountID: org.Live.ID, KeyID: 1, Method: "GET", Operation: "getTag",
									Path: "/v1/tags/" + strconv.FormatInt(i%300, 10), Status: 200, RequestID: "req_01M8GTHE67M52B4NBEY3H3GCS" + strconv.FormatInt(i%10, 10),
									RemoteAddr: "127.0.0.1:41234", UserAgent: "Go-http-client/1.1", Duration: 200 * time.Microsecond})
								time.Sleep(2 * time.Millisecond)
							}
						})
					}
					wg.Wait()
					cancel()
					<-ran
					b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
					if on && w.Written() != int64(b.N) {
						b.Fatalf("written %d of %d (dropped %d)", w.Written(), b.N, w.Dropped())
					}
				})
			}
		})
	}
}

// procCPU is the CPU time process pid has spent, user and system, in ns,
// read from /proc (PostgreSQL on this machine); 0 when it cannot be read.
func procCPU(pid int) int64 {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis: state is the
	// first (field 3), utime and stime fields 14 and 15, in clock ticks.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return (u + s) * int64(time.Second) / clockTicks
}

// clockTicks is the kernel's USER_HZ, which /proc counts CPU time in.
const clockTicks = 100

// cpu is the CPU time this process has spent, user and system, in ns: the
// Go side of a write (and SQLite's, which runs in the process).
func cpu() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

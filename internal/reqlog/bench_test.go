package reqlog_test

import (
	"strconv"
	"syscall"
	"testing"
	"time"

	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
)

// BenchmarkWrite is the writer's work per entry: a batch of 500 GETs
// answered 200, as a busy server records them (ns/op is per entry, the
// database's time included).
func BenchmarkWrite(b *testing.B) {
	for _, be := range dbtest.Backends(b) {
		b.Run(string(be), func(b *testing.B) {
			st := dbtest.Open(b, be)
			org := dbtest.NewOrg(b, st, "")
			w := reqlog.NewWriter(st, nil, 1<<20)
			now := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			start := cpu()
			for i := range b.N {
				w.Record(&reqlog.Entry{At: now, AccountID: org.Live.ID, KeyID: 1, Method: "GET", Operation: "getTag",
					Path: "/v1/tags/" + strconv.Itoa(i), Status: 200, RequestID: "req_01M8GTHE67M52B4NBEY3H3GCS" + strconv.Itoa(i%10),
					RemoteAddr: "127.0.0.1:41234", UserAgent: "Go-http-client/1.1", Duration: 200 * time.Microsecond})
				if i%500 == 499 {
					w.Flush()
				}
			}
			w.Flush()
			b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpu is the CPU time this process has spent, user and system, in ns: the
// Go side of a write (and SQLite's, which runs in the process).
func cpu() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/internal/testkit/dbtest"
)

// --metrics-addr serves /metrics on its own address, with the API's series,
// and not on the API's; on PostgreSQL the rate-limit reservations are there.
func TestMetricsAddr(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			cli(t, db, "migrate") // before serve, whose start the test times
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			defer wg.Wait()
			defer cancel()
			maddr := freeAddr(t)
			base := serveUntil(t, ctx, &wg, db, "--metrics-addr", maddr)
			get := func(url string) (int, string) {
				t.Helper()
				var res *http.Response
				var err error
				for range 50 { // the metrics listener may start just after the API's
					if res, err = http.Get(url); err == nil {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				body, _ := io.ReadAll(res.Body)
				return res.StatusCode, string(body)
			}
			if status, _ := get(base + "/metrics"); status != 404 {
				t.Errorf("/metrics on the API's address: %d", status)
			}
			wants := []string{
				`larder_http_requests_total{method="GET",operation="getOpenAPI",status="200"} 1`,
				`larder_http_requests_total{method="GET",operation="metrics",status="404"} 1`,
				`go_sql_open_connections{db_name="larder"}`,
				`larder_outbox_events_pending`,
			}
			// A request is counted once its answer is written: the client
			// may read the answer a moment before.
			var body string
			for range 50 {
				var status int
				status, body = get("http://" + maddr + "/metrics")
				if status != 200 {
					t.Fatalf("/metrics on --metrics-addr: %d", status)
				}
				if strings.Contains(body, wants[0]) && strings.Contains(body, wants[1]) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			for _, want := range wants {
				if !strings.Contains(body, want) {
					t.Errorf("metrics lack %s:\n%s", want, grep(body, "larder_http_requests_total"))
				}
			}
			if has := strings.Contains(body, "larder_ratelimit_reservations_total"); has != (b == dbtest.Postgres) {
				t.Errorf("reservations shown %v on %s", has, b)
			}
		})
	}
}

// grep keeps the lines of s that hold sub.
func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

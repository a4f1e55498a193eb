package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/testkit/dbtest"
)

// docs/operators.md, "Console": a console request has its line in the access
// log, as an API request does, on the API's address and on --console-addr.
func TestServeLogsConsoleRequests(t *testing.T) {
	t.Parallel()
	for _, own := range []bool{false, true} {
		name := "on the API's address"
		if own {
			name = "on --console-addr"
		}
		t.Run(name, func(t *testing.T) {
			db := dbtest.URL(t, dbtest.SQLite)
			addr, consoleAddr := freeAddr(t), freeAddr(t)
			args := []string{"serve", "--database", db, "--addr", addr, "--webhooks=false", "--metrics-addr", "off"}
			base := "http://" + addr
			if own {
				args = append(args, "--console-addr", consoleAddr)
				base = "http://" + consoleAddr
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out, errb bytes.Buffer
			done := make(chan error, 1)
			go func() { done <- run(ctx, args, &out, &errb) }()
			var rid string
			for range 600 {
				if res, err := http.Get(base + "/console/sign-in"); err == nil {
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						t.Fatalf("GET /console/sign-in: %d", res.StatusCode)
					}
					rid = res.Header.Get("X-Request-Id")
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if rid == "" {
				t.Fatal("serve did not answer on " + base)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(errb.String(), "request_id="+rid+" method=GET path=/console/sign-in status=200 ") {
				t.Errorf("no access log line for GET /console/sign-in (request id %q):\n%s", rid, errb.String())
			}
		})
	}
}

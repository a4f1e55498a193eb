package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"larder.dev/larder/dbtest"
)

// The console is served under /console/ on the API's address; with
// --console-addr it is served there instead, and the API's address answers
// its paths as any unknown path (404 problem).
func TestServeConsoleWhereConfigured(t *testing.T) {
	db := dbtest.URL(t, dbtest.SQLite)
	get := func(t *testing.T, url string) (int, string, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(b)
	}
	t.Run("on the API's address", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		base := serveUntil(t, ctx, &wg, db)
		status, ctype, body := get(t, base+"/console/sign-in")
		if status != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, `name="password"`) {
			t.Errorf("sign-in page: %d %s", status, ctype)
		}
		if status, _, _ := get(t, base+"/v1/openapi.json"); status != 200 {
			t.Errorf("the API beside the console: %d", status)
		}
	})
	t.Run("on its own address", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		addr := freeAddr(t)
		base := serveUntil(t, ctx, &wg, db, "--console-addr", addr)
		status, ctype, _ := get(t, base+"/console/sign-in")
		if status != 404 || !strings.HasPrefix(ctype, "application/problem+json") {
			t.Errorf("the console on the API's address: %d %s, want a 404 problem", status, ctype)
		}
		status, ctype, body := get(t, "http://"+addr+"/console/sign-in")
		if status != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, `name="password"`) {
			t.Errorf("the console on its address: %d %s", status, ctype)
		}
	})
}

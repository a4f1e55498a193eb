package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"larder.dev/larder/internal/testkit/dbtest"
)

// The console is served under /console/ on the API's address; with
// --console-addr it is served there instead, and the API's address answers
// its paths as any unknown path (404 problem).
func TestServeConsoleWhereConfigured(t *testing.T) {
	db := dbtest.MigratedURL(t, dbtest.SQLite)
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

// Sessions live in the database: signed in through one `larder serve`, a
// person's cookie opens the console of another on the same PostgreSQL
// database, and signing out on the second ends the session on the first.
func TestTwoServersShareConsoleSessions(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			if b != dbtest.Postgres {
				t.Skip("SKIPPED: two servers share one database on PostgreSQL only")
			}
			db := dbtest.MigratedURL(t, b)
			org := cli(t, db, "org", "create", "--name", t.Name())
			id := strconv.Itoa(int(org["id"].(float64)))
			inv := cli(t, db, "user", "invite", "--org", id, "--email", "two.servers@example.com", "--role", "viewer")
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			t.Cleanup(func() { cancel(); wg.Wait() })
			a := serveUntil(t, ctx, &wg, db)
			s2 := serveUntil(t, ctx, &wg, db)
			link, err := url.Parse(inv["link"].(string))
			if err != nil {
				t.Fatal(err)
			}
			noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			form := url.Values{"password": {"a long enough password"}, "confirm": {"a long enough password"}}
			req, _ := http.NewRequest("POST", a+link.Path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", a)
			res, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			var session *http.Cookie
			for _, c := range res.Cookies() {
				if c.Name == "larder-session" {
					session = c
				}
			}
			if res.StatusCode != http.StatusSeeOther || session == nil {
				t.Fatalf("set the password on the first server: %d, cookie %v", res.StatusCode, session)
			}
			page := func(base string) int {
				req, _ := http.NewRequest("GET", base+"/console/account", nil)
				req.AddCookie(session)
				res, err := noFollow.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				return res.StatusCode
			}
			if got := page(s2); got != http.StatusOK {
				t.Fatalf("the second server with the first's cookie: %d", got)
			}
			req, _ = http.NewRequest("POST", s2+"/console/sign-out", nil)
			req.Header.Set("Origin", s2)
			req.AddCookie(session)
			if res, err := noFollow.Do(req); err != nil || res.StatusCode != http.StatusSeeOther {
				t.Fatalf("sign out on the second server: %v %v", res, err)
			}
			if got := page(a); got != http.StatusSeeOther {
				t.Errorf("the first server after signing out on the second: %d, want 303", got)
			}
		})
	}
}

// With a mail server, serve e-mails console links, so it needs the address
// browsers reach the console at: without --console-url it refuses to start,
// saying which setting is missing, rather than build links from whatever
// host a request names.
func TestServeWithMailNeedsConsoleURL(t *testing.T) {
	db := dbtest.URL(t, dbtest.SQLite)
	fails(t, db, "--smtp-url is set but --console-url (LARDER_CONSOLE_URL) is not", "serve", "--addr", freeAddr(t), "--metrics-addr", "off",
		"--smtp-url", "smtp://mail.example.com:25/?from=larder@example.com")
}

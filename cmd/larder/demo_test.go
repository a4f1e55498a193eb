package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/testkit/dbtest"
)

// docs/operators.md, "Commands": `serve --demo` takes its port before it opens
// the database, so a taken port is named with the flag that changes it, leaves
// no database (a SQLite file) or the empty one empty, and the next start still
// makes the demo and shows its key, which works.
func TestServeDemoAfterTakenPort(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.URL(t, b) // a SQLite file not made yet
			if b == dbtest.Postgres {
				db = dbtest.Scratch(t, "demo")
			}
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			var out, errb bytes.Buffer
			err = run(context.Background(), []string{"serve", "--demo", "--database", db, "--addr", taken.Addr().String(), "--webhooks=false"}, &out, &errb)
			if err == nil || !strings.Contains(err.Error(), "address already in use") ||
				!strings.Contains(err.Error(), "--addr") || !strings.Contains(err.Error(), "LARDER_ADDR") {
				t.Fatalf("serve on a taken port: %v, want the cause and --addr and LARDER_ADDR named", err)
			}
			if path, ok := strings.CutPrefix(db, "sqlite://"); ok {
				if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("serve on a taken port made the database %s: %v", path, err)
				}
			}
			if strings.Contains(out.String(), "key_test_") {
				t.Fatalf("a demo key was shown though serve failed:\n%s", out.String())
			}
			addr := freeAddr(t)
			// Served on the wildcard address of addr's port: the links name
			// localhost, which a browser can open.
			_, port, _ := net.SplitHostPort(addr)
			wildcard := "0.0.0.0:" + port
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			defer wg.Wait()
			defer cancel()
			var stdout syncBuffer
			wg.Add(1)
			go func() {
				defer wg.Done()
				var errb bytes.Buffer
				if err := run(ctx, []string{"serve", "--demo", "--database", db, "--addr", wildcard, "--webhooks=false"}, &stdout, &errb); err != nil {
					t.Errorf("serve: %v\n%s", err, errb.String())
				}
			}()
			key := regexp.MustCompile(`key_test_[A-Za-z0-9_]+`)
			deadline := time.Now().Add(30 * time.Second)
			for key.FindString(stdout.String()) == "" {
				if time.Now().After(deadline) {
					t.Fatalf("no demo key after a free port:\n%s", stdout.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			req, _ := http.NewRequest("GET", "http://"+addr+"/v1/organization", nil)
			req.Header.Set("Authorization", "Bearer "+key.FindString(stdout.String()))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("GET /v1/organization with the demo key: %d", res.StatusCode)
			}
			// Beside the key, the demo admin's one-time console link.
			link := regexp.MustCompile(`Console sign-in \(one-time link, 24 h\): http://localhost:` + port + `/console/welcome/([A-Za-z0-9_-]{43})\n`)
			m := link.FindStringSubmatch(stdout.String())
			if m == nil {
				t.Fatalf("no console link:\n%s", stdout.String())
			}
			l, err := people.New(dbtest.OpenURL(t, db).Client, people.Options{}).OpenLink(context.Background(), m[1])
			if err != nil || l.Person.Email != "admin@demo.larder.dev" || l.Person.Role != people.Admin || l.Purpose != "invitation" {
				t.Fatalf("demo link %+v %v", l, err)
			}
		})
	}
}

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"larder.dev/larder/dbtest"
)

// syncBuffer is an output written by one goroutine and read by another.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// DECISIONS "Admin CLI": the webhook commands, their --json shapes and refusals.
func TestWebhookCommands(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.URL(t, b)
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
			defer srv.Close()
			org := cli(t, db, "org", "create", "--name", "Hooks")
			id := fmt.Sprint(int(org["id"].(float64)))
			fails(t, db, "private, loopback", "webhook", "create", "--org", id, "--env", "live", "--url", "https://127.0.0.1/x")
			fails(t, db, "must use https", "webhook", "create", "--org", id, "--env", "live", "--url", srv.URL)
			fails(t, db, "--env must be live or test", "webhook", "create", "--org", id, "--env", "prod", "--url", srv.URL)
			fails(t, db, "needs --org", "webhook", "create", "--url", srv.URL)
			fails(t, db, "webhook-retry-interval must be positive", "webhook", "list", "--org", id, "--webhook-retry-interval", "0s")
			fails(t, db, "smtp-url", "webhook", "list", "--org", id, "--smtp-url", "smtp://mail.example.com")

			created := cli(t, db, "webhook", "create", "--org", id, "--env", "live", "--url", srv.URL, "--email", "ops@example.com", "--webhook-allow-private")
			if s, _ := created["secret"].(string); !strings.HasPrefix(s, "whsec_") || created["url"] != srv.URL {
				t.Fatalf("create: %v", created)
			}
			ep := fmt.Sprint(int(created["id"].(float64)))
			list := cli(t, db, "webhook", "list", "--org", id)
			eps := list["endpoints"].([]any)
			if len(eps) != 1 || eps[0].(map[string]any)["secret"] != nil || eps[0].(map[string]any)["env"] != "live" {
				t.Fatalf("list: %v", list)
			}

			var out syncBuffer
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() {
				done <- run(ctx, []string{"webhook", "listen", "--endpoint", ep, "--database", db, "--webhook-poll-interval", "20ms", "--webhook-allow-private"}, &out, &out)
			}()
			for !strings.Contains(out.String(), "listening") {
				time.Sleep(10 * time.Millisecond)
			}
			ping := cli(t, db, "webhook", "ping", "--endpoint", ep, "--webhook-allow-private")
			evt, _ := ping["event_id"].(string)
			if !strings.HasPrefix(evt, "evt_") || ping["success"] != true || hits.Load() != 1 {
				t.Fatalf("ping: %v", ping)
			}
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(out.String(), evt) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			if err := <-done; err != nil || !strings.Contains(out.String(), evt) {
				t.Fatalf("listen printed %q (%v)", out.String(), err)
			}
			log := cli(t, db, "webhook", "deliveries", "--endpoint", ep, "--event", evt)
			ds := log["deliveries"].([]any)
			if len(ds) != 1 {
				t.Fatalf("deliveries: %v", log)
			}
			did := fmt.Sprint(int(ds[0].(map[string]any)["id"].(float64)))
			if re := cli(t, db, "webhook", "resend", "--delivery", did, "--webhook-allow-private"); re["success"] != true || hits.Load() != 2 {
				t.Fatalf("resend: %v", re)
			}
			if d := cli(t, db, "webhook", "disable", "--endpoint", ep); d["enabled"] != false || d["disabled_reason"] != "manual" {
				t.Fatalf("disable: %v", d)
			}
			if d := cli(t, db, "webhook", "enable", "--endpoint", ep); d["enabled"] != true {
				t.Fatalf("enable: %v", d)
			}
			if d := cli(t, db, "webhook", "update", "--endpoint", ep, "--description", "ERP"); d["description"] != "ERP" {
				t.Fatalf("update: %v", d)
			}
			rot := cli(t, db, "webhook", "rotate-secret", "--endpoint", ep, "--grace", "1h")
			if rot["secret"] == created["secret"] || rot["previous_secret_expires_at"] == nil {
				t.Fatalf("rotate: %v", rot)
			}
			cli(t, db, "webhook", "delete", "--endpoint", ep)
			fails(t, db, "does not exist", "webhook", "ping", "--endpoint", ep)
		})
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
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

// docs/operators.md, "Commands": the webhook commands, their --json shapes and refusals.
func TestWebhookCommands(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			if b == dbtest.Postgres {
				// Its own database: a dispatcher delivers what is due on the
				// whole database, and the package's other tests run some.
				db = dbtest.Scratch(t, "webhooks")
			}
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
			stopWorker := worker(t, db)
			ping := cli(t, db, "webhook", "ping", "--endpoint", ep)
			stopWorker()
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

// worker runs `larder webhook worker` on db, in development mode and looking
// every 20 ms, until the returned function stops it.
func worker(t *testing.T, db string) (stop func()) {
	t.Helper()
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"webhook", "worker", "--database", db, "--webhook-poll-interval", "20ms", "--webhook-allow-private"}, &out, &out)
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v\n%s", err, out.String())
		}
	}
	t.Cleanup(stop)
	return stop
}

// ping runs `larder webhook ping` with args, returning its JSON and error.
func ping(t *testing.T, db string, args ...string) (map[string]any, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"webhook", "ping", "--database", db, "--json"}, args...), &out, &errb)
	var m map[string]any
	if out.Len() == 0 && err != nil { // refused before anything was queued
		return nil, err
	}
	if jerr := json.Unmarshal(out.Bytes(), &m); jerr != nil {
		t.Fatalf("webhook ping %v printed no single JSON object (%v): %q", args, jerr, out.String())
	}
	return m, err
}

// The ping is sent by the server's dispatcher, with the server's settings:
// here the worker allows the loopback receiver and the CLI is not told to,
// so a ping sent by the CLI itself would be refused. A ping the endpoint
// answers with a non-2xx, one that cannot connect, and one no dispatcher
// sends within --wait all exit non-zero.
func TestWebhookPingThroughDispatcher(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			if b == dbtest.Postgres {
				// Its own database: a dispatcher delivers what is due on the
				// whole database, and the package's other tests run some.
				db = dbtest.Scratch(t, "webhooks")
			}
			var mu sync.Mutex
			got := map[string][]string{} // receiver → webhook-id of each request
			receiver := func(name string, status int) string {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					got[name] = append(got[name], r.Header.Get("webhook-id"))
					mu.Unlock()
					w.WriteHeader(status)
				}))
				t.Cleanup(srv.Close)
				return srv.URL
			}
			received := func(name string) []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got[name]...) }
			org := cli(t, db, "org", "create", "--name", "Pings")
			id := fmt.Sprint(int(org["id"].(float64)))
			endpoint := func(url string) string {
				ep := cli(t, db, "webhook", "create", "--org", id, "--env", "live", "--url", url, "--webhook-allow-private")
				return fmt.Sprint(int(ep["id"].(float64)))
			}
			ok, failing := endpoint(receiver("ok", 204)), endpoint(receiver("failing", 500))
			closed := httptest.NewServer(http.NotFoundHandler())
			closed.Close()
			unreachable := endpoint(closed.URL)
			stop := worker(t, db)

			res, err := ping(t, db, "--endpoint", ok)
			evt, _ := res["event_id"].(string)
			if err != nil || res["success"] != true || res["status"] != "succeeded" || res["response_status"] != float64(204) ||
				!strings.HasPrefix(evt, "evt_") {
				t.Fatalf("ping of a 2xx endpoint: %v, %v", err, res)
			}
			if r := received("ok"); len(r) != 1 || r[0] != evt {
				t.Fatalf("the receiver got %v, want the one ping %s", r, evt)
			}

			res, err = ping(t, db, "--endpoint", failing)
			if err == nil || !strings.Contains(err.Error(), "HTTP 500") || res["success"] != false || res["status"] != "failed" ||
				res["response_status"] != float64(500) {
				t.Fatalf("ping of a failing endpoint: %v, %v", err, res)
			}
			log := cli(t, db, "webhook", "deliveries", "--endpoint", failing)
			if ds := log["deliveries"].([]any); len(ds) != 1 || ds[0].(map[string]any)["status"] != "abandoned" {
				t.Fatalf("a failed ping is not retried: %v", log)
			}

			if res, err = ping(t, db, "--endpoint", unreachable); err == nil || res["success"] != false {
				t.Fatalf("ping of an unreachable endpoint: %v, %v", err, res)
			}

			cli(t, db, "webhook", "disable", "--endpoint", ok)
			if _, err := ping(t, db, "--endpoint", ok); err == nil || !strings.Contains(err.Error(), "disabled") {
				t.Fatalf("ping of a disabled endpoint: %v", err)
			}
			cli(t, db, "webhook", "enable", "--endpoint", ok)

			stop()
			res, err = ping(t, db, "--endpoint", ok, "--wait", "300ms")
			if err == nil || !strings.Contains(err.Error(), "no webhook dispatcher") || res["status"] != "not_sent" {
				t.Fatalf("ping with no dispatcher: %v, %v", err, res)
			}
			log = cli(t, db, "webhook", "deliveries", "--endpoint", ok, "--event", res["event_id"].(string))
			if ds := log["deliveries"].([]any); len(ds) != 0 {
				t.Fatalf("a ping nobody sent is withdrawn: %v", log)
			}
			if r := received("ok"); len(r) != 1 {
				t.Fatalf("the receiver got %d pings, want still 1", len(r))
			}
		})
	}
}

// --events chooses the event types an endpoint receives on create and update
// (all for every type again); create, update and list print them as
// event_types, empty for every type; unknown types and ping are refused.
func TestWebhookEventsFlag(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			org := cli(t, db, "org", "create", "--name", "Events")
			id := fmt.Sprint(int(org["id"].(float64)))
			url := "http://127.0.0.1:1/hook"
			fails(t, db, `unknown event type "order.teleported"`, "webhook", "create", "--org", id, "--env", "live", "--url", url,
				"--webhook-allow-private", "--events", "supplier.created,order.teleported")
			fails(t, db, `"ping"`, "webhook", "create", "--org", id, "--env", "live", "--url", url, "--webhook-allow-private", "--events", "ping")
			types := func(m map[string]any) string {
				t.Helper()
				v, ok := m["event_types"].([]any)
				if !ok {
					t.Fatalf("event_types is not an array: %v", m)
				}
				return fmt.Sprint(v)
			}
			created := cli(t, db, "webhook", "create", "--org", id, "--env", "live", "--url", url, "--webhook-allow-private",
				"--events", "supplier.created, purchase_order.created,supplier.created")
			if got := types(created); got != "[purchase_order.created supplier.created]" {
				t.Fatalf("create: event_types %s", got)
			}
			ep := fmt.Sprint(int(created["id"].(float64)))
			every := cli(t, db, "webhook", "create", "--org", id, "--env", "live", "--url", url, "--webhook-allow-private")
			if got := types(every); got != "[]" {
				t.Fatalf("create without --events: event_types %s", got)
			}
			listed := func() []string {
				t.Helper()
				var out []string
				for _, e := range cli(t, db, "webhook", "list", "--org", id)["endpoints"].([]any) {
					out = append(out, types(e.(map[string]any)))
				}
				return out
			}
			if got := fmt.Sprint(listed()); got != "[[purchase_order.created supplier.created] []]" {
				t.Fatalf("list: %s", got)
			}
			fails(t, db, `unknown event type "bill.eaten"`, "webhook", "update", "--endpoint", ep, "--events", "bill.eaten")
			if got := types(cli(t, db, "webhook", "update", "--endpoint", ep, "--events", "bill.created")); got != "[bill.created]" {
				t.Fatalf("update: event_types %s", got)
			}
			if got := types(cli(t, db, "webhook", "update", "--endpoint", ep, "--description", "ERP")); got != "[bill.created]" {
				t.Fatalf("update without --events: event_types %s", got)
			}
			if got := types(cli(t, db, "webhook", "update", "--endpoint", ep, "--events", "all")); got != "[]" {
				t.Fatalf("update --events all: event_types %s", got)
			}
			if got := fmt.Sprint(listed()); got != "[[] []]" {
				t.Fatalf("list after --events all: %s", got)
			}
		})
	}
}

// The webhook desk's commands: the delivery log narrowed by outcome and
// type, the event list with each event's receivers, and the resend of every
// failed delivery since a time, queued for the dispatcher and audited with
// the --actor.
func TestWebhookDeskCommands(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			if b == dbtest.Postgres {
				// Its own database: a dispatcher delivers what is due on the
				// whole database, and the package's other tests run some.
				db = dbtest.Scratch(t, "webhooks")
			}
			orgID := int(cli(t, db, "org", "create", "--name", "Desk")["id"].(float64))
			id := fmt.Sprint(orgID)
			st := dbtest.OpenURL(t, db)
			acct, err := tenancy.Account(context.Background(), st.Client, orgID, policy.Live)
			if err != nil {
				t.Fatal(err)
			}
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.WriteHeader(500)
			}))
			defer srv.Close()
			created := cli(t, db, "webhook", "create", "--org", id, "--env", "live", "--url", srv.URL, "--webhook-allow-private", "--actor", "ops@example.com")
			ep := fmt.Sprint(int(created["id"].(float64)))
			ctx := policy.App(context.Background(), acct.ID, policy.Live)
			var first *ent.Tag
			err = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) (err error) {
				if first, err = tx.Tag.Create().SetName("one").SetRefType(tag.RefTypePRODUCT).Save(ctx); err != nil {
					return err
				}
				if _, err = tx.Tag.Create().SetName("two").SetRefType(tag.RefTypePRODUCT).Save(ctx); err != nil {
					return err
				}
				return tx.Tag.UpdateOneID(first.ID).SetName("one b").Exec(ctx)
			})
			if err != nil {
				t.Fatal(err)
			}
			d := webhooks.New(st, webhooks.Options{AllowPrivate: true})
			if _, err := d.FanOut(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n, err := d.DeliverDue(context.Background()); err != nil || n != 3 || hits.Load() != 3 {
				t.Fatalf("delivered %d (%v), %d requests; want 3", n, err, hits.Load())
			}

			listed := cli(t, db, "webhook", "list", "--org", id)["endpoints"].([]any)[0].(map[string]any)
			if h := listed["health"].(map[string]any); h["state"] != "failing" || h["last_success_at"] != nil || listed["failing_since"] == nil {
				t.Fatalf("endpoint failing every delivery listed as %v", listed)
			}
			log := cli(t, db, "webhook", "deliveries", "--endpoint", ep, "--outcome", "failed", "--type", "tag.updated")
			ds := log["deliveries"].([]any)
			if len(ds) != 1 {
				t.Fatalf("failed tag.updated deliveries: %v", log)
			}
			del := ds[0].(map[string]any)
			att := del["attempts"].([]any)[0].(map[string]any)
			if del["outcome"] != "failed" || del["type"] != "tag.updated" || att["response_status"] != float64(500) ||
				att["request_body"] == "" || att["request_headers"].(map[string]any)["webhook-signature"] == nil {
				t.Fatalf("delivery %v", del)
			}
			if n := len(cli(t, db, "webhook", "deliveries", "--endpoint", ep, "--outcome", "failed")["deliveries"].([]any)); n != 3 {
				t.Fatalf("%d failed deliveries, want 3", n)
			}
			if n := len(cli(t, db, "webhook", "deliveries", "--endpoint", ep, "--outcome", "succeeded")["deliveries"].([]any)); n != 0 {
				t.Fatalf("%d succeeded deliveries, want 0", n)
			}
			fails(t, db, "unknown delivery outcome", "webhook", "deliveries", "--endpoint", ep, "--outcome", "lost")

			evs := cli(t, db, "event", "list", "--org", id, "--env", "live", "--resource", fmt.Sprintf("tag:%d", first.ID))["events"].([]any)
			if len(evs) != 2 {
				t.Fatalf("events of tag %d: %v", first.ID, evs)
			}
			newest := evs[0].(map[string]any)
			recv := newest["receivers"].([]any)
			if newest["type"] != "tag.updated" || newest["envelope"].(map[string]any)["id"] != newest["event_id"] ||
				len(recv) != 1 || recv[0].(map[string]any)["outcome"] != "failed" || fmt.Sprint(recv[0].(map[string]any)["endpoint_id"]) != ep {
				t.Fatalf("newest event %v", newest)
			}
			if n := len(cli(t, db, "event", "list", "--org", id, "--env", "live", "--type", "tag.created")["events"].([]any)); n != 2 {
				t.Fatalf("%d tag.created events, want 2", n)
			}
			if n := len(cli(t, db, "event", "list", "--org", id, "--env", "test")["events"].([]any)); n != 0 {
				t.Fatalf("%d test events, want 0", n)
			}
			fails(t, db, "needs --org and --env", "event", "list", "--org", id)
			out, _, err := runOut("event", "list", "--org", id, "--env", "live", "--database", db)
			if err != nil || !strings.Contains(out, "tag.updated") || !strings.Contains(out, ep+":failed") {
				t.Fatalf("event list: %v\n%s", err, out)
			}

			fails(t, db, "RFC 3339", "webhook", "resend", "--endpoint", ep, "--failed-since", "yesterday")
			fails(t, db, "needs --delivery, or --endpoint with --failed-since", "webhook", "resend", "--endpoint", ep)
			fails(t, db, "not both", "webhook", "resend", "--delivery", "1", "--endpoint", ep, "--failed-since", "2026-01-01T00:00:00Z")
			since := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
			re := cli(t, db, "webhook", "resend", "--endpoint", ep, "--failed-since", since, "--actor", "ops@example.com")
			if re["queued"] != float64(3) || hits.Load() != 3 {
				t.Fatalf("resend: %v, %d requests (the CLI must not send)", re, hits.Load())
			}
			hist, err := audit.History(context.Background(), st.Client, orgID)
			if err != nil {
				t.Fatal(err)
			}
			last := hist[len(hist)-1]
			if last.Action != string(audit.DeliveriesResent) || last.Actor != "ops@example.com" || last.Detail["count"] != float64(3) ||
				hist[len(hist)-2].Action != string(audit.EndpointCreated) {
				t.Fatalf("history %+v", hist)
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"larder.dev/larder/ent/idempotencykey"
	"larder.dev/larder/internal/identity/idempotency"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// The processes that dispatch webhooks prune the webhook log and the
// Idempotency-Key records from their start: `larder webhook worker`, and
// serve unless --webhooks=false, which leaves them to a worker elsewhere.
func TestRetentionByProcess(t *testing.T) {
	t.Parallel()
	db := dbtest.MigratedURL(t, dbtest.SQLite)
	st, err := store.Open(context.Background(), db, store.Options{Snapshots: restapi.Snapshots{}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	org := dbtest.NewOrg(t, st, "")
	ctx := org.Ctx(policy.Live)
	keys := func() []string {
		return st.Client.IdempotencyKey.Query().Order(idempotencykey.ByKey()).Select(idempotencykey.FieldKey).StringsX(ctx)
	}
	for _, c := range []struct {
		name   string
		args   []string
		serves bool
		prunes bool
	}{
		{"webhook worker", []string{"webhook", "worker", "--database", db, "--webhook-poll-interval", "20ms"}, false, true},
		{"serve", []string{"serve", "--database", db, "--metrics-addr", "off"}, true, true},
		{"serve --webhooks=false", []string{"serve", "--database", db, "--metrics-addr", "off", "--webhooks=false"}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			now := time.Now()
			if _, err := st.Client.IdempotencyKey.Delete().Exec(ctx); err != nil {
				t.Fatal(err)
			}
			for key, at := range map[string]time.Time{"a-day-old": now.Add(-25 * time.Hour), "an-hour-old": now.Add(-time.Hour)} {
				if _, err := idempotency.Take(ctx, st.Client, key, "createTag", "fp", at); err != nil {
					t.Fatal(err)
				}
			}
			args := c.args
			addr := freeAddr(t)
			if c.serves {
				args = append(slices.Clone(args), "--addr", addr)
			}
			rctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			var out bytes.Buffer
			go func() { done <- run(rctx, args, &out, &out) }()
			if c.serves {
				up := false
				for range 600 {
					if res, err := http.Get("http://" + addr + "/v1/organization"); err == nil {
						res.Body.Close()
						up = true
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				if !up {
					t.Fatal("serve did not answer on " + addr)
				}
			}
			want := []string{"a-day-old", "an-hour-old"}
			if c.prunes {
				want = want[1:]
			}
			// Pruning runs in the background from the start: wait for it, or,
			// where none runs, give it the time it would have taken.
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if c.prunes && slices.Equal(keys(), want) {
					break
				}
				if !c.prunes && time.Since(now) > 2*time.Second {
					break
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if got := keys(); !slices.Equal(got, want) {
				t.Errorf("Idempotency-Keys left %v, want %v", got, want)
			}
		})
	}
}

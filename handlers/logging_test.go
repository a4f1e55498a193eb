package handlers_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/ent/apikey"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// lockedBuffer is a log destination safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Spec Errors 1: a caller's X-Request-Id is logged beside the generated one,
// through the logger and in the server's own lines (AccessLines).
func TestCallerRequestIDIsLogged(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		for _, direct := range []bool{false, true} {
			var logs lockedBuffer
			o := handlers.Options{Config: config.Defaults(), Log: slog.New(slog.NewTextHandler(&logs, nil))}
			if direct {
				o.AccessLines = &logs
			}
			srv, err := handlers.New(st, o)
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv)
			req, _ := http.NewRequest("GET", hs.URL+"/v1/nowhere", nil)
			req.Header.Set("X-Request-Id", "caller-7f3a")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			hs.Close()
			ours := res.Header.Get("X-Request-Id")
			found := false
			for _, line := range strings.Split(logs.String(), "\n") {
				if strings.Contains(line, " msg=request request_id="+ours+" method=GET path=/v1/nowhere status=404 ") && strings.HasSuffix(line, " client_request_id=caller-7f3a") {
					found = true
				}
			}
			if !found {
				t.Errorf("AccessLines %v: no log line with both ids:\n%s", direct, logs.String())
			}
		}
	})
}

// A key's last use is recorded (to the minute, off the request path).
func TestKeyUseIsRecorded(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a.get("/v1/organization").want(200)
		sys := policy.System(context.Background())
		for range 100 {
			k := a.st.Client.APIKey.Query().Where(apikey.SecretHash(hash(a.key))).OnlyX(sys)
			if k.LastUsedAt != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("last_used_at was never set")
	})
}

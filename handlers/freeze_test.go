package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// freezer is a TCP proxy in front of PostgreSQL that can stop forwarding
// without closing anything, as a frozen server process or a network that
// drops packets looks to a client: writes still go into socket buffers,
// answers never come.
type freezer struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	frozen bool
	thaw   chan struct{}
}

func newFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln, target: target, thaw: make(chan struct{})}
	close(f.thaw)
	t.Cleanup(func() { f.setFrozen(false); ln.Close() })
	go f.accept()
	return f
}

func (f *freezer) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			up, err := net.Dial("tcp", f.target)
			if err != nil {
				c.Close()
				return
			}
			go f.pump(c, up)
			f.pump(up, c)
		}()
	}
}

// pump copies src to dst, holding every chunk while frozen.
func (f *freezer) pump(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		f.wait()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (f *freezer) wait() {
	f.mu.Lock()
	ch := f.thaw
	f.mu.Unlock()
	<-ch
}

func (f *freezer) setFrozen(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if on == f.frozen {
		return
	}
	f.frozen = on
	if on {
		f.thaw = make(chan struct{})
	} else {
		close(f.thaw)
	}
}

// docs/api-behaviour.md, "Time limits": a request never outlives the request timeout by
// more than a second, whatever the database does; past it the answer is 500
// (503 with Retry-After while no connection is usable); the server recovers
// by itself when the database answers again; a write answered with an error is
// wholly applied or not at all, and an acknowledged write is never lost.
func TestFrozenDatabase(t *testing.T) {
	t.Parallel()
	if dbtest.AdminURL() == "" {
		t.Skipf("needs PostgreSQL (%s): a frozen server is a network matter", dbtest.EnvPostgres)
	}
	direct := dbtest.Open(t, dbtest.Postgres)
	u, err := url.Parse(dbtest.URL(t, dbtest.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	fz := newFreezer(t, u.Host)
	u.Host = fz.ln.Addr().String()
	st := dbtest.OpenURL(t, u.String())

	const timeout = 2 * time.Second
	cfg := config.Defaults()
	cfg.RequestTimeout = timeout
	cfg.AuthFailLimit = 1 << 20
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	org := dbtest.NewOrg(t, direct, "")
	key := org.Key(t, policy.Live, "all")
	// A server that hangs fails the test instead of holding it.
	client := &http.Client{Timeout: timeout + 3*time.Second}
	call := func(method, path, body string) (int, http.Header, []byte, time.Duration) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, hs.URL+path, rd)
		req.Header.Set("Authorization", "Bearer "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", method, path, err)
			return 0, nil, nil, time.Since(start)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, b, time.Since(start)
	}

	// An acknowledged write before the freeze, and warm connections.
	if status, _, body, _ := call("POST", "/v1/tags", `{"name":"Before","ref_type":"PRODUCT"}`); status != 201 {
		t.Fatalf("create before the freeze: %d %s", status, body)
	}
	for range 3 {
		if status, _, body, _ := call("GET", "/v1/tags?ref_type=PRODUCT", ""); status != 200 {
			t.Fatalf("list before the freeze: %d %s", status, body)
		}
	}

	fz.setFrozen(true)
	requests := []struct{ method, path, body string }{
		{"GET", "/v1/tags?ref_type=PRODUCT", ""},
		{"GET", "/v1/organization", ""},
		{"POST", "/v1/tags", `{"name":"During","ref_type":"PRODUCT"}`},
	}
	// Two waves: the first meets the pooled connections, the second new ones.
	for wave := range 2 {
		var wg sync.WaitGroup
		for i := range 8 {
			r := requests[i%len(requests)]
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, hdr, body, took := call(r.method, r.path, r.body)
				if took > timeout+time.Second {
					t.Errorf("wave %d: %s %s answered after %v, past the %v timeout by more than a second", wave, r.method, r.path, took, timeout)
				}
				// Without trusted keys every request reads its key first:
				// that statement unanswered, nothing was done, and the
				// answer is 503.
				if status == 500 && !cfg.FastPath.Has(fastpath.TrustedKeys) {
					t.Errorf("wave %d: %s %s: 500 when its key's lookup went unanswered, want 503", wave, r.method, r.path)
				}
				switch status {
				case 500:
				case 503:
					if hdr.Get("Retry-After") == "" {
						t.Errorf("wave %d: 503 without Retry-After", wave)
					}
				default:
					t.Errorf("wave %d: %s %s: status %d during the freeze, want 500 or 503: %s", wave, r.method, r.path, status, body)
				}
				var p map[string]any
				if json.Unmarshal(body, &p) != nil || (p["code"] != "INTERNAL_ERROR" && p["code"] != "SERVICE_UNAVAILABLE") {
					t.Errorf("wave %d: not a problem document: %s", wave, body)
				}
			}()
		}
		wg.Wait()
	}

	fz.setFrozen(false)
	deadline := time.Now().Add(2 * cfg.RequestTimeout)
	for {
		status, _, body, _ := call("GET", "/v1/tags?ref_type=PRODUCT", "")
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not recover after the database came back: %d %s", status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status, _, body, _ := call("POST", "/v1/tags", `{"name":"After","ref_type":"PRODUCT"}`); status != 201 {
		t.Fatalf("create after the freeze: %d %s", status, body)
	}

	// Nothing partial: each tag written during the freeze has its event, and
	// the acknowledged writes are there.
	ctx := org.Ctx(policy.Live)
	sys := policy.System(context.Background())
	for _, name := range []string{"Before", "After"} {
		if n, err := direct.Client.Tag.Query().Where(tag.Name(name)).Count(ctx); err != nil || n != 1 {
			t.Fatalf("acknowledged tag %q: %d rows, %v", name, n, err)
		}
	}
	during, err := direct.Client.Tag.Query().Where(tag.Name("During")).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(during) > 1 {
		t.Fatalf("the unique name holds %d rows", len(during))
	}
	for _, tg := range during {
		n, err := direct.Client.Event.Query().Where(event.ResourceID(tg.ID), event.ResourceType("tag"), event.Type("tag.created")).Count(sys)
		if err != nil || n != 1 {
			t.Fatalf("tag %d written during the freeze has %d created events (%v): a write applied in part", tg.ID, n, err)
		}
	}
}

package e2e_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
)

// post is a request a receiver got.
type post struct {
	header http.Header
	body   []byte
}

// receiver is a webhook endpoint on the loopback that records every post
// and answers 200.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	posts []post
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.posts = append(rc.posts, post{header: r.Header.Clone(), body: b})
		rc.mu.Unlock()
		io.WriteString(w, "received")
	}))
	t.Cleanup(rc.Close)
	return rc
}

// received is what the receiver got so far.
func (rc *receiver) received() []post {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]post(nil), rc.posts...)
}

// verify checks a post's Standard Webhooks signature with the secret, as a
// receiver would: an HMAC-SHA256 of "id.timestamp.body" under the secret's
// key, among the signatures of the header, with a fresh timestamp.
func verify(t *testing.T, secret string, p post) {
	t.Helper()
	id, ts := p.header.Get("webhook-id"), p.header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		t.Errorf("webhook-timestamp %q is not now", ts)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatalf("the secret %q is not whsec_ and base64: %v", secret, err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(p.body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(p.header.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return
		}
	}
	t.Errorf("no signature of %q verifies with the secret shown", p.header.Get("webhook-signature"))
}

// A developer registers an endpoint on a local receiver in the console, is
// shown its signing secret once, sends it a test event and finds the
// delivery in the endpoint's log, then resends it: the receiver gets the
// same event twice, each post signed with the secret shown.
func TestWebhookEndpoint(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		rc := newReceiver(t)
		org := dbtest.NewOrg(t, st, "")
		dev := s.person(org.Org.ID, people.Developer)
		ctx := tab(t, false)
		s.signIn(t, ctx, dev.Email)

		s.open(t, ctx, "/console/webhooks", http.StatusOK)
		check(t, ctx, "webhooks-empty")
		// Registered in the environment the console shows: test, while
		// the organization has no live key.
		unfold(t, ctx, "Register an endpoint")
		browsertest.Fill(t, ctx, "URL", "ftp://example.com/hooks")
		submit(t, ctx, "Register endpoint", http.StatusBadRequest)
		if got := browsertest.Text(t, ctx, "#e-url"); got == "" {
			t.Error("no error next to the URL")
		}
		check(t, ctx, "webhooks-error")
		browsertest.Fill(t, ctx, "URL", rc.URL+"/larder")
		browsertest.Fill(t, ctx, "Description (optional)", "Order sync")
		submit(t, ctx, "Register endpoint", http.StatusOK)
		check(t, ctx, "webhook-created")
		secret := value(t, ctx, "#secret-whsec")
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("the page shows the secret %q", secret)
		}
		follow(t, ctx, "the endpoint's page", http.StatusOK)
		endpoint := s.path(t, ctx)
		if got := mainText(t, ctx); strings.Contains(got, secret) || !strings.Contains(got, rc.URL+"/larder") {
			t.Errorf("the endpoint's page shows the secret, or not the URL:\n%s", got)
		}
		check(t, ctx, "webhook")

		submit(t, ctx, "Send test event", http.StatusOK)
		if got := s.path(t, ctx); got != endpoint {
			t.Errorf("after the test event the tab shows %s, want %s", got, endpoint)
		}
		if got := browsertest.Text(t, ctx, ".flash"); !strings.HasPrefix(got, "Test event sent") || !strings.Contains(got, "200") {
			t.Errorf("flash %q", got)
		}
		got := rc.received()
		if len(got) != 1 {
			t.Fatalf("the receiver got %d posts after the test event, want 1", len(got))
		}
		verify(t, secret, got[0])
		var ping struct{ Type string }
		if err := json.Unmarshal(got[0].body, &ping); err != nil || ping.Type != "ping" {
			t.Errorf("the test event's body %s: %v", got[0].body, err)
		}
		eventID := got[0].header.Get("webhook-id")
		// The page after the redirect was rendered once the attempt was
		// recorded: the log shows it.
		if got := mainText(t, ctx); !strings.Contains(got, eventID) || !strings.Contains(got, "ping") {
			t.Errorf("the delivery log does not show the ping %s:\n%s", eventID, got)
		}
		check(t, ctx, "webhook-pinged")

		resend := browsertest.Text(t, ctx, `form[action$="/resend"] button`)
		submit(t, ctx, resend, http.StatusOK)
		if got := browsertest.Text(t, ctx, ".flash"); !strings.Contains(got, "resent") {
			t.Errorf("flash %q", got)
		}
		got = rc.received()
		if len(got) != 2 {
			t.Fatalf("the receiver got %d posts after the resend, want 2", len(got))
		}
		if id := got[1].header.Get("webhook-id"); id != eventID || !bytes.Equal(got[1].body, got[0].body) {
			t.Errorf("the resend is event %s with body %s, want %s with the same body", id, got[1].body, eventID)
		}
		verify(t, secret, got[1])
		attempts, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("td details summary"), chromedp.AtLeast(0)))
		if err != nil || len(attempts) != 2 {
			t.Fatalf("the log shows %d attempts, want 2 (%v)\n%s", len(attempts), err, mainText(t, ctx))
		}
		// Open the first attempt: the signed request sent, without script.
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.NodeIDs{attempts[0].NodeID})); err != nil {
			t.Fatal(err)
		}
		if got := browsertest.Text(t, ctx, "td details[open] pre:last-of-type"); !strings.Contains(got, "webhook-signature") || !strings.Contains(got, eventID) {
			t.Errorf("the open attempt shows %q, want the signed request", got)
		}
		check(t, ctx, "webhook-log")

		s.open(t, ctx, "/console/webhooks", http.StatusOK)
		if got := mainText(t, ctx); strings.Contains(got, secret) || !strings.Contains(got, "Order sync") {
			t.Errorf("the endpoints page shows the secret again, or not the endpoint:\n%s", got)
		}
		check(t, ctx, "webhooks")
	})
}

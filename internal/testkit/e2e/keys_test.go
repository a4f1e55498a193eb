package e2e_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
)

// display is how the console names a key: its prefix (key_live_ or
// key_test_, as long), an ellipsis and its last four characters.
func display(key string) string {
	return key[:len("key_live_")] + "…" + key[len(key)-4:]
}

// testForm is the XPath of the keys page's form for test keys.
const testForm = `//form[.//input[@name='env' and @value='test']]`

// An admin (only an admin makes a key that reads costs) creates a test key
// with every scope in the console and the API answers it; rotating it with an hour's grace leaves the old key
// working, announcing its end in a Sunset header an hour away; revoking the
// new key makes the API refuse it at once.
func TestKeyLifecycle(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		dev := s.person(org.Org.ID, people.Admin)
		ctx := tab(t, false)
		asked := confirmations(t, ctx)
		s.signIn(t, ctx, dev.Email)

		s.open(t, ctx, "/console/keys", http.StatusOK)
		check(t, ctx, "keys-empty")
		unfold(t, ctx, "Create a test key")
		typeInto(t, ctx, "#test-name", "Nightly sync")
		choose(t, ctx, testForm, "Everything (costs included)")
		submit(t, ctx, "Create test key", http.StatusOK)
		check(t, ctx, "key-created")
		key := value(t, ctx, "#secret-key")
		if !strings.HasPrefix(key, "key_test_") {
			t.Fatalf("the page shows the key %q", key)
		}
		if got := browsertest.Text(t, ctx, "pre"); got != `curl -H "Authorization: Bearer `+key+`" `+s.URL+"/v1/organization" {
			t.Errorf("the example request is %q", got)
		}
		if r := s.call(t, "GET", "/v1/organization", key, nil); r.status != http.StatusOK || r.header.Get("Sunset") != "" {
			t.Fatalf("the new key: %d, Sunset %q %s", r.status, r.header.Get("Sunset"), r.body)
		}
		// Every scope: a write, and costs.
		if r := s.call(t, "POST", "/v1/tags", key, map[string]any{"name": "Made with the new key", "ref_type": "PRODUCT"}); r.status != http.StatusCreated {
			t.Errorf("a write with the key: %d %s", r.status, r.body)
		}

		s.open(t, ctx, "/console/keys", http.StatusOK)
		if got := mainText(t, ctx); !strings.Contains(got, display(key)) || !strings.Contains(got, "Nightly sync") || !strings.Contains(got, dev.Email) {
			t.Errorf("the list does not show the key %s, its name and its maker:\n%s", display(key), got)
		}
		check(t, ctx, "keys")
		follow(t, ctx, "Rotate "+display(key), http.StatusOK)
		check(t, ctx, "key-rotate")
		choose(t, ctx, "", "1 hour")
		rotated := time.Now()
		submit(t, ctx, "Rotate "+display(key), http.StatusOK)
		check(t, ctx, "key-rotated")
		newKey := value(t, ctx, "#secret-key")
		if !strings.HasPrefix(newKey, "key_test_") || newKey == key {
			t.Fatalf("the rotation shows the key %q", newKey)
		}
		if got := mainText(t, ctx); !strings.Contains(got, "Sunset") {
			t.Errorf("the rotation does not say the old key's answers carry a Sunset header:\n%s", got)
		}

		old := s.call(t, "GET", "/v1/organization", key, nil)
		if old.status != http.StatusOK {
			t.Fatalf("the old key in its grace: %d %s", old.status, old.body)
		}
		sunset, err := http.ParseTime(old.header.Get("Sunset"))
		if err != nil {
			t.Fatalf("the old key's Sunset %q: %v", old.header.Get("Sunset"), err)
		}
		if want := rotated.Add(time.Hour); sunset.Before(want.Add(-time.Minute)) || sunset.After(want.Add(time.Minute)) {
			t.Errorf("Sunset %s, want an hour after the rotation, %s", sunset, want)
		}
		if r := s.call(t, "GET", "/v1/organization", newKey, nil); r.status != http.StatusOK || r.header.Get("Sunset") != "" {
			t.Fatalf("the new key: %d, Sunset %q", r.status, r.header.Get("Sunset"))
		}

		s.open(t, ctx, "/console/keys", http.StatusOK)
		if got := mainText(t, ctx); !strings.Contains(got, "works until") {
			t.Errorf("the list does not say until when the old key works:\n%s", got)
		}
		follow(t, ctx, "Revoke "+display(newKey), http.StatusOK)
		check(t, ctx, "key-revoke")
		if r := s.call(t, "GET", "/v1/organization", newKey, nil); r.status != http.StatusOK {
			t.Fatalf("opening the revoke page stopped the key: %d", r.status)
		}
		submit(t, ctx, "Revoke "+display(newKey), http.StatusOK)
		if got := s.path(t, ctx); got != "/console/keys?env=test" {
			t.Errorf("after revoking, the tab shows %s", got)
		}
		if got := browsertest.Text(t, ctx, ".flash"); !strings.Contains(got, display(newKey)) {
			t.Errorf("flash %q", got)
		}
		check(t, ctx, "keys-revoked")
		if r := s.call(t, "GET", "/v1/organization", newKey, nil); r.status != http.StatusUnauthorized {
			t.Errorf("the revoked key: %d, want 401 %s", r.status, r.body)
		}
		// The revoke page is the one confirmation: the browser asks
		// nothing more.
		if got := asked(); len(got) != 0 {
			t.Errorf("the browser asked %q, want no dialog besides the revoke page", got)
		}
	})
}

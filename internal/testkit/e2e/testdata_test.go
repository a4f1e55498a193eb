package e2e_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// total is the pagination total of an API list.
func (s *site) total(t *testing.T, path, key string) int {
	t.Helper()
	r := s.call(t, "GET", path, key, nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	var page struct {
		Pagination struct {
			Total int `json:"total"`
		} `json:"pagination"`
	}
	r.decode(t, &page)
	return page.Pagination.Total
}

// A tag made through the API with a test key is in the test account until a
// developer resets the test data in the console, typing the organization's
// name (a wrong name changes nothing): then the tag is gone, the seeded
// tags and products are back as they were, and the live account keeps
// what it had.
func TestResetTestData(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewSeededOrg(t, st)
		testKey := org.Key(t, policy.Test, "all")
		liveKey := org.Key(t, policy.Live, "all")
		const tags = "/v1/tags?ref_type=PRODUCT&limit=1"
		seededTags, seededProducts := s.total(t, tags, testKey), s.total(t, "/v1/products?limit=1", testKey)
		if seededProducts == 0 {
			t.Fatal("the seeded test account has no products")
		}
		made := s.call(t, "POST", "/v1/tags", testKey, map[string]any{"name": "Made before the reset", "ref_type": "PRODUCT"})
		if made.status != http.StatusCreated {
			t.Fatalf("create a tag: %d %s", made.status, made.body)
		}
		var tag struct{ Data struct{ ID int } }
		made.decode(t, &tag)
		tagPath := fmt.Sprintf("/v1/tags/%d", tag.Data.ID)
		live := s.call(t, "POST", "/v1/tags", liveKey, map[string]any{"name": "Live, kept", "ref_type": "PRODUCT"})
		if live.status != http.StatusCreated {
			t.Fatalf("create a live tag: %d %s", live.status, live.body)
		}
		if got := s.total(t, tags, testKey); got != seededTags+1 {
			t.Fatalf("%d test tags after making one, want %d", got, seededTags+1)
		}

		dev := s.person(org.Org.ID, people.Developer)
		ctx := tab(t, false)
		asked := confirmations(t, ctx)
		s.signIn(t, ctx, dev.Email)
		s.open(t, ctx, "/console/test-data", http.StatusOK)
		check(t, ctx, "test-data")
		browsertest.Fill(t, ctx, "name", "Another organization")
		submit(t, ctx, "Reset the test data", http.StatusBadRequest)
		if got := browsertest.Text(t, ctx, "#e-name"); !strings.Contains(got, org.Org.Name) {
			t.Errorf("error next to the name %q does not say what to type", got)
		}
		check(t, ctx, "test-data-error")
		if r := s.call(t, "GET", tagPath, testKey, nil); r.status != http.StatusOK {
			t.Fatalf("after a reset refused, the tag answers %d %s", r.status, r.body)
		}

		browsertest.Fill(t, ctx, "name", org.Org.Name)
		submit(t, ctx, "Reset the test data", http.StatusOK)
		if got := s.path(t, ctx); got != "/console/test-data" {
			t.Errorf("after the reset the tab shows %s", got)
		}
		if got := browsertest.Text(t, ctx, ".flash"); !strings.Contains(got, "reset") {
			t.Errorf("flash %q", got)
		}
		check(t, ctx, "test-data-done")
		// Typing the organization's name is the one confirmation.
		if got := asked(); len(got) != 0 {
			t.Errorf("the browser asked %q, want no dialog besides the typed name", got)
		}

		if r := s.call(t, "GET", tagPath, testKey, nil); r.status != http.StatusNotFound {
			t.Errorf("after the reset the tag made before answers %d, want 404", r.status)
		}
		if got := s.total(t, tags, testKey); got != seededTags {
			t.Errorf("%d test tags after the reset, want the %d seeded", got, seededTags)
		}
		if got := s.total(t, "/v1/products?limit=1", testKey); got != seededProducts {
			t.Errorf("%d test products after the reset, want the %d seeded", got, seededProducts)
		}
		if got := s.total(t, tags, liveKey); got != 1 {
			t.Errorf("%d live tags after the reset, want the one made", got)
		}
	})
}

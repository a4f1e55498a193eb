package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// shownKey is the key a page shows once, in the secret partial.
var shownKey = regexp.MustCompile(`id="secret-key" type="text" readonly value="(key_(?:live|test)_[0-9A-Za-z]{43})"`)

// keysOf lists org's keys, failing the test on error.
func keysOf(t *testing.T, st *store.Store, orgID int) []auth.Listed {
	t.Helper()
	keys, err := auth.ListKeys(context.Background(), st.Client, orgID)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// lastRecord is the newest record of org's audit history.
func lastRecord(t *testing.T, st *store.Store, orgID int) audit.Listed {
	t.Helper()
	h, err := audit.History(context.Background(), st.Client, orgID)
	if err != nil || len(h) == 0 {
		t.Fatalf("history %v (%v)", h, err)
	}
	return h[len(h)-1]
}

// checkRecord asserts the newest audit record: its action, key, actor (the
// person's address and user id) and the console client's address.
func checkRecord(t *testing.T, st *store.Store, orgID int, action string, keyID int, actor string) {
	t.Helper()
	r := lastRecord(t, st, orgID)
	if r.Action != action || r.KeyID == nil || *r.KeyID != keyID || r.Actor != actor || r.Address != "127.0.0.1" {
		t.Fatalf("last record %+v, want %s of key %d by %s from 127.0.0.1", r, action, keyID, actor)
	}
	p, err := people.New(st.Client, people.Options{}).ByEmail(context.Background(), orgID, actor)
	if err != nil {
		t.Fatal(err)
	}
	if r.UserID == nil || *r.UserID != p.ID {
		t.Fatalf("last record by user %v, want %d (%s)", r.UserID, p.ID, actor)
	}
}

// A developer creates a key with chosen scopes or a preset: the key is shown
// once with a request to try, it is the stored key (its hash) of the chosen
// environment's account with exactly those scopes, and the list and the history name its creator.
func TestKeysCreate(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, person := d.signedIn(org.Org.ID, people.Developer)
		page := b.get("/console/keys?env=live")
		if page.status != http.StatusOK || strings.Count(page.body, "0 of 50 keys") != 1 || !strings.Contains(page.body, "No live key works yet") {
			t.Fatalf("empty page %d: %s", page.status, page.body)
		}
		res := b.post("/console/keys", url.Values{"env": {"live"}, "name": {"ERP sync"}, "preset": {"custom"}, "scope": {"sales:write", "catalog:read"}})
		m := shownKey.FindStringSubmatch(res.body)
		if res.status != http.StatusOK || m == nil {
			t.Fatalf("create %d: %s", res.status, res.body)
		}
		key := m[1]
		if !strings.HasPrefix(key, "key_live_") || !strings.Contains(res.body, `curl -H &#34;Authorization: Bearer `+key+`&#34; `+d.srv.URL+`/v1/organization`) {
			t.Fatalf("no live key with its curl example: %s", res.body)
		}
		keys := keysOf(t, st, org.Org.ID)
		if len(keys) != 1 {
			t.Fatalf("keys %+v", keys)
		}
		k := keys[0]
		if k.Name != "ERP sync" || k.Env != "live" || !slices.Equal(k.Scopes, []string{"catalog:read", "sales:write"}) || k.CreatedBy != person.Email || k.Last4 != key[len(key)-4:] {
			t.Fatalf("listed %+v", k)
		}
		rec, err := st.Client.APIKey.Get(policy.System(context.Background()), k.ID)
		if err != nil || rec.SecretHash != auth.Hash(key) || rec.AccountID != org.Live.ID {
			t.Fatalf("the shown key is not the stored one: %+v (%v)", rec, err)
		}
		checkRecord(t, st, org.Org.ID, "key_created", k.ID, person.Email)

		list := b.get("/console/keys")
		for _, want := range []string{"1 of 50 keys", "key_live_…" + k.Last4, "catalog:read, sales:write", "by " + person.Email, "ERP sync", "never"} {
			if !strings.Contains(list.body, want) {
				t.Errorf("the list lacks %q", want)
			}
		}
		if strings.Contains(list.body, key) {
			t.Fatal("the list shows the key itself")
		}

		// The preset with costs is an admin's (see TestKeysCostsAreAdmins).
		adm, _ := d.signedIn(org.Org.ID, people.Admin)
		for preset, want := range map[string][]policy.Scope{"all": policy.Known(), "read-all": nil} {
			if want == nil {
				for _, m := range policy.Modules {
					want = append(want, policy.Read(m))
				}
			}
			who := b
			if preset == "all" {
				who = adm
			}
			res := who.post("/console/keys", url.Values{"env": {"test"}, "preset": {preset}, "scope": {"cost:read"}})
			if res.status != http.StatusOK || !strings.Contains(res.body, `readonly value="key_test_`) {
				t.Fatalf("create %s: %d %s", preset, res.status, res.body)
			}
			keys := keysOf(t, st, org.Org.ID)
			got := keys[len(keys)-1]
			names := make([]string, len(want))
			for i, s := range want {
				names[i] = string(s)
			}
			slices.Sort(names)
			if got.Env != "test" || !slices.Equal(got.Scopes, names) {
				t.Fatalf("preset %s made %+v, want scopes %v", preset, got, names)
			}
		}
		list = b.get("/console/keys?env=test")
		if !strings.Contains(list.body, "2 of 50 keys") || !strings.Contains(list.body, `title="all">all</td>`) || !strings.Contains(list.body, `title="read-all">read-all</td>`) {
			t.Fatalf("presets not named in the list: %s", list.body)
		}
	})
}

// A create form's errors are shown next to its field with 400, and nothing
// is created.
func TestKeysCreateErrors(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Admin)
		cases := []struct {
			name string
			form url.Values
			id   string
			msg  string
		}{
			{"no scopes", url.Values{"env": {"live"}, "preset": {"custom"}}, `id="live-scope-e"`, "Choose at least one scope"},
			{"no scopes without a preset", url.Values{"env": {"test"}}, `id="test-scope-e"`, "Choose at least one scope"},
			{"unknown scope", url.Values{"env": {"live"}, "preset": {"custom"}, "scope": {"catalog:read", "admin:write"}}, `id="live-scope-e"`, "&#34;admin:write&#34; is not a scope"},
			{"name too long", url.Values{"env": {"test"}, "preset": {"all"}, "name": {strings.Repeat("n", 101)}}, `id="test-name-e"`, "The name has 101 characters; use at most 100."},
			{"unknown preset", url.Values{"env": {"live"}, "preset": {"root"}}, `class="error"`, "Choose what the key may do."},
			{"unknown environment", url.Values{"env": {"staging"}, "preset": {"all"}}, `role="alert"`, "Choose the live or the test environment."},
		}
		for _, tc := range cases {
			res := b.post("/console/keys", tc.form)
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, tc.id+">"+tc.msg) {
				t.Errorf("%s: %d, want 400 with %q beside its field (%s):\n%s", tc.name, res.status, tc.msg, tc.id, res.body)
			}
		}
		// The submitted values stay in the form that failed.
		res := b.post("/console/keys", url.Values{"env": {"live"}, "preset": {"custom"}, "name": {"kept"}, "scope": {"sales:read", "nope"}})
		if !strings.Contains(res.body, `id="live-name" name="name" type="text" value="kept"`) || !strings.Contains(res.body, `value="sales:read" checked`) {
			t.Errorf("the form lost its values: %s", res.body)
		}
		if keys := keysOf(t, st, org.Org.ID); len(keys) != 0 {
			t.Fatalf("a refused form created %+v", keys)
		}
	})
}

// 50 active keys per environment: the page says the limit is reached and
// the server refuses the 51st; the other environment is not affected, and
// revoking one frees its place.
func TestKeysLimit(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Developer)
		var first int
		for i := range 50 {
			k, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Live, policy.Known(), "")
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = k.Record.ID
			}
		}
		page := b.get("/console/keys")
		if !strings.Contains(page.body, "50 of 50 keys") || !strings.Contains(page.body, "The limit is reached") || strings.Contains(page.body, `<input type="hidden" name="env" value="live">`) {
			t.Fatalf("the full environment still offers its form: %s", page.body)
		}
		res := b.post("/console/keys", url.Values{"env": {"live"}, "preset": {"read-all"}})
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, "already has 50 active keys") {
			t.Fatalf("the 51st key: %d %s", res.status, res.body)
		}
		if n := len(keysOf(t, st, org.Org.ID)); n != 50 {
			t.Fatalf("%d keys, want 50", n)
		}
		if res := b.post("/console/keys", url.Values{"env": {"test"}, "preset": {"read-all"}}); res.status != http.StatusOK {
			t.Fatalf("a test key next to 50 live ones: %d", res.status)
		}
		if res := b.post(fmt.Sprintf("/console/keys/%d/revoke", first), url.Values{"understand": {"yes"}}); res.status != http.StatusSeeOther {
			t.Fatalf("revoke: %d %s", res.status, res.body)
		}
		if res := b.post("/console/keys", url.Values{"env": {"live"}, "preset": {"read-all"}}); res.status != http.StatusOK {
			t.Fatalf("a key in the freed place: %d %s", res.status, res.body)
		}
	})
}

// Rotating shows the new key once and the old key's end: now plus the
// chosen grace (none, 1 hour, 24 hours, 7 days), recorded for the person.
func TestKeysRotate(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, person := d.signedIn(org.Org.ID, people.Developer)
		now := time.Unix(0, d.now.Load()).UTC().Truncate(time.Second)
		for _, g := range []struct {
			name  string
			grace time.Duration
			says  string
		}{
			{"none", 0, "stopped working now"},
			{"1h", time.Hour, "works until " + now.Add(time.Hour).Format("2006-01-02 15:04 UTC")},
			{"24h", 24 * time.Hour, "works until " + now.Add(24*time.Hour).Format("2006-01-02 15:04 UTC")},
			{"7d", 7 * 24 * time.Hour, "works until " + now.Add(7*24*time.Hour).Format("2006-01-02 15:04 UTC")},
		} {
			k, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Test, []policy.Scope{policy.Write("sales")}, "shop "+g.name)
			if err != nil {
				t.Fatal(err)
			}
			path := fmt.Sprintf("/console/keys/%d/rotate", k.Record.ID)
			form := b.get(path)
			if form.status != http.StatusOK || !strings.Contains(form.body, `value="`+g.name+`"`) {
				t.Fatalf("rotate form %d: %s", form.status, form.body)
			}
			res := b.post(path, url.Values{"grace": {g.name}})
			m := shownKey.FindStringSubmatch(res.body)
			if res.status != http.StatusOK || m == nil || !strings.Contains(res.body, g.says) {
				t.Fatalf("rotate %s: %d, want the new key and %q: %s", g.name, res.status, g.says, res.body)
			}
			var old, repl auth.Listed
			for _, l := range keysOf(t, st, org.Org.ID) {
				switch {
				case l.ID == k.Record.ID:
					old = l
				case l.Replaces != nil && *l.Replaces == k.Record.ID:
					repl = l
				}
			}
			if old.ExpiresAt == nil || !old.ExpiresAt.Equal(now.Add(g.grace)) {
				t.Fatalf("grace %s: old key expires %v, want %v", g.name, old.ExpiresAt, now.Add(g.grace))
			}
			if repl.Last4 != m[1][len(m[1])-4:] || repl.Name != "shop "+g.name || !slices.Equal(repl.Scopes, []string{"sales:write"}) || repl.CreatedBy != person.Email {
				t.Fatalf("replacement %+v", repl)
			}
			checkRecord(t, st, org.Org.ID, "key_rotated", k.Record.ID, person.Email)
			if r := lastRecord(t, st, org.Org.ID); r.Detail["grace"] != g.name {
				t.Fatalf("recorded grace %v, want %s", r.Detail["grace"], g.name)
			}
		}
		list := b.get("/console/keys")
		if !strings.Contains(list.body, "works until "+now.Add(7*24*time.Hour).Format("2006-01-02 15:04 UTC")) || !strings.Contains(list.body, "Rotated, stopped working") {
			t.Fatalf("the list does not show the rotated keys' ends: %s", list.body)
		}

		// A grace not offered, and a key already rotated, are refused.
		k, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Live, []policy.Scope{policy.Read("sales")}, "")
		if err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/console/keys/%d/rotate", k.Record.ID)
		if res := b.post(path, url.Values{"grace": {"2h"}}); res.status != http.StatusBadRequest || !strings.Contains(res.body, `id="e-grace">Choose how long`) {
			t.Fatalf("grace 2h: %d %s", res.status, res.body)
		}
		if res := b.post(path, url.Values{"grace": {"1h"}}); res.status != http.StatusOK {
			t.Fatalf("rotate: %d", res.status)
		}
		res := b.post(path, url.Values{"grace": {"1h"}})
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, "already in a grace period") {
			t.Fatalf("rotating twice: %d %s", res.status, res.body)
		}
		if page := b.get(path); page.status != http.StatusOK || !strings.Contains(page.body, "cannot be rotated") || strings.Contains(page.body, `name="grace"`) {
			t.Fatalf("the rotated key's page still offers rotation: %s", page.body)
		}
	})
}

// Revoking asks once, on the key's page, then the post stops the key at
// once, recorded for the person.
func TestKeysRevoke(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, person := d.signedIn(org.Org.ID, people.Admin)
		k, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Live, policy.Known(), "old app")
		if err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/console/keys/%d/revoke", k.Record.ID)
		display := "key_live_…" + k.Record.Last4
		form := b.get(path)
		if form.status != http.StatusOK || strings.Contains(form.body, `type="checkbox"`) || strings.Contains(form.body, "data-confirm") ||
			!strings.Contains(form.body, `Revoke <span class="mono">`+display+`</span>`) {
			t.Fatalf("revoke form %d: %s", form.status, form.body)
		}
		if l := keysOf(t, st, org.Org.ID)[0]; l.RevokedAt != nil {
			t.Fatal("revoked by opening its page")
		}
		res := b.post(path, url.Values{})
		if res.status != http.StatusSeeOther || res.location() != "/console/keys?env=live" {
			t.Fatalf("revoke: %d %q", res.status, res.location())
		}
		l := keysOf(t, st, org.Org.ID)[0]
		if l.RevokedAt == nil || l.RevokedAt.Sub(time.Unix(0, d.now.Load())).Abs() > time.Millisecond {
			t.Fatalf("revoked at %v, want the console's now", l.RevokedAt)
		}
		checkRecord(t, st, org.Org.ID, "key_revoked", k.Record.ID, person.Email)
		list := b.get(res.location())
		if !strings.Contains(list.body, "Key "+display+" is revoked") || !strings.Contains(list.body, `class="past"`) || strings.Contains(list.body, `href="`+path+`"`) {
			t.Fatalf("the list after revoking: %s", list.body)
		}
		if res := b.post(path, url.Values{"understand": {"yes"}}); res.status != http.StatusBadRequest || !strings.Contains(res.body, "already revoked") {
			t.Fatalf("revoking twice: %d %s", res.status, res.body)
		}
	})
}

// Another organization's key id is not found on every route that takes one,
// in both directions, and its key is left as it was.
func TestKeysOtherOrganization(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		a, z := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		ba, _ := d.signedIn(a.Org.ID, people.Admin)
		bz, _ := d.signedIn(z.Org.ID, people.Admin)
		ka, err := auth.CreateKey(context.Background(), st.Client, a.Org.ID, auth.Holder, policy.Live, policy.Known(), "a")
		if err != nil {
			t.Fatal(err)
		}
		kz, err := auth.CreateKey(context.Background(), st.Client, z.Org.ID, auth.Holder, policy.Live, policy.Known(), "z")
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			b     *browser
			key   int
			owner int
		}{{ba, kz.Record.ID, z.Org.ID}, {bz, ka.Record.ID, a.Org.ID}} {
			for _, action := range []string{"rotate", "revoke"} {
				path := fmt.Sprintf("/console/keys/%d/%s", tc.key, action)
				if res := tc.b.get(path); res.status != http.StatusNotFound {
					t.Errorf("GET %s of another organization: %d", path, res.status)
				}
				if res := tc.b.post(path, url.Values{"grace": {"none"}, "understand": {"yes"}}); res.status != http.StatusNotFound {
					t.Errorf("POST %s of another organization: %d", path, res.status)
				}
			}
			l := keysOf(t, st, tc.owner)[0]
			if l.ExpiresAt != nil || l.RevokedAt != nil || len(keysOf(t, st, tc.owner)) != 1 {
				t.Fatalf("another organization changed key %+v", l)
			}
			if strings.Contains(tc.b.get("/console/keys").body, "key_live_…"+l.Last4) {
				t.Fatal("the list shows another organization's key")
			}
		}
		for _, path := range []string{"/console/keys/abc/rotate", "/console/keys/0/revoke", "/console/keys/999999999/rotate"} {
			if res := ba.get(path); res.status != http.StatusNotFound {
				t.Errorf("GET %s: %d", path, res.status)
			}
		}
	})
}

// A viewer sees the keys but no control that changes them.
func TestKeysViewer(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		k, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Live, policy.Known(), "erp")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		page := b.get("/console/keys")
		if page.status != http.StatusOK || !strings.Contains(page.body, "key_live_…"+k.Record.Last4) || !strings.Contains(page.body, "1 of 50 keys") {
			t.Fatalf("viewer's page %d: %s", page.status, page.body)
		}
		for _, control := range []string{`action="/console/keys"`, "/rotate", "/revoke", "Create a live key", "Create a test key", `name="scope"`} {
			if strings.Contains(page.body, control) {
				t.Errorf("a viewer is offered %q", control)
			}
		}
		// The organization has a live key, so the console opens on live;
		// the test keys are a switch away.
		if !strings.Contains(page.body, "Live keys") || strings.Contains(page.body, "Test keys") {
			t.Errorf("with a live key the viewer's keys page does not open on the live keys:\n%s", page.body)
		}
		page = b.get("/console/keys?env=test")
		if !strings.Contains(page.body, "An admin or developer of your organization can create one.") {
			t.Error("the viewer's empty test section does not say who can create a key")
		}
	})
}

// Costs and prices are an admin's: only an admin is offered, creates or
// rotates a key holding cost:read (the preset "all" included), and is
// shown the new key. A developer's form lacks the preset and the scope, the
// list offers no rotation of such a key, and a forged form post is refused
// with 403, creating and rotating nothing.
func TestKeysCostsAreAdmins(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		dev, _ := d.signedIn(org.Org.ID, people.Developer)
		adm, _ := d.signedIn(org.Org.ID, people.Admin)
		offers := func(page answer) (preset, scope bool) {
			return strings.Contains(page.body, `name="preset" value="all"`), strings.Contains(page.body, `name="scope" value="cost:read"`)
		}
		if p, s := offers(dev.get("/console/keys")); p || s {
			t.Errorf("a developer is offered the preset all (%v) or cost:read (%v)", p, s)
		}
		if p, s := offers(adm.get("/console/keys")); !p || !s {
			t.Errorf("an admin is not offered the preset all (%v) or cost:read (%v)", p, s)
		}

		costly, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Live, []policy.Scope{policy.Read("sales"), policy.CostRead}, "costs")
		if err != nil {
			t.Fatal(err)
		}
		rotate := fmt.Sprintf("/console/keys/%d/rotate", costly.Record.ID)
		before := keysOf(t, st, org.Org.ID)
		history := lastRecord(t, st, org.Org.ID)
		for _, tc := range []struct {
			name, path string
			form       url.Values
		}{
			{"create with the preset all", "/console/keys", url.Values{"env": {"live"}, "preset": {"all"}}},
			{"create with cost:read ticked", "/console/keys", url.Values{"env": {"test"}, "preset": {"custom"}, "scope": {"sales:read", "cost:read"}}},
			{"create with cost:read and no preset", "/console/keys", url.Values{"env": {"test"}, "scope": {"cost:read"}}},
			{"rotate a key holding cost:read", rotate, url.Values{"grace": {"none"}}},
		} {
			res := dev.post(tc.path, tc.form)
			if res.status != http.StatusForbidden || shownKey.MatchString(res.body) || !strings.Contains(res.body, "Only an admin creates or rotates a key that reads costs") {
				t.Errorf("a developer's forged %s: %d, want 403 and no key:\n%s", tc.name, res.status, res.body)
			}
		}
		if diff := cmp.Diff(before, keysOf(t, st, org.Org.ID)); diff != "" {
			t.Fatalf("refused posts changed the keys (-before +after):\n%s", diff)
		}
		if r := lastRecord(t, st, org.Org.ID); r.ID != history.ID {
			t.Fatalf("refused posts were recorded: %+v", r)
		}
		list := dev.get("/console/keys")
		if strings.Contains(list.body, `href="`+rotate+`"`) || !strings.Contains(list.body, "an admin rotates it") {
			t.Errorf("the developer's list offers to rotate the cost key: %s", list.body)
		}
		if form := dev.get(rotate); form.status != http.StatusOK || strings.Contains(form.body, `name="grace"`) || !strings.Contains(form.body, "only an admin rotates it") {
			t.Errorf("the developer's rotate page offers the rotation: %d %s", form.status, form.body)
		}

		// The admin does what the developer may not.
		for _, form := range []url.Values{{"env": {"live"}, "preset": {"all"}}, {"env": {"test"}, "preset": {"custom"}, "scope": {"cost:read"}}} {
			if res := adm.post("/console/keys", form); res.status != http.StatusOK || !shownKey.MatchString(res.body) {
				t.Errorf("the admin's %v: %d %s", form, res.status, res.body)
			}
		}
		if res := adm.post(rotate, url.Values{"grace": {"none"}}); res.status != http.StatusOK || !shownKey.MatchString(res.body) {
			t.Errorf("the admin's rotation: %d %s", res.status, res.body)
		}
		if n := len(keysOf(t, st, org.Org.ID)); n != len(before)+3 {
			t.Errorf("%d keys after the admin's three, want %d", n, len(before)+3)
		}
	})
}

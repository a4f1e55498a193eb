package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/console"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// hookDesk is a console with a webhook registry and a dispatcher (for single
// resends and for the tests to deliver with).
type hookDesk struct {
	*desk
	reg  *webhooks.Registry
	disp *webhooks.Dispatcher
}

// newHookDesk serves the console on st; set, when not nil, adjusts its
// options.
func newHookDesk(t *testing.T, st *store.Store, set func(*console.Options)) *hookDesk {
	t.Helper()
	d := &desk{t: t, st: st}
	d.now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, d.now.Load()) }
	d.people = people.New(st.Client, people.Options{Now: clock, Limiter: ratelimit.NewMemory()})
	h := &hookDesk{desk: d,
		reg:  &webhooks.Registry{Client: st.Client, AllowPrivate: true, Now: clock},
		disp: webhooks.New(st, webhooks.Options{AllowPrivate: true, Now: clock}),
	}
	o := console.Options{Client: st.Client, People: d.people, Webhooks: h.reg, Dispatcher: h.disp, Now: clock}
	d.srv = serveConsole(t, o, set)
	return h
}

// receiver records the tag names of the events posted to it, answering 500
// to a tag named fail-… while failing is on and 200 otherwise.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	failing bool
	got     []string
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{failing: true}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var env webhooks.Envelope
		_ = json.Unmarshal(b, &env)
		var snap struct{ Name string }
		_ = json.Unmarshal(env.Snapshot, &snap)
		rc.mu.Lock()
		rc.got = append(rc.got, snap.Name)
		fail := rc.failing && strings.HasPrefix(snap.Name, "fail")
		rc.mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte("receiver down: " + strings.Repeat("x", 3000)))
			return
		}
		_, _ = w.Write([]byte(`{"received":true}`))
	}))
	t.Cleanup(rc.Close)
	return rc
}

// posts is the tag names posted so far.
func (rc *receiver) posts() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.got...)
}

func (rc *receiver) setFailing(on bool) { rc.mu.Lock(); rc.failing = on; rc.mu.Unlock() }

// newTag creates a tag as an app action of org's env account: a tag.created
// event.
func newTag(t *testing.T, st *store.Store, org *dbtest.Org, env policy.Environment, name string) *ent.Tag {
	t.Helper()
	ctx := org.Ctx(env)
	var tg *ent.Tag
	err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) (err error) {
		tg, err = tx.Tag.Create().SetName(name).SetRefType(tag.RefTypePRODUCT).Save(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// deliver fans out the new events and posts what is due until nothing is.
func (h *hookDesk) deliver() {
	h.t.Helper()
	ctx := context.Background()
	if _, err := h.disp.FanOut(ctx); err != nil {
		h.t.Fatal(err)
	}
	for {
		n, err := h.disp.DeliverDue(ctx)
		if err != nil {
			h.t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// endpoint registers an endpoint of org to u for every event type.
func (h *hookDesk) endpoint(orgID int, env policy.Environment, u string) *ent.WebhookEndpoint {
	h.t.Helper()
	ep, err := h.reg.Create(context.Background(), orgID, env, u, "owner@example.com", "", nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return ep
}

// actions are the audit records of org by action, with their actor.
func actions(t *testing.T, st *store.Store, orgID int) map[string][]string {
	t.Helper()
	hist, err := audit.History(context.Background(), st.Client, orgID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range hist {
		out[r.Action] = append(out[r.Action], r.Actor)
	}
	return out
}

var secretValue = regexp.MustCompile(`value="(whsec_[^"]+)"`)

// secretIn is the signing secret a page shows, or "".
func secretIn(body string) string {
	m := secretValue.FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// errorNear reports whether the page shows msg as the error of field name.
func errorNear(body, name, msg string) bool {
	re := regexp.MustCompile(`<p class="error" id="e-` + regexp.QuoteMeta(name) + `">([^<]*)</p>`)
	m := re.FindStringSubmatch(body)
	return m != nil && strings.Contains(html.UnescapeString(m[1]), msg)
}

// Registering an endpoint: the chosen environment and event types are stored,
// the signing secret is shown in the answer and on no later page, the audit
// record names the person; a bad URL, a private address, an unknown or
// missing event type are shown next to their field and register nothing.
func TestWebhookCreate(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		h := newHookDesk(t, st, nil)
		org := dbtest.NewOrg(t, st, "")
		b, person := h.signedIn(org.Org.ID, people.Developer)
		ctx := context.Background()

		res := b.get("/console/webhooks")
		if res.status != http.StatusOK || !strings.Contains(res.body, "No test endpoint yet") || strings.Contains(res.body, "live endpoint") {
			t.Fatalf("empty list: %d %s", res.status, res.body)
		}
		if res := b.get("/console/webhooks?env=live"); res.status != http.StatusOK || !strings.Contains(res.body, "No live endpoint yet") {
			t.Fatalf("empty live list: %d %s", res.status, res.body)
		}
		b.get("/console/webhooks?env=test")
		for _, typ := range webhooks.Catalogue() {
			if !strings.Contains(res.body, `name="types" value="`+typ+`"`) {
				t.Errorf("the form offers no checkbox for %s", typ)
			}
		}

		form := url.Values{"env": {"test"}, "url": {"https://hooks.example.com/larder"}, "description": {"Stock sync"},
			"email": {"ops@example.com"}, "events": {"only"}, "types": {"tag.updated", "tag.created"}}
		res = b.post("/console/webhooks", form)
		if res.status != http.StatusOK {
			t.Fatalf("create: %d %s", res.status, res.body)
		}
		secret := secretIn(res.body)
		if !strings.HasPrefix(secret, webhooks.SecretPrefix) || len(secret) < 40 {
			t.Fatalf("the answer shows no signing secret: %q", secret)
		}
		eps, err := h.reg.List(ctx, org.Org.ID)
		if err != nil || len(eps) != 1 {
			t.Fatalf("endpoints %v, %v", eps, err)
		}
		ep := eps[0]
		if ep.URL != "https://hooks.example.com/larder" || ep.Description != "Stock sync" || ep.Email != "ops@example.com" ||
			string(ep.Edges.Account.Environment) != "test" || !slices.Equal(ep.EventTypes, []string{"tag.created", "tag.updated"}) {
			t.Fatalf("stored %+v in %s", ep, ep.Edges.Account.Environment)
		}
		if ep.Secret != secret {
			t.Fatal("the secret shown is not the endpoint's")
		}
		for _, path := range []string{"/console/webhooks", fmt.Sprintf("/console/webhooks/%d", ep.ID)} {
			res := b.get(path)
			if res.status != http.StatusOK || strings.Contains(html.UnescapeString(res.body), secret) || strings.Contains(res.body, "whsec_") {
				t.Errorf("%s shows the secret again (%d)", path, res.status)
			}
			if !strings.Contains(res.body, "tag.created, tag.updated") {
				t.Errorf("%s does not list the event types", path)
			}
		}
		if got := actions(t, st, org.Org.ID)["endpoint_created"]; !slices.Equal(got, []string{person.Email}) {
			t.Errorf("endpoint_created by %v, want %s", got, person.Email)
		}

		for _, tc := range []struct {
			name, field, msg string
			change           url.Values
		}{
			{"not https", "url", "must use https", url.Values{"url": {"ftp://hooks.example.com/x"}}},
			{"no url", "url", "Enter the URL", url.Values{"url": {""}}},
			{"unknown type", "types", "unknown event type", url.Values{"types": {"tag.created", "tag.eaten"}}},
			{"only, none chosen", "types", "Choose at least one event type", url.Values{"types": nil}},
			{"bad e-mail", "email", "Enter an e-mail address", url.Values{"email": {"not an address"}}},
			{"no environment", "env", "Choose Live or Test", url.Values{"env": {"staging"}}},
		} {
			f := url.Values{}
			for k, v := range form {
				f[k] = v
			}
			for k, v := range tc.change {
				if v == nil {
					delete(f, k)
				} else {
					f[k] = v
				}
			}
			res := b.post("/console/webhooks", f)
			if res.status != http.StatusBadRequest || !errorNear(res.body, tc.field, tc.msg) {
				t.Errorf("%s: %d, want 400 with %q next to %s", tc.name, res.status, tc.msg, tc.field)
			}
			if strings.Contains(res.body, "whsec_") {
				t.Errorf("%s: a secret was shown", tc.name)
			}
		}
		if eps, _ := h.reg.List(ctx, org.Org.ID); len(eps) != 1 {
			t.Errorf("%d endpoints after refused forms, want 1", len(eps))
		}

		// A server that refuses private addresses says so next to the URL,
		// without what the host name resolved to.
		strict := newHookDesk(t, st, func(o *console.Options) {
			o.Webhooks = &webhooks.Registry{Client: st.Client, Resolver: fixedResolver{netip.MustParseAddr("10.1.2.3")}}
		})
		sb, _ := strict.signedIn(org.Org.ID, people.Admin)
		res = sb.post("/console/webhooks", form)
		if res.status != http.StatusBadRequest || !errorNear(res.body, "url", "not public") || strings.Contains(res.body, "10.1.2.3") {
			t.Errorf("private address: %d, want 400 with the refusal next to the URL and no resolved address", res.status)
		}

		// A viewer reads the list without the form.
		vb, _ := h.signedIn(org.Org.ID, people.Viewer)
		if res := vb.get("/console/webhooks"); res.status != http.StatusOK || strings.Contains(res.body, `action="/console/webhooks" `) ||
			!strings.Contains(res.body, "hooks.example.com/larder") {
			t.Errorf("viewer's list: %d", res.status)
		}
	})
}

// fixedResolver resolves every host to its addresses.
type fixedResolver []netip.Addr

func (r fixedResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return r, nil
}

// The endpoint page changes the endpoint: edit (URL, event types back to
// all), disable and enable (the pages show it), rotate the secret with a
// grace period (the new secret shown once), delete only when confirmed;
// each change is audited with the person as actor.
func TestWebhookEndpointChanges(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		h := newHookDesk(t, st, nil)
		org := dbtest.NewOrg(t, st, "")
		b, person := h.signedIn(org.Org.ID, people.Admin)
		ctx := context.Background()
		ep, err := h.reg.Create(ctx, org.Org.ID, policy.Live, "https://a.example.com/in", "", "", []string{"tag.created"})
		if err != nil {
			t.Fatal(err)
		}
		page := fmt.Sprintf("/console/webhooks/%d", ep.ID)

		res := b.post(page, url.Values{"url": {"https://b.example.com/in"}, "description": {"Moved"}, "email": {""}, "events": {"all"}})
		if res.status != http.StatusSeeOther || res.location() != page {
			t.Fatalf("edit: %d to %q: %s", res.status, res.location(), res.body)
		}
		got, err := h.reg.Get(ctx, org.Org.ID, ep.ID)
		if err != nil || got.URL != "https://b.example.com/in" || got.Description != "Moved" || len(got.EventTypes) != 0 {
			t.Fatalf("after edit: %+v, %v", got, err)
		}
		if res := b.get(page); !strings.Contains(res.body, "The endpoint is saved.") || !strings.Contains(res.body, "All events") {
			t.Errorf("the page after the edit lacks the flash or the event types")
		}
		// The same form again changes nothing and records nothing.
		b.post(page, url.Values{"url": {"https://b.example.com/in"}, "description": {"Moved"}, "email": {""}, "events": {"all"}})
		if res := b.get(page); !strings.Contains(res.body, "Nothing changed.") {
			t.Error("an unchanged form was not said to change nothing")
		}
		hist, err := audit.History(ctx, st.Client, org.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		var changed any
		for _, r := range hist {
			if r.Action == "endpoint_updated" {
				changed = r.Detail["changed"]
			}
		}
		if fmt.Sprint(changed) != "[url description event_types]" {
			t.Errorf("the update recorded %v as changed, want url, description and event types", changed)
		}
		res = b.post(page, url.Values{"url": {"gopher://b.example.com"}, "events": {"all"}})
		if res.status != http.StatusBadRequest || !errorNear(res.body, "url", "must use https") {
			t.Errorf("bad edit: %d", res.status)
		}
		if got, _ := h.reg.Get(ctx, org.Org.ID, ep.ID); got.URL != "https://b.example.com/in" {
			t.Errorf("a refused edit changed the URL to %s", got.URL)
		}

		if res := b.post(page+"/disable", nil); res.status != http.StatusSeeOther {
			t.Fatalf("disable: %d", res.status)
		}
		if got, _ := h.reg.Get(ctx, org.Org.ID, ep.ID); got.Enabled {
			t.Fatal("still enabled")
		}
		for _, p := range []string{page, "/console/webhooks?env=live"} {
			if res := b.get(p); !strings.Contains(res.body, `<span class="badge bad">Disabled</span> by a person`) {
				t.Errorf("%s does not show the endpoint disabled", p)
			}
		}
		if res := b.get(page); !strings.Contains(res.body, "Enable endpoint") {
			t.Error("a disabled endpoint offers no enabling")
		}
		// Nothing is sent to a disabled endpoint: the test button says so.
		if res := b.post(page+"/ping", nil); res.status != http.StatusBadRequest || !errorNear(res.body, "ping", "Enable the endpoint first") {
			t.Errorf("ping of a disabled endpoint: %d", res.status)
		}
		if res := b.post(page+"/enable", nil); res.status != http.StatusSeeOther {
			t.Fatalf("enable: %d", res.status)
		}
		// Enabled again, it is not failing; it has delivered nothing yet, and says so.
		if res := b.get(page); !strings.Contains(res.body, `<span class="badge">No deliveries yet</span>`) || strings.Contains(res.body, "Healthy") {
			t.Error("an enabled endpoint that never delivered does not say so")
		}

		before, _ := h.reg.Get(ctx, org.Org.ID, ep.ID)
		res = b.post(page+"/rotate-secret", url.Values{"grace": {"24h0m0s"}})
		secret := secretIn(res.body)
		if res.status != http.StatusOK || !strings.HasPrefix(secret, webhooks.SecretPrefix) || secret == before.Secret {
			t.Fatalf("rotate: %d, secret %q", res.status, secret)
		}
		after, _ := h.reg.Get(ctx, org.Org.ID, ep.ID)
		now := time.Now()
		if after.Secret != secret || after.PreviousSecretExpiresAt == nil ||
			after.PreviousSecretExpiresAt.Sub(now) < 23*time.Hour+59*time.Minute || after.PreviousSecretExpiresAt.Sub(now) > 24*time.Hour {
			t.Fatalf("after rotation: previous signs until %v, want in 24 h", after.PreviousSecretExpiresAt)
		}
		if res := b.get(page); strings.Contains(res.body, "whsec_") || !strings.Contains(res.body, "signs too until") {
			t.Error("the page after a rotation shows a secret, or not until when the old one signs")
		}
		if res := b.post(page+"/rotate-secret", url.Values{"grace": {"8760h"}}); res.status != http.StatusBadRequest ||
			!errorNear(res.body, "grace", "Choose how long") || strings.Contains(res.body, "whsec_") {
			t.Errorf("a grace not offered: %d", res.status)
		}

		if ask := b.get(page + "/delete"); ask.status != http.StatusOK || !strings.Contains(ask.body, `action="`+page+`/delete"`) {
			t.Errorf("the page that asks before deleting: %d", ask.status)
		}
		if _, err := h.reg.Get(ctx, org.Org.ID, ep.ID); err != nil {
			t.Fatalf("opening the deletion's page deleted: %v", err)
		}
		res = b.post(page+"/delete", nil)
		if res.status != http.StatusSeeOther || res.location() != "/console/webhooks" {
			t.Fatalf("delete: %d to %q", res.status, res.location())
		}
		if _, err := h.reg.Get(ctx, org.Org.ID, ep.ID); err == nil {
			t.Fatal("the endpoint outlived its deletion")
		}
		if res := b.get(page); res.status != http.StatusNotFound {
			t.Errorf("the deleted endpoint's page: %d", res.status)
		}

		acts := actions(t, st, org.Org.ID)
		for action, n := range map[string]int{"endpoint_updated": 1, "endpoint_disabled": 1, "endpoint_enabled": 1, "endpoint_secret_rotated": 1, "endpoint_deleted": 1} {
			if got := acts[action]; len(got) != n || got[0] != person.Email {
				t.Errorf("%s by %v, want %d by %s", action, got, n, person.Email)
			}
		}
	})
}

// deliveryIDs are the delivery ids the log on a page shows, in order.
func deliveryIDs(body string) []int {
	var out []int
	for _, m := range regexp.MustCompile(`/deliveries/(\d+)/resend`).FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// The delivery log: filters by outcome and type narrow it (and a bad one is
// refused next to the filter), pages go back with the cursor, each attempt
// shows its status, the start of the answer and the signed body; "resend
// failed since" queues exactly the failed deliveries since the time, and a
// single resend posts one delivery again.
func TestWebhookDeliveryLog(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		h := newHookDesk(t, st, nil)
		org := dbtest.NewOrg(t, st, "")
		b, person := h.signedIn(org.Org.ID, people.Developer)
		ctx := context.Background()
		rc := newReceiver(t)
		ep := h.endpoint(org.Org.ID, policy.Live, rc.URL)
		page := fmt.Sprintf("/console/webhooks/%d", ep.ID)

		newTag(t, st, org, policy.Live, "ok-old")
		newTag(t, st, org, policy.Live, "fail-old")
		h.deliver()
		h.after(time.Minute)
		// "since" is read to the minute: what came before it is older.
		since := time.Unix(0, h.now.Load()).UTC().Truncate(time.Minute).Add(time.Minute)
		h.after(2 * time.Minute)
		newTag(t, st, org, policy.Live, "ok-new")
		newTag(t, st, org, policy.Live, "fail-new-1")
		newTag(t, st, org, policy.Live, "fail-new-2")
		h.deliver()
		all, err := h.reg.Deliveries(ctx, org.Org.ID, ep.ID, webhooks.DeliveryFilter{})
		if err != nil || len(all) != 5 {
			t.Fatalf("log: %d deliveries, %v", len(all), err)
		}
		byName := map[string]webhooks.Delivery{}
		for _, d := range all {
			var snap struct{ Name string }
			_ = json.Unmarshal(d.Event.Snapshot, &snap)
			byName[snap.Name] = d
		}

		res := b.get(page)
		if res.status != http.StatusOK || !slices.Equal(deliveryIDs(res.body), []int{all[0].ID, all[1].ID, all[2].ID, all[3].ID, all[4].ID}) {
			t.Fatalf("log page: %d, deliveries %v", res.status, deliveryIDs(res.body))
		}
		if !strings.Contains(res.body, `<span class="badge bad">500</span>`) || !strings.Contains(res.body, "receiver down: xxx") ||
			!strings.Contains(res.body, "webhook-signature: v1,") || !strings.Contains(res.body, "<details>") {
			t.Error("the log lacks an attempt's status, answer or signed request")
		}
		if strings.Contains(res.body, "receiver down: "+strings.Repeat("x", 2048)) {
			t.Error("the log shows more than the first 2 KB of an answer")
		}
		fail := byName["fail-new-1"]
		if !strings.Contains(html.UnescapeString(res.body), fail.Attempts[0].RequestBody) {
			t.Error("the log does not show the body that was sent")
		}

		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"?outcome=failed", []string{"fail-new-2", "fail-new-1", "fail-old"}},
			{"?outcome=succeeded", []string{"ok-new", "ok-old"}},
			{"?outcome=pending", nil},
			{"?type=tag.created&outcome=failed", []string{"fail-new-2", "fail-new-1", "fail-old"}},
			{"?type=tag.deleted", nil},
		} {
			res := b.get(page + tc.query)
			var want []int
			for _, n := range tc.want {
				want = append(want, byName[n].ID)
			}
			if res.status != http.StatusOK || !slices.Equal(deliveryIDs(res.body), want) {
				t.Errorf("%s: %d, deliveries %v, want %v", tc.query, res.status, deliveryIDs(res.body), want)
			}
		}
		if res := b.get(page + "?outcome=lost"); res.status != http.StatusBadRequest || !errorNear(res.body, "filter", "Choose an outcome") {
			t.Errorf("unknown outcome: %d", res.status)
		}
		if res := b.get(page + "?type=tag.eaten"); res.status != http.StatusBadRequest || !errorNear(res.body, "filter", "Choose an event type") {
			t.Errorf("unknown type: %d", res.status)
		}

		// Resend failed since: the two new failures are queued, not the old
		// one, not the successes; the dispatcher then posts exactly them.
		rc.setFailing(false)
		n0 := len(rc.posts())
		res = b.post(page+"/resend-failed", url.Values{"since": {since.Format("2006-01-02T15:04")}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("resend failed: %d %s", res.status, res.body)
		}
		if flash := b.get(page).body; !strings.Contains(flash, "2 failed deliveries since "+since.Format("2006-01-02 15:04")+" UTC queued") {
			t.Errorf("resend failed flash missing: %s", flash)
		}
		if len(rc.posts()) != n0 {
			t.Fatal("the console posted instead of queueing")
		}
		h.deliver()
		sent := rc.posts()[n0:]
		slices.Sort(sent)
		if !slices.Equal(sent, []string{"fail-new-1", "fail-new-2"}) {
			t.Errorf("the dispatcher posted %v after resend-failed, want the two new failures", sent)
		}
		if got := actions(t, st, org.Org.ID)["deliveries_resent"]; !slices.Equal(got, []string{person.Email}) {
			t.Errorf("deliveries_resent by %v", got)
		}
		for _, bad := range []string{"", "yesterday"} {
			if res := b.post(page+"/resend-failed", url.Values{"since": {bad}}); res.status != http.StatusBadRequest || !errorNear(res.body, "since", "Enter") {
				t.Errorf("since %q: %d", bad, res.status)
			}
		}

		// One delivery posted again now, whatever its state.
		ok := byName["ok-old"]
		n0 = len(rc.posts())
		res = b.post(fmt.Sprintf("%s/deliveries/%d/resend", page, ok.ID), nil)
		if res.status != http.StatusSeeOther || !slices.Equal(rc.posts()[n0:], []string{"ok-old"}) {
			t.Fatalf("resend: %d, posted %v", res.status, rc.posts()[n0:])
		}
		if flash := b.get(page).body; !strings.Contains(flash, fmt.Sprintf("Delivery %d resent: answered 200", ok.ID)) {
			t.Error("the single resend's flash is missing")
		}
		if got := actions(t, st, org.Org.ID)["deliveries_resent"]; len(got) != 2 || got[1] != person.Email {
			t.Errorf("deliveries_resent by %v after a single resend", got)
		}

		// Another endpoint's delivery is not this endpoint's.
		other := h.endpoint(org.Org.ID, policy.Live, rc.URL+"/other")
		if res := b.post(fmt.Sprintf("/console/webhooks/%d/deliveries/%d/resend", other.ID, ok.ID), nil); res.status != http.StatusNotFound {
			t.Errorf("a delivery under another endpoint: %d", res.status)
		}

		// A disabled endpoint resends nothing: said next to the time.
		if _, err := h.reg.Disable(ctx, org.Org.ID, ep.ID); err != nil {
			t.Fatal(err)
		}
		if res := b.post(page+"/resend-failed", url.Values{"since": {since.Format("2006-01-02T15:04")}}); res.status != http.StatusBadRequest ||
			!errorNear(res.body, "since", "Enable the endpoint first") {
			t.Errorf("resend failed of a disabled endpoint: %d", res.status)
		}
	})
}

// The log pages back through the cursor, 25 deliveries a page, keeping the
// filters.
func TestWebhookDeliveryLogPages(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		h := newHookDesk(t, st, nil)
		org := dbtest.NewOrg(t, st, "")
		b, _ := h.signedIn(org.Org.ID, people.Viewer)
		rc := newReceiver(t)
		ep := h.endpoint(org.Org.ID, policy.Live, rc.URL)
		for i := range 27 {
			newTag(t, st, org, policy.Live, fmt.Sprintf("ok-%02d", i))
		}
		h.deliver()
		all, err := h.reg.Deliveries(context.Background(), org.Org.ID, ep.ID, webhooks.DeliveryFilter{Limit: 100})
		if err != nil || len(all) != 27 {
			t.Fatalf("log: %d, %v", len(all), err)
		}
		page := fmt.Sprintf("/console/webhooks/%d", ep.ID)
		res := b.get(page + "?outcome=succeeded")
		ids := regexp.MustCompile(`<span class="mono muted">(evt_[^<]+)</span>`).FindAllStringSubmatch(res.body, -1)
		if len(ids) != 25 || ids[0][1] != all[0].Event.EventID || ids[24][1] != all[24].Event.EventID {
			t.Fatalf("first page: %d events", len(ids))
		}
		if strings.Contains(res.body, "Resend delivery") {
			t.Error("a viewer is offered resending")
		}
		next := regexp.MustCompile(`<a href="([^"]+)">Older deliveries</a>`).FindStringSubmatch(res.body)
		if next == nil {
			t.Fatal("no link to older deliveries")
		}
		link := html.UnescapeString(next[1])
		if link != fmt.Sprintf("%s?before=%d&outcome=succeeded", page, all[24].ID) {
			t.Fatalf("older link %q", link)
		}
		res = b.get(link)
		ids = regexp.MustCompile(`<span class="mono muted">(evt_[^<]+)</span>`).FindAllStringSubmatch(res.body, -1)
		if len(ids) != 2 || ids[0][1] != all[25].Event.EventID || ids[1][1] != all[26].Event.EventID {
			t.Fatalf("second page: %v", ids)
		}
		if strings.Contains(res.body, "Older deliveries") || !strings.Contains(res.body, "Newest deliveries") {
			t.Error("the last page links to older deliveries, or not to the newest")
		}
	})
}

// The test button queues a ping that a running dispatcher sends, and shows
// its answer; with no dispatcher running it says the ping was withdrawn.
func TestWebhookPing(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		h := newHookDesk(t, st, func(o *console.Options) { o.PingWait = 2 * time.Second })
		org := dbtest.NewOrg(t, st, "")
		b, _ := h.signedIn(org.Org.ID, people.Developer)
		rc := newReceiver(t)
		ep := h.endpoint(org.Org.ID, policy.Test, rc.URL)
		page := fmt.Sprintf("/console/webhooks/%d", ep.ID)

		res := b.post(page+"/ping", nil)
		if res.status != http.StatusSeeOther {
			t.Fatalf("ping without a dispatcher: %d", res.status)
		}
		if body := b.get(page).body; !strings.Contains(body, "No dispatcher sent the test event within 2s, so it was withdrawn") {
			t.Errorf("ping without a dispatcher: no withdrawal said")
		}
		if len(rc.posts()) != 0 {
			t.Fatal("a withdrawn ping was posted")
		}

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			webhooks.New(st, webhooks.Options{AllowPrivate: true, PollInterval: 50 * time.Millisecond}).Run(ctx)
		}()
		t.Cleanup(func() { cancel(); <-done })
		res = b.post(page+"/ping", nil)
		if res.status != http.StatusSeeOther || res.location() != page {
			t.Fatalf("ping: %d to %q", res.status, res.location())
		}
		body := b.get(page).body
		if !strings.Contains(body, "Test event sent: answered 200 in") || len(rc.posts()) != 1 {
			t.Fatalf("ping with a dispatcher: %d posts; page %s", len(rc.posts()), body)
		}
		if !strings.Contains(body, "Test event · ") || !strings.Contains(body, ">ping</span>") {
			t.Error("the ping is not in the log")
		}
	})
}

// Another organization's endpoint, and its deliveries, do not exist for a
// person: every route taking an id answers 404 and changes nothing, both
// ways.
func TestWebhookOtherOrganization(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		h := newHookDesk(t, st, nil)
		rc := newReceiver(t)
		type side struct {
			org *dbtest.Org
			b   *browser
			ep  *ent.WebhookEndpoint
			del int
		}
		var sides [2]side
		for i := range sides {
			org := dbtest.NewOrg(t, st, "")
			b, _ := h.signedIn(org.Org.ID, people.Admin)
			ep := h.endpoint(org.Org.ID, policy.Live, rc.URL)
			newTag(t, st, org, policy.Live, "fail-x")
			sides[i] = side{org: org, b: b, ep: ep}
		}
		h.deliver()
		for i := range sides {
			ds, err := h.reg.Deliveries(context.Background(), sides[i].org.Org.ID, sides[i].ep.ID, webhooks.DeliveryFilter{})
			if err != nil || len(ds) != 1 {
				t.Fatalf("deliveries: %v", err)
			}
			sides[i].del = ds[0].ID
		}
		for i, me := range sides {
			them := sides[1-i]
			theirs := fmt.Sprintf("/console/webhooks/%d", them.ep.ID)
			n0 := len(rc.posts())
			for _, rt := range console.Routes() {
				if !strings.HasPrefix(rt.Path, "/console/webhooks/{id}") {
					continue
				}
				path := strings.NewReplacer("{id}", strconv.Itoa(them.ep.ID), "{delivery}", strconv.Itoa(them.del)).Replace(rt.Path)
				form := url.Values{"url": {"https://evil.example.com/"}, "events": {"all"}, "grace": {"0s"}, "confirm": {"yes"},
					"since": {"2000-01-01T00:00"}}
				var res answer
				if rt.Method == http.MethodGet {
					res = me.b.get(path)
				} else {
					res = me.b.post(path, form)
				}
				if res.status != http.StatusNotFound {
					t.Errorf("org %d %s %s: %d, want 404", i, rt.Method, path, res.status)
				}
				// Their delivery under my endpoint is not mine either.
				if strings.Contains(rt.Path, "{delivery}") {
					mine := fmt.Sprintf("/console/webhooks/%d/deliveries/%d/resend", me.ep.ID, them.del)
					if res := me.b.post(mine, nil); res.status != http.StatusNotFound {
						t.Errorf("org %d resending their delivery under its endpoint: %d", i, res.status)
					}
				}
			}
			got, err := h.reg.Get(context.Background(), them.org.Org.ID, them.ep.ID)
			if err != nil || got.URL != rc.URL || !got.Enabled || got.PreviousSecretExpiresAt != nil {
				t.Errorf("their endpoint changed: %+v, %v", got, err)
			}
			if len(rc.posts()) != n0 {
				t.Errorf("org %d made %d posts to their endpoint", i, len(rc.posts())-n0)
			}
			if strings.Contains(me.b.get("/console/webhooks").body, `href="`+theirs+`"`) {
				t.Errorf("org %d lists their endpoint", i)
			}
		}
	})
}

package console_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"larder.dev/larder/console"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// summaryOf is the error summary at the top of a page: its links, each as
// href and text; nil when the page has none.
func summaryOf(t *testing.T, body string) map[string]string {
	t.Helper()
	box := regexp.MustCompile(`(?s)<div class="problems" role="alert" tabindex="-1" autofocus aria-labelledby="problems-title">\s*<h2 id="problems-title">There is a problem</h2>(.*?)</div>`).FindStringSubmatch(body)
	if box == nil {
		return nil
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`<li><a href="([^"]+)">([^<]+)</a></li>`).FindAllStringSubmatch(box[1], -1) {
		out[m[1]] = m[2]
	}
	return out
}

// A create form sent back with errors opens its disclosure and puts every
// field's error, not only the first, in a summary at the top that takes the
// focus, each linking to the input the error is about (an input that
// exists on the page). A form that has not failed stays folded, and a page
// without errors has no summary.
func TestCreateFormsSummarizeEveryError(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Admin)
		for _, page := range []string{"/console/keys", "/console/webhooks", "/console/people"} {
			res := b.get(page)
			if res.status != http.StatusOK || !strings.Contains(res.body, `<details class="disclosure">`) || strings.Contains(res.body, `<details class="disclosure" open>`) {
				t.Errorf("%s: %d, want its create form folded behind a button", page, res.status)
			}
			if s := summaryOf(t, res.body); s != nil {
				t.Errorf("%s shows an error summary without errors: %v", page, s)
			}
		}
		cases := []struct {
			name, path string
			form       url.Values
			want       map[string]string
		}{
			{"key", "/console/keys", url.Values{"env": {"test"}, "preset": {"custom"}, "name": {strings.Repeat("n", 101)}},
				map[string]string{"#test-name": "The name has 101 characters; use at most 100.", "#test-scope": "Choose at least one scope"}},
			{"endpoint", "/console/webhooks", url.Values{"env": {"test"}, "url": {"ftp://example.com/x"}, "email": {"not an address"}, "events": {"only"}},
				nil},
			{"invitation", "/console/people", url.Values{"email": {"nobody"}, "role": {"root"}}, nil},
		}
		for _, tc := range cases {
			res := b.post(tc.path, tc.form)
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, `<details class="disclosure" open>`) {
				t.Errorf("%s: %d, want 400 with the form open", tc.name, res.status)
			}
			got := summaryOf(t, res.body)
			if len(got) < 2 {
				t.Errorf("%s: the summary lists %v, want every field's error (at least two)", tc.name, got)
			}
			for href, msg := range got {
				id := strings.TrimPrefix(href, "#")
				if !regexp.MustCompile(`<input id="` + regexp.QuoteMeta(id) + `"|<select id="` + regexp.QuoteMeta(id) + `"|<input[^>]* id="` + regexp.QuoteMeta(id) + `"`).MatchString(res.body) {
					t.Errorf("%s: the summary links %s, which names no field of the page", tc.name, href)
				}
				if !strings.Contains(res.body, `>`+msg+`</p>`) {
					t.Errorf("%s: %q is in the summary but not beside its field", tc.name, msg)
				}
			}
			for href, msg := range tc.want {
				if !strings.HasPrefix(got[href], msg) {
					t.Errorf("%s: the summary links %s to %q, want %q", tc.name, href, got[href], msg)
				}
			}
		}
	})
}

// Revoking a key asks once: its page says what happens, with one button and
// no box to tick, and posting it revokes. Deleting an endpoint and removing
// a person are the same: a page that asks, then the post that acts. No
// page or script asks again with the browser's own dialog.
func TestDestructiveActionsAskOnce(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, me := d.signedIn(org.Org.ID, people.Admin)
		ctx := context.Background()
		k, err := auth.CreateKey(ctx, st.Client, org.Org.ID, auth.Holder, policy.Test, policy.Known(), "to revoke")
		if err != nil {
			t.Fatal(err)
		}
		path := "/console/keys/" + strconv.Itoa(k.Record.ID) + "/revoke"
		page := b.get(path)
		if page.status != http.StatusOK || strings.Count(page.body, `action="`+path+`"`) != 1 || strings.Contains(page.body, `type="checkbox"`) || strings.Contains(page.body, "data-confirm") {
			t.Fatalf("the revoke page: %d, want one form with no box to tick:\n%s", page.status, page.body)
		}
		if res := b.post(path, url.Values{}); res.status != http.StatusSeeOther {
			t.Fatalf("revoke: %d %s", res.status, res.body)
		}
		if keys := keysOf(t, st, org.Org.ID); len(keys) != 1 || keys[0].RevokedAt == nil {
			t.Errorf("after the one confirmation the key is %+v, want revoked", keys)
		}

		reg := &webhooks.Registry{Client: st.Client, AllowPrivate: true}
		ep, err := reg.Create(ctx, org.Org.ID, policy.Live, "http://127.0.0.1:9/hook", "", "to delete", nil)
		if err != nil {
			t.Fatal(err)
		}
		del := "/console/webhooks/" + strconv.Itoa(ep.ID) + "/delete"
		if res := b.get("/console/webhooks/" + strconv.Itoa(ep.ID)); !strings.Contains(res.body, `href="`+del+`"`) || strings.Contains(res.body, `name="confirm"`) {
			t.Errorf("the endpoint's page does not link its deletion's page, or asks for a tick")
		}
		if res := b.get(del); res.status != http.StatusOK || !strings.Contains(res.body, `action="`+del+`"`) || strings.Contains(res.body, `type="checkbox"`) {
			t.Errorf("the deletion's page: %d\n%s", res.status, res.body)
		}
		if res := b.post(del, url.Values{}); res.status != http.StatusSeeOther {
			t.Fatalf("delete: %d %s", res.status, res.body)
		}
		if eps, _ := reg.List(ctx, org.Org.ID); len(eps) != 0 {
			t.Errorf("the endpoint is still there: %+v", eps)
		}

		other := d.person(org.Org.ID, people.Viewer)
		rm := "/console/people/" + strconv.Itoa(other.ID) + "/remove"
		if res := b.get("/console/people"); !strings.Contains(res.body, `href="`+rm+`"`) || strings.Contains(res.body, `name="confirm"`) {
			t.Errorf("the people page does not link the removal's page, or asks for a tick")
		}
		if res := b.get(rm); res.status != http.StatusOK || !strings.Contains(res.body, other.Email) || !strings.Contains(res.body, `action="`+rm+`"`) {
			t.Errorf("the removal's page: %d\n%s", res.status, res.body)
		}
		if res := b.post(rm, url.Values{}); res.status != http.StatusSeeOther {
			t.Fatalf("remove: %d %s", res.status, res.body)
		}
		if _, err := d.people.Get(ctx, org.Org.ID, other.ID); err == nil {
			t.Errorf("%s is still a person of the organization", other.Email)
		}
		if _, err := d.people.Get(ctx, org.Org.ID, me.ID); err != nil {
			t.Errorf("removing another removed the admin too: %v", err)
		}
	})
}

// No template or script asks with the browser's own confirm dialog.
func TestNoNativeConfirm(t *testing.T) {
	files, _ := filepath.Glob("assets/*")
	tpl, _ := filepath.Glob("templates/*.html")
	files = append(files, tpl...)
	if len(files) < 10 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "confirm(") || strings.Contains(string(b), "data-confirm") {
			t.Errorf("%s asks with the browser's confirm dialog", f)
		}
	}
}

// The invitation says what each role may do, as the routes allow it:
// viewers change nothing, operators act on the floor, developers on keys.
func TestInvitationDescribesRoles(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Admin)
		body := b.get("/console/people").body
		for _, want := range []string{
			"<strong>viewer</strong>: only read",
			"<strong>operator</strong>: act on the floor: quality decisions on lots, planning, starting, completing and signing production runs",
			"<strong>developer</strong>: create and revoke API keys",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the invitation does not say %q", want)
			}
		}
		if strings.Contains(body, "operators and viewers read") {
			t.Error("the invitation says operators only read")
		}
		// What the words claim, against the routes' roles.
		allowed := map[string]bool{}
		for _, rt := range console.Routes() {
			if rt.Method != http.MethodPost || rt.Public {
				continue
			}
			if rt.Allows(people.Viewer) && !strings.HasPrefix(rt.Path, "/console/account") && !strings.HasPrefix(rt.Path, "/console/sign-") && rt.Path != "/console/env" {
				t.Errorf("a viewer may %s %s, yet the invitation says viewers only read", rt.Method, rt.Path)
			}
			for _, r := range []people.Role{people.Operator, people.Developer} {
				allowed[string(r)+" "+rt.Path] = rt.Allows(r)
			}
		}
		for _, claim := range []string{"operator /console/lots/{id}/qc", "operator /console/production", "operator /console/production/{id}/start",
			"operator /console/production/{id}/complete", "operator /console/production/{id}/sign", "operator /console/suppliers/{id}/approval",
			"operator /console/invoices/{id}/cancel", "operator /console/imports/import", "developer /console/keys", "developer /console/webhooks",
			"developer /console/test-data"} {
			if !allowed[claim] {
				t.Errorf("the invitation says a %s, which the routes refuse", claim)
			}
		}
	})
}

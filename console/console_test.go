package console_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/console"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// concrete turns a route's pattern into a path to request: a record that
// does not exist where it names one.
func concrete(pattern string) string {
	p := strings.TrimSuffix(pattern, "{$}")
	return regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(p, "999999")
}

// Every route of the console, for every role: without a session it redirects
// to sign in (303); a role it is not for gets 403; a role it is for gets
// neither. The routes and roles come from the console's own table, so a
// route added later is covered.
func TestEveryRouteByRole(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		anon := d.browser()
		for _, role := range people.Roles {
			b, _ := d.signedIn(org.Org.ID, role)
			for _, rt := range console.Routes() {
				if rt.Public {
					continue
				}
				path := concrete(rt.Path)
				t.Run(string(role)+" "+rt.Method+" "+rt.Path, func(t *testing.T) {
					if role == people.Roles[0] {
						res := anon.request(rt.Method, path)
						if res.status != http.StatusSeeOther || !strings.HasPrefix(res.location(), "/console/sign-in") {
							t.Errorf("without a session: %d to %q, want 303 to /console/sign-in", res.status, res.location())
						}
					}
					res := b.request(rt.Method, path)
					if rt.Path == "/console/sign-out" {
						// Signing out ends the session the other routes use.
						b, _ = d.signedIn(org.Org.ID, role)
					}
					switch {
					case !rt.Allows(role) && res.status != http.StatusForbidden:
						t.Errorf("%s may not use it, got %d", role, res.status)
					case rt.Allows(role) && res.status == http.StatusForbidden:
						t.Errorf("%s may use it, got 403: %s", role, res.body)
					case rt.Allows(role) && res.status == http.StatusSeeOther && strings.HasPrefix(res.location(), "/console/sign-in") && rt.Path != "/console/sign-out":
						t.Errorf("%s was sent to sign in", role)
					case res.status >= 500:
						t.Errorf("%d: %s", res.status, res.body)
					}
				})
			}
		}
	})
}

// request sends method to path with an empty form for a POST.
func (b *browser) request(method, path string) answer {
	if method == http.MethodPost {
		return b.post(path, url.Values{})
	}
	return b.get(path)
}

// The session cookie is HttpOnly and SameSite=Lax; over plain HTTP it is
// not Secure (a browser would drop it), and signing out ends the session in
// the database, so the same token opens nothing afterwards.
func TestSignInAndOut(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		p := d.person(org.Org.ID, people.Developer)
		b := d.browser()
		res := b.post("/console/sign-in", url.Values{"email": {strings.ToUpper(p.Email)}, "password": {password}})
		if res.status != http.StatusSeeOther || res.location() != "/console/" {
			t.Fatalf("sign in: %d to %q", res.status, res.location())
		}
		set := res.header.Get("Set-Cookie")
		for _, want := range []string{"larder-session=", "HttpOnly", "SameSite=Lax", "Path=/"} {
			if !strings.Contains(set, want) {
				t.Errorf("Set-Cookie %q lacks %q", set, want)
			}
		}
		if strings.Contains(set, "Secure") || strings.HasPrefix(set, "__Host-") {
			t.Errorf("Set-Cookie over plain HTTP: %q", set)
		}
		token := b.cookie("larder-session")
		if res := b.get("/console/account"); res.status != http.StatusOK || !strings.Contains(res.body, p.Email) {
			t.Fatalf("account page: %d", res.status)
		}
		if res := b.post("/console/sign-out", nil); res.status != http.StatusSeeOther || res.location() != "/console/sign-in" {
			t.Fatalf("sign out: %d to %q", res.status, res.location())
		}
		if _, err := d.people.Session(context.Background(), token); err == nil {
			t.Fatal("the session outlived signing out")
		}
		replay := d.browser()
		replay.jar.SetCookies(mustURL(d.srv.URL+"/"), []*http.Cookie{{Name: "larder-session", Value: token, Path: "/"}})
		if res := replay.get("/console/account"); res.status != http.StatusSeeOther {
			t.Errorf("the old token still opens a page: %d", res.status)
		}
	})
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// Over TLS (here: a trusted proxy saying so) the cookie is __Host- and
// Secure; the same header from an untrusted peer changes nothing.
func TestSecureCookieBehindTLS(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		for _, tc := range []struct {
			name    string
			trusted bool
			secure  bool
		}{{"trusted proxy", true, true}, {"untrusted peer", false, false}} {
			t.Run(tc.name, func(t *testing.T) {
				d := newDeskTrusting(t, st, tc.trusted)
				p := d.person(org.Org.ID, people.Viewer)
				b := d.browser()
				req, _ := http.NewRequest("POST", d.srv.URL+"/console/sign-in", strings.NewReader(url.Values{"email": {p.Email}, "password": {password}}.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("X-Forwarded-Proto", "https")
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				res := b.do(req)
				set := res.header.Get("Set-Cookie")
				if got := strings.HasPrefix(set, "__Host-larder-session=") && strings.Contains(set, "Secure"); got != tc.secure {
					t.Errorf("Set-Cookie %q: secure %v, want %v", set, got, tc.secure)
				}
			})
		}
	})
}

// With an https console address the session cookie is __Host- and Secure
// and every answer carries Strict-Transport-Security, even when the request
// reached the server as plain HTTP through a proxy it does not trust (one
// that terminates TLS without saying so); with an http address neither.
func TestSecureCookieWithHTTPSConsoleURL(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		for _, tc := range []struct {
			base   string
			secure bool
		}{{"https://console.example.com", true}, {"", false}} {
			d := newDeskWith(t, st, func(o *console.Options) {
				if tc.base != "" {
					o.BaseURL = tc.base
				}
			})
			p := d.person(org.Org.ID, people.Viewer)
			res := d.browser().post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}})
			set := res.header.Get("Set-Cookie")
			if got := strings.HasPrefix(set, "__Host-larder-session=") && strings.Contains(set, "; Secure"); res.status != http.StatusSeeOther || got != tc.secure {
				t.Errorf("base %q: %d, Set-Cookie %q: secure %v, want %v", tc.base, res.status, set, got, tc.secure)
			}
			for _, path := range []string{"/console/sign-in", "/console/no-such-page"} {
				hsts := d.browser().get(path).header.Get("Strict-Transport-Security")
				if want := map[bool]string{true: "max-age=31536000", false: ""}[tc.secure]; hsts != want {
					t.Errorf("base %q, %s: Strict-Transport-Security %q, want %q", tc.base, path, hsts, want)
				}
			}
		}
	})
}

// Every console POST reads at most its route's bound (64 KB for a form, the
// file's 4 MB and 64 KB for an import check) before any page looks at it: a
// larger body, announced or streamed without a length, is answered 413 with
// a page saying so. A form just under the bound is read as usual.
func TestEveryPostIsBounded(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Admin)
		if console.MaxForm != 64<<10 {
			t.Fatalf("forms are bounded at %d bytes, want 64 KB", console.MaxForm)
		}
		n := 0
		for _, rt := range console.Routes() {
			if rt.Method != "POST" {
				continue
			}
			n++
			limit := int64(console.MaxForm)
			if rt.Path == "/console/imports/check" {
				limit = 4<<20 + 64<<10
			}
			if rt.MaxBody != 0 && rt.MaxBody != limit {
				t.Errorf("%s bounded at %d bytes, want %d", rt.Path, rt.MaxBody, limit)
			}
			for _, chunked := range []bool{false, true} {
				body := io.Reader(strings.NewReader("a=" + strings.Repeat("x", int(limit))))
				if chunked {
					body = io.MultiReader(body) // no length: sent chunked
				}
				req, _ := http.NewRequest("POST", d.srv.URL+concrete(rt.Path), body)
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				res := b.do(req)
				if res.status != http.StatusRequestEntityTooLarge || !strings.Contains(res.body, "larger than this page takes") {
					t.Errorf("%s, chunked %v: %d, want 413 with its page", rt.Path, chunked, res.status)
				}
			}
		}
		if n < 30 {
			t.Fatalf("only %d POST routes", n)
		}
		// Just under the bound the form is read: the sign-out works.
		pad := strings.Repeat("x", console.MaxForm-len("a="))
		req, _ := http.NewRequest("POST", d.srv.URL+"/console/sign-out", strings.NewReader("a="+pad))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if res := b.do(req); res.status != http.StatusSeeOther {
			t.Errorf("a form of exactly 64 KB: %d %s", res.status, res.body)
		}
	})
}

// A state-changing request from another site is refused (403) and changes
// nothing: the session it tried to end still works.
func TestCrossOriginWritesRefused(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Admin)
		for _, h := range []map[string]string{
			{"Sec-Fetch-Site": "cross-site"},
			{"Origin": "https://evil.example"},
		} {
			req, _ := http.NewRequest("POST", d.srv.URL+"/console/sign-out", nil)
			for k, v := range h {
				req.Header.Set(k, v)
			}
			if res := b.do(req); res.status != http.StatusForbidden {
				t.Errorf("%v: %d, want 403", h, res.status)
			}
		}
		if res := b.get("/console/account"); res.status != http.StatusOK {
			t.Errorf("the session ended: %d", res.status)
		}
	})
}

// A session ends after 12 hours unused, and 7 days after it began however
// it is used.
func TestSessionLifetimes(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		idle, _ := d.signedIn(org.Org.ID, people.Viewer)
		used, _ := d.signedIn(org.Org.ID, people.Viewer)
		d.after(11*time.Hour + 50*time.Minute)
		if res := used.get("/console/account"); res.status != http.StatusOK {
			t.Fatalf("used after 11 h 50 min: %d", res.status)
		}
		d.after(15 * time.Minute)
		if res := idle.get("/console/account"); res.status != http.StatusSeeOther {
			t.Errorf("unused for 12 h 5 min: %d, want 303", res.status)
		}
		if res := used.get("/console/account"); res.status != http.StatusOK {
			t.Errorf("used 15 min ago: %d", res.status)
		}
		// Used every 11 hours, the session still ends at 7 days.
		for elapsed := 12 * time.Hour; elapsed < 7*24*time.Hour-11*time.Hour; elapsed += 11 * time.Hour {
			d.after(11 * time.Hour)
			if res := used.get("/console/account"); res.status != http.StatusOK {
				t.Fatalf("used regularly, ended after about %v", elapsed)
			}
		}
		d.after(11 * time.Hour)
		if res := used.get("/console/account"); res.status != http.StatusSeeOther {
			t.Errorf("past 7 days: %d, want 303", res.status)
		}
	})
}

// An unknown address and a wrong password get the same answer, byte for
// byte; five attempts a minute per address, then 429 with Retry-After.
func TestSignInFailures(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		p := d.person(org.Org.ID, people.Viewer)
		wrong := d.browser().post("/console/sign-in", url.Values{"email": {p.Email}, "password": {"not the password at all"}})
		unknown := d.browser().post("/console/sign-in", url.Values{"email": {"nobody-" + p.Email}, "password": {"not the password at all"}})
		if wrong.status != http.StatusUnauthorized || unknown.status != wrong.status {
			t.Errorf("statuses: wrong password %d, unknown address %d, want 401 both", wrong.status, unknown.status)
		}
		norm := func(s string) string { return strings.ReplaceAll(s, "nobody-", "") }
		if norm(unknown.body) != wrong.body {
			t.Error("the answers differ between an unknown address and a wrong password")
		}
		if strings.Contains(wrong.body, "not the password") {
			t.Error("the password was shown back")
		}
		var last answer
		for i := 0; i < 5; i++ {
			last = d.browser().post("/console/sign-in", url.Values{"email": {p.Email}, "password": {"still not the password"}})
		}
		if last.status != http.StatusTooManyRequests || last.header.Get("Retry-After") == "" {
			t.Errorf("after 6 attempts in a minute: %d Retry-After %q, want 429 with Retry-After", last.status, last.header.Get("Retry-After"))
		}
		// Throttled even with the right password: the address waits.
		if res := d.browser().post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}}); res.status != http.StatusTooManyRequests {
			t.Errorf("the right password while throttled: %d", res.status)
		}
		d.after(time.Minute)
		if res := d.browser().post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}}); res.status != http.StatusSeeOther {
			t.Errorf("a minute later: %d", res.status)
		}
	})
}

// keyOnPage is the authenticator key the set-up page shows.
var keyOnPage = regexp.MustCompile(`Key: <code class="mono">([A-Z2-7]+)</code>`)

// A person sets up a second factor in the console; from then on signing in
// asks for a code, every page waits for it, and a code works once.
func TestSecondFactor(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, p := d.signedIn(org.Org.ID, people.Developer)
		res := b.post("/console/account/second-factor", nil)
		m := keyOnPage.FindStringSubmatch(res.body)
		if res.status != http.StatusOK || m == nil {
			t.Fatalf("set-up page: %d, key shown: %v", res.status, m != nil)
		}
		if !strings.Contains(res.body, `src="data:image/png;base64,`) {
			t.Error("no QR code")
		}
		secret := m[1]
		now := func() time.Time { return time.Unix(0, d.now.Load()) }
		if res := b.post("/console/account/second-factor/confirm", url.Values{"code": {"000000"}}); res.status != http.StatusBadRequest || !strings.Contains(res.body, `aria-invalid="true"`) {
			t.Errorf("a wrong code: %d", res.status)
		}
		res = b.post("/console/account/second-factor/confirm", url.Values{"code": {people.Code(secret, now())}})
		codes := codeOnPage.FindAllString(res.body, -1)
		if res.status != http.StatusOK || len(codes) != 10*3 {
			t.Fatalf("confirm: %d, %d codes on the page (each in the list, the box and the download form), want 30: %s", res.status, len(codes), res.body)
		}
		if res.header.Get("Cache-Control") != "no-store" {
			t.Errorf("the codes' page may be kept: Cache-Control %q", res.header.Get("Cache-Control"))
		}
		codes = codes[:10]
		d.after(31 * time.Second)
		b2 := d.browser()
		res = b2.post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}})
		if res.status != http.StatusSeeOther || res.location() != "/console/sign-in/code" {
			t.Fatalf("sign in with a second factor: %d to %q", res.status, res.location())
		}
		if res := b2.get("/console/account"); res.status != http.StatusSeeOther || res.location() != "/console/sign-in/code" {
			t.Errorf("a page before the code: %d to %q", res.status, res.location())
		}
		code := people.Code(secret, now())
		if res := b2.post("/console/sign-in/code", url.Values{"code": {code}}); res.status != http.StatusSeeOther {
			t.Fatalf("code: %d %s", res.status, res.body)
		}
		if res := b2.get("/console/account"); res.status != http.StatusOK {
			t.Errorf("after the code: %d", res.status)
		}
		b3 := d.browser()
		b3.post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}})
		if res := b3.post("/console/sign-in/code", url.Values{"code": {code}}); res.status != http.StatusUnauthorized {
			t.Errorf("the same code again: %d, want 401", res.status)
		}
		d.after(2 * time.Second)
		// A recovery code in place of the app's, once.
		if res := b3.post("/console/sign-in/code", url.Values{"code": {codes[2]}}); res.status != http.StatusSeeOther {
			t.Fatalf("a recovery code: %d %s", res.status, res.body)
		}
		if res := b3.get("/console/account"); res.status != http.StatusOK || !strings.Contains(res.body, "9 of 10 recovery codes left.") {
			t.Errorf("the account page after a recovery code: %d %s", res.status, res.body)
		}
		b4 := d.browser()
		b4.post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}})
		if res := b4.post("/console/sign-in/code", url.Values{"code": {codes[2]}}); res.status != http.StatusUnauthorized {
			t.Errorf("the same recovery code again: %d, want 401", res.status)
		}
		// The download is the codes sent back, as a text file; anything
		// else is refused.
		res = b3.post("/console/account/recovery-codes/download", url.Values{"code": codes})
		if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Disposition"), "attachment") ||
			!strings.HasPrefix(res.header.Get("Content-Type"), "text/plain") || !strings.Contains(res.body, strings.Join(codes, "\n")) {
			t.Errorf("download: %d %v %s", res.status, res.header, res.body)
		}
		if res := b3.post("/console/account/recovery-codes/download", url.Values{"code": {"<script>"}}); res.status != http.StatusBadRequest {
			t.Errorf("downloading what is no code: %d, want 400", res.status)
		}
		// New codes: the proof is asked beside its field, then the old
		// codes stop working. (A minute on: the password's checks count
		// in the sign-in's throttle.)
		d.after(time.Minute)
		res = b3.post("/console/account/recovery-codes", url.Values{"renew_proof": {"not my password!"}})
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, `id="e-renew_proof"`) {
			t.Errorf("new codes with a wrong password: %d %s", res.status, res.body)
		}
		res = b3.post("/console/account/recovery-codes", url.Values{"renew_proof": {password}})
		fresh := codeOnPage.FindAllString(res.body, -1)
		if res.status != http.StatusOK || len(fresh) != 30 || fresh[0] == codes[0] {
			t.Fatalf("new codes: %d, %d codes", res.status, len(fresh))
		}
		d.after(time.Minute)
		b5 := d.browser()
		b5.post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}})
		if res := b5.post("/console/sign-in/code", url.Values{"code": {codes[3]}}); res.status != http.StatusUnauthorized {
			t.Errorf("an old recovery code after new ones: %d, want 401", res.status)
		}
	})
}

// codeOnPage is a recovery code as a page shows it.
var codeOnPage = regexp.MustCompile(`\b[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}\b`)

// Pages say what they are and are not: a policy without inline script and
// without framing, and never stored by a browser or proxy.
func TestSecurityHeaders(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		res := d.browser().get("/console/sign-in")
		csp := res.header.Get("Content-Security-Policy")
		for _, want := range []string{"frame-ancestors 'none'", "script-src 'self'", "default-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("CSP %q lacks %q", csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("CSP %q allows inline code", csp)
		}
		if cc := res.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control %q", cc)
		}
		if res.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Error("no nosniff")
		}
	})
}

// A one-time link sets the password and signs in, once; the page asked
// for before signing in is where sign-in leads, and never another site.
func TestLinksAndNext(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		ctx := context.Background()
		p, l, err := d.people.Invite(ctx, org.Org.ID, "new.person@example.com", people.Developer)
		if err != nil {
			t.Fatal(err)
		}
		b := d.browser()
		link := people.LinkPath(l.Token)
		if res := b.get(link); res.status != http.StatusOK || !strings.Contains(res.body, p.Email) {
			t.Fatalf("link page: %d", res.status)
		}
		if res := b.post(link, url.Values{"password": {"short"}, "confirm": {"short"}}); res.status != http.StatusBadRequest || !strings.Contains(res.body, "12 characters") {
			t.Errorf("a short password: %d", res.status)
		}
		if res := b.post(link, url.Values{"password": {password}, "confirm": {password}}); res.status != http.StatusSeeOther {
			t.Fatalf("set password: %d %s", res.status, res.body)
		}
		if res := b.get("/console/account"); res.status != http.StatusOK {
			t.Errorf("signed in by the link: %d", res.status)
		}
		if res := d.browser().get(link); res.status != http.StatusNotFound {
			t.Errorf("the link a second time: %d, want 404", res.status)
		}

		anon := d.browser()
		res := anon.get("/console/account")
		if res.status != http.StatusSeeOther || res.location() != "/console/sign-in?next=%2Fconsole%2Faccount" {
			t.Fatalf("without a session: %d to %q", res.status, res.location())
		}
		res = anon.post("/console/sign-in?next=%2Fconsole%2Faccount", url.Values{"email": {p.Email}, "password": {password}})
		if res.location() != "/console/account" {
			t.Errorf("after sign-in: to %q, want /console/account", res.location())
		}
		other := d.browser()
		res = other.post("/console/sign-in?next=%2F%2Fevil.example%2Fconsole%2F", url.Values{"email": {p.Email}, "password": {password}})
		if res.location() != "/console/" {
			t.Errorf("next to another site: to %q, want /console/", res.location())
		}
	})
}

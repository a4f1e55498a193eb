package console_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"larder.dev/larder/console"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// desk is a console served over HTTP for one test, on one database.
type desk struct {
	t      *testing.T
	st     *store.Store
	people *people.Service
	srv    *httptest.Server
	// now is the clock of sessions (advance it with desk.after).
	now atomic.Int64
}

// newDesk serves the console on st.
func newDesk(t *testing.T, st *store.Store) *desk { return newDeskTrusting(t, st, false) }

// after moves the sessions' clock on by dt.
func (d *desk) after(dt time.Duration) { d.now.Add(int64(dt)) }

// password is the password of every person the tests make.
const password = "correct horse battery"

// person makes a person of role in org with a password.
func (d *desk) person(orgID int, role people.Role) people.Person {
	d.t.Helper()
	ctx := context.Background()
	email := fmt.Sprintf("%s-%d-%d@example.com", role, orgID, time.Now().UnixNano())
	p, l, err := d.people.Invite(ctx, orgID, email, role)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.people.UseLink(ctx, l.Token, password, people.Client{Address: "192.0.2.1"}); err != nil {
		d.t.Fatal(err)
	}
	return p
}

// browser is one browser: its cookies, and no following of redirects (the
// tests look at them).
type browser struct {
	d   *desk
	c   *http.Client
	jar *cookiejar.Jar
}

// browser opens a browser without a session.
func (d *desk) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{d: d, jar: jar, c: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}}
}

// signedIn opens a browser signed in as a new person of role in org.
func (d *desk) signedIn(orgID int, role people.Role) (*browser, people.Person) {
	d.t.Helper()
	p := d.person(orgID, role)
	b := d.browser()
	res := b.post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}})
	if res.status != http.StatusSeeOther {
		d.t.Fatalf("sign in as %s: %d %s", role, res.status, res.body)
	}
	return b, p
}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   string
}

// location is where a redirect points, as a path.
func (a answer) location() string {
	u, err := url.Parse(a.header.Get("Location"))
	if err != nil {
		return a.header.Get("Location")
	}
	return u.RequestURI()
}

func (b *browser) do(req *http.Request) answer {
	b.d.t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		b.d.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: string(body)}
}

func (b *browser) get(path string) answer {
	b.d.t.Helper()
	req, _ := http.NewRequest("GET", b.d.srv.URL+path, nil)
	return b.do(req)
}

// post submits a form as the console's own page would (same origin).
func (b *browser) post(path string, form url.Values) answer {
	b.d.t.Helper()
	req, _ := http.NewRequest("POST", b.d.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.d.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.do(req)
}

// cookie is the value of the browser's cookie name for the console.
func (b *browser) cookie(name string) string {
	u, _ := url.Parse(b.d.srv.URL + "/console/")
	for _, c := range b.jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// newDeskTrusting serves the console believing X-Forwarded-* from the
// loopback peer of the tests when trusted.
func newDeskTrusting(t *testing.T, st *store.Store, trusted bool) *desk {
	t.Helper()
	return newDeskWith(t, st, func(o *console.Options) {
		if trusted {
			o.Trusted = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
		}
	})
}

// newDeskWith serves the console with the options set changes.
func newDeskWith(t *testing.T, st *store.Store, set func(*console.Options)) *desk {
	t.Helper()
	d := &desk{t: t, st: st}
	d.now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, d.now.Load()) }
	// argon2id at its lowest costs: the tests sign in hundreds of times on
	// shared cores (people's own tests check the real costs).
	d.people = people.New(st.Client, people.Options{Now: clock, Limiter: ratelimit.NewMemory(), Hash: people.HashParams{Memory: 256, Time: 1, Threads: 1}})
	o := console.Options{Client: st.Client, People: d.people, Webhooks: &webhooks.Registry{Client: st.Client, AllowPrivate: true, Now: clock}, Now: clock, Snapshot: st.Snapshot}
	d.srv = serveConsole(t, o, set)
	return d
}

// serveConsole serves a console with options o, as set changes them, on a
// test server whose address is the console's base URL unless set names
// another.
func serveConsole(t *testing.T, o console.Options, set func(*console.Options)) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	o.BaseURL = "http://" + srv.Listener.Addr().String()
	if set != nil {
		set(&o)
	}
	con, err := console.New(o)
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	srv.Config.Handler = con
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

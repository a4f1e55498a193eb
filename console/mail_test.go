package console_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/console"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
)

// mailbox is an SMTP server that keeps every message it is given.
type mailbox struct {
	ln   net.Listener
	mu   sync.Mutex
	msgs []string
}

// newMailbox listens on a loopback port until the test ends.
func newMailbox(t *testing.T) *mailbox {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &mailbox{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go m.serve(conn)
		}
	}()
	return m
}

// serve speaks as much SMTP as net/smtp's SendMail uses, without TLS or auth.
func (m *mailbox) serve(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	say := func(s string) { fmt.Fprint(conn, s+"\r\n") }
	say("220 mailbox ready")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 mailbox")
		case cmd == "DATA":
			say("354 end with a dot")
			var msg strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				msg.WriteString(l)
			}
			m.mu.Lock()
			m.msgs = append(m.msgs, msg.String())
			m.mu.Unlock()
			say("250 kept")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

// messages are the messages kept so far.
func (m *mailbox) messages() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.msgs...)
}

// With a mail server, an invitation's link is e-mailed as well as shown, the
// same link both ways, and the page says so; when the server is gone the
// link is still shown and the page says it could not be e-mailed.
func TestPeopleInviteMailsTheLink(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		box := newMailbox(t)
		mailer, err := people.NewMailer("smtp://" + box.ln.Addr().String() + "/?from=larder@example.com")
		if err != nil {
			t.Fatal(err)
		}
		d := &desk{t: t, st: st}
		d.now.Store(time.Now().UnixNano())
		clock := func() time.Time { return time.Unix(0, d.now.Load()) }
		d.people = people.New(st.Client, people.Options{Now: clock, Limiter: ratelimit.NewMemory(), Mailer: mailer})
		con, err := console.New(console.Options{Client: st.Client, People: d.people, Webhooks: &webhooks.Registry{Client: st.Client, Now: clock},
			Now: clock, BaseURL: "https://console.example.com/"})
		if err != nil {
			t.Fatal(err)
		}
		d.srv = httptest.NewServer(con)
		t.Cleanup(d.srv.Close)
		org := dbtest.NewOrg(t, st, "")
		admin, _ := d.signedIn(org.Org.ID, people.Admin)

		email := fmt.Sprintf("mailed-%d@example.com", time.Now().UnixNano())
		res := admin.post("/console/people", url.Values{"email": {email}, "role": {"viewer"}})
		if res.status != http.StatusOK || !strings.Contains(res.body, "It was e-mailed to "+email) {
			t.Fatalf("invite: %d\n%s", res.status, res.body)
		}
		_, shown := linkIn(t, res.body)
		if !strings.HasPrefix(shown, "https://console.example.com/console/welcome/") {
			t.Errorf("the link %q is not under the base URL", shown)
		}
		msgs := box.messages()
		if len(msgs) != 1 || !strings.Contains(msgs[0], "To: "+email+"\r\n") || !strings.Contains(msgs[0], "\r\n"+shown+"\r\n") {
			t.Fatalf("mailed %q, want the link %s to %s", msgs, shown, email)
		}

		box.ln.Close()
		res = admin.post("/console/people", url.Values{"email": {"x" + email}, "role": {"viewer"}})
		if res.status != http.StatusOK || !strings.Contains(res.body, "It could not be e-mailed") {
			t.Fatalf("invite without the mail server: %d\n%s", res.status, res.body)
		}
		linkIn(t, res.body)
	})
}

package people

import (
	"net/smtp"
	"strings"
	"testing"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// An invitation or reset link is e-mailed to its person under the console's
// address, with its purpose and end; without a mail server MailLink says so.
func TestMailLink(t *testing.T) {
	if m, err := NewMailer(""); m != nil || err != nil {
		t.Fatalf("no SMTP URL: %v %v", m, err)
	}
	if _, err := NewMailer("http://mail"); err == nil {
		t.Fatal("an http URL was taken for SMTP")
	}
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		addr := email("mail")
		_, l, err := f.s.Invite(f.ctx, f.org, addr, Viewer)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.s.MailLink(f.ctx, l, "https://c.example.com"); err != ErrNoMailer {
			t.Fatalf("without a mailer: %v", err)
		}
		m, err := NewMailer("smtp://mail.example.com:2525/?from=larder@example.com")
		if err != nil {
			t.Fatal(err)
		}
		var sent []string
		m.send = func(a string, _ smtp.Auth, from string, to []string, msg []byte) error {
			sent = append(sent, a+" "+from+" "+strings.Join(to, ",")+"\n"+string(msg))
			return nil
		}
		s := New(st.Client, Options{Now: f.clock.Now, Mailer: m, Hash: cheap})
		if err := s.MailLink(f.ctx, l, "https://c.example.com/"); err != nil {
			t.Fatal(err)
		}
		if len(sent) != 1 || !strings.HasPrefix(sent[0], "mail.example.com:2525 larder@example.com "+addr+"\n") ||
			!strings.Contains(sent[0], "\r\nhttps://c.example.com/console/welcome/"+l.Token+"\r\n") ||
			!strings.Contains(sent[0], "Subject: You are invited to Larder\r\n") {
			t.Fatalf("sent %q", sent)
		}
	})
}

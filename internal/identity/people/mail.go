package people

import (
	"context"
	"errors"
	"fmt"
	"net/smtp"
	"strings"
	"time"

	"larder.dev/larder/internal/platform/mail"
)

// Mailer e-mails one-time links through an SMTP server (the server's
// --smtp-url, as for webhook notices).
type Mailer struct {
	addr, from string
	auth       smtp.Auth
	// send is mail.Send, replaced in tests.
	send func(addr string, a smtp.Auth, from string, to []string, msg []byte) error
}

// NewMailer returns the Mailer of an SMTP URL
// (smtp://[user:pass@]host[:port]/?from=address), or nil when it is empty.
func NewMailer(smtpURL string) (*Mailer, error) {
	if smtpURL == "" {
		return nil, nil
	}
	addr, from, auth, err := mail.ParseSMTP(smtpURL)
	if err != nil {
		return nil, err
	}
	return &Mailer{addr: addr, from: from, auth: auth, send: mail.Send}, nil
}

// ErrNoMailer is a link to e-mail without a mail server: show it instead.
var ErrNoMailer = errors.New("no SMTP server is configured (--smtp-url): give the person the link yourself")

// MailLink e-mails a one-time link to its person, the link under baseURL
// (the console's address, no trailing slash). Without a Mailer
// (Options.Mailer) it is ErrNoMailer. The address was checked when the person was invited: it holds
// no line breaks, so it cannot add headers.
func (s *Service) MailLink(_ context.Context, l Link, baseURL string) error {
	if s.mailer == nil {
		return ErrNoMailer
	}
	if l.Token == "" {
		return ErrLinkInvalid
	}
	subject, what := "You are invited to Larder", "You have been invited to your organization's Larder console. Choose a password here:"
	if l.Purpose == "password_reset" {
		subject, what = "Set a new Larder password", "Someone asked for a new password for your Larder console. Choose one here:"
	}
	m := s.mailer
	body := mail.Compose(m.from, l.Person.Email, subject, s.clock(),
		what,
		"",
		strings.TrimRight(baseURL, "/")+LinkPath(l.Token),
		"",
		fmt.Sprintf("The link works once, until %s. If you did not expect it, ignore this message.", l.ExpiresAt.UTC().Format(time.RFC1123)),
	)
	return m.send(m.addr, m.auth, m.from, []string{l.Person.Email}, body)
}

// Package mail sends the server's few e-mails (one-time console links,
// notices of disabled webhook endpoints) through the SMTP server of
// --smtp-url, within a bounded time: a mail server that never answers fails
// the message instead of holding the request or worker that sends it.
package mail

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// Timeout bounds one message: connecting, the conversation and the data.
const Timeout = 30 * time.Second

// ParseSMTP checks an SMTP URL: smtp://[user:pass@]host[:port]/?from=address.
func ParseSMTP(raw string) (addr, from string, auth smtp.Auth, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", nil, fmt.Errorf("smtp url: %w", err)
	}
	if u.Scheme != "smtp" || u.Hostname() == "" {
		return "", "", nil, fmt.Errorf("smtp url must be smtp://[user:pass@]host[:port]/?from=address")
	}
	from = u.Query().Get("from")
	if from == "" {
		return "", "", nil, fmt.Errorf("smtp url needs ?from=address")
	}
	port := u.Port()
	if port == "" {
		port = "25"
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		auth = smtp.PlainAuth("", u.User.Username(), pass, u.Hostname())
	}
	return net.JoinHostPort(u.Hostname(), port), from, auth, nil
}

// Compose is a plain-text message: its headers, a blank line and the lines
// of its body, with CRLF line ends. The addresses and subject must hold no
// line break (the callers' addresses were checked when stored).
func Compose(from, to, subject string, date time.Time, body ...string) []byte {
	lines := []string{
		"From: " + from,
		"To: " + to,
		"Subject: " + subject,
		"Date: " + date.UTC().Format(time.RFC1123Z),
		"Content-Type: text/plain; charset=utf-8",
		"",
	}
	return []byte(strings.Join(append(lines, body...), "\r\n") + "\r\n")
}

// Send is smtp.SendMail within Timeout: it connects to addr, upgrades to
// TLS when the server offers STARTTLS, authenticates with a when given, and
// sends msg from from to every address of to.
func Send(addr string, a smtp.Auth, from string, to []string, msg []byte) error {
	return send(addr, a, from, to, msg, Timeout)
}

func send(addr string, a smtp.Auth, from string, to []string, msg []byte, timeout time.Duration) error {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host}); err != nil {
			return err
		}
	}
	if a != nil {
		if ok, _ := c.Extension("AUTH"); ok {
			if err := c.Auth(a); err != nil {
				return err
			}
		}
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

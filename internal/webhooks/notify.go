package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"net/smtp"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/platform/mail"
)

// Notifier tells an endpoint's owner that it was disabled for failing.
type Notifier interface {
	EndpointDisabled(ctx context.Context, ep *ent.WebhookEndpoint) error
}

// LogNotifier only logs (LARDER_SMTP_URL unset).
type LogNotifier struct{ Log *slog.Logger }

// EndpointDisabled logs the notice.
func (n LogNotifier) EndpointDisabled(_ context.Context, ep *ent.WebhookEndpoint) error {
	n.Log.Warn("webhooks: no SMTP server configured (LARDER_SMTP_URL); owner not e-mailed",
		"endpoint", ep.ID, "email", ep.Email)
	return nil
}

// Mailer e-mails the owner (the endpoint's email) through an SMTP server.
type Mailer struct {
	addr, from string
	auth       smtp.Auth
	log        *slog.Logger
	// send is mail.Send (replaced in tests).
	send func(addr string, a smtp.Auth, from string, to []string, msg []byte) error
}

// NewNotifier returns a Mailer for an SMTP URL, or a LogNotifier when it is empty.
func NewNotifier(smtpURL string, log *slog.Logger) (Notifier, error) {
	if smtpURL == "" {
		return LogNotifier{Log: log}, nil
	}
	addr, from, auth, err := mail.ParseSMTP(smtpURL)
	if err != nil {
		return nil, err
	}
	return &Mailer{addr: addr, from: from, auth: auth, log: log, send: mail.Send}, nil
}

// EndpointDisabled e-mails the endpoint's owner; an endpoint without an e-mail
// is logged.
func (m *Mailer) EndpointDisabled(_ context.Context, ep *ent.WebhookEndpoint) error {
	if ep.Email == "" {
		m.log.Warn("webhooks: disabled endpoint has no owner e-mail (webhook update --email)", "endpoint", ep.ID)
		return nil
	}
	since := "-"
	if ep.FailingSince != nil {
		since = ep.FailingSince.UTC().Format(time.RFC3339)
	}
	body := mail.Compose(m.from, ep.Email, "Larder webhook endpoint "+fmt.Sprint(ep.ID)+" disabled", time.Now(),
		fmt.Sprintf("Your webhook endpoint %d (%s) failed every delivery since %s and has been disabled.", ep.ID, ep.URL, since),
		"Nothing was deleted: deliveries are kept and resume when you enable it again",
		fmt.Sprintf("(larder webhook enable --endpoint %d).", ep.ID),
	)
	return m.send(m.addr, m.auth, m.from, []string{ep.Email}, body)
}

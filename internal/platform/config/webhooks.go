package config

import (
	"net/url"
)

// webhookOptions are the settings of webhook delivery.
func (c *Config) webhookOptions() map[string]option {
	return map[string]option{
		"webhooks":               {"webhooks", "LARDER_WEBHOOKS", "run the webhook dispatcher in serve", boolean(&c.Webhooks), setBool(&c.Webhooks)},
		"webhook-retry-interval": {"webhook-retry-interval", "LARDER_WEBHOOK_RETRY_INTERVAL", "time between the three retries of a webhook delivery", dur(&c.WebhookRetryInterval), setDur(&c.WebhookRetryInterval)},
		"webhook-disable-after":  {"webhook-disable-after", "LARDER_WEBHOOK_DISABLE_AFTER", "disable a webhook endpoint that failed every delivery this long", dur(&c.WebhookDisableAfter), setDur(&c.WebhookDisableAfter)},
		"webhook-allow-private":  {"webhook-allow-private", "LARDER_WEBHOOK_ALLOW_PRIVATE", "allow webhook endpoints on plain http and private addresses (development only)", boolean(&c.WebhookAllowPrivate), setBool(&c.WebhookAllowPrivate)},
		"webhook-poll-interval":  {"webhook-poll-interval", "LARDER_WEBHOOK_POLL_INTERVAL", "how often the webhook dispatcher looks for due retries and missed events (it wakes at each commit of events too)", dur(&c.WebhookPollInterval), setDur(&c.WebhookPollInterval)},
		"smtp-url":               {"smtp-url", "LARDER_SMTP_URL", "SMTP server for disabled-endpoint notices: smtp://user:pass@host:port/?from=address (logged when empty)", str(&c.SMTPURL), setStr(&c.SMTPURL)},
	}
}

// validateWebhooks refuses webhook settings that cannot work.
func (c *Config) validateWebhooks() []string {
	var errs []string
	if c.WebhookRetryInterval <= 0 {
		errs = append(errs, "webhook-retry-interval must be positive")
	}
	if c.WebhookDisableAfter <= 0 {
		errs = append(errs, "webhook-disable-after must be positive")
	}
	if c.WebhookPollInterval <= 0 {
		errs = append(errs, "webhook-poll-interval must be positive")
	}
	if c.SMTPURL != "" {
		u, err := url.Parse(c.SMTPURL)
		if err != nil || u.Scheme != "smtp" || u.Hostname() == "" || u.Query().Get("from") == "" {
			errs = append(errs, "smtp-url must be smtp://[user:pass@]host[:port]/?from=address")
		}
	}
	return errs
}

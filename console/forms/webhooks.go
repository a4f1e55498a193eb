package forms

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// Limits of the endpoint form (the database sets none; the console does).
const (
	MaxURL         = 2048
	MaxDescription = 500
	MaxEmail       = 254
)

// Graces are the grace periods a secret's rotation offers, in the order
// shown; DefaultGrace is the one preselected (a day to deploy the new
// secret).
var Graces = []Choice{
	{"0s", "None: the old secret stops signing now"},
	{"1h0m0s", "1 hour"},
	{"24h0m0s", "24 hours"},
	{"72h0m0s", "3 days"},
	{"168h0m0s", "7 days"},
}

// DefaultGrace is the grace preselected.
const DefaultGrace = "24h0m0s"

// SinceLayout is the value of a datetime-local field, read as UTC.
const SinceLayout = "2006-01-02T15:04"

// Endpoint is the endpoint form (create and edit).
type Endpoint struct {
	URL, Description, Email string
	// Types is nil for every event type.
	Types []string
}

// ParseEndpoint reads the endpoint form: a URL checkURL accepts (the
// registry's check, which may resolve its host), at most MaxURL
// characters; a description and an e-mail address within their limits;
// all events, or only the chosen known types.
func ParseEndpoint(v url.Values, checkURL func(string) error) (Endpoint, Errors) {
	var errs Errors
	in := Endpoint{URL: get(v, "url"), Description: get(v, "description"), Email: get(v, "email")}
	switch {
	case in.URL == "":
		errs.Add("url", "Enter the URL events are posted to, starting with https://.")
	case len(in.URL) > MaxURL:
		errs.Add("url", fmt.Sprintf("Use at most %d characters.", MaxURL))
	default:
		if err := checkURL(in.URL); err != nil {
			errs.Add("url", URLProblem(err))
		}
	}
	if len(in.Description) > MaxDescription {
		errs.Add("description", fmt.Sprintf("Use at most %d characters.", MaxDescription))
	}
	switch {
	case len(in.Email) > MaxEmail:
		errs.Add("email", fmt.Sprintf("Use at most %d characters.", MaxEmail))
	case webhooks.CheckEmail(in.Email) != nil:
		errs.Add("email", "Enter an e-mail address such as ops@example.com, or leave it empty.")
	}
	switch get(v, "events") {
	case "all":
	case "only":
		chosen := v["types"]
		if len(chosen) == 0 {
			errs.Add("types", "Choose at least one event type, or choose All events.")
			break
		}
		types, err := webhooks.EventTypes(chosen)
		if err != nil {
			errs.Add("types", "Choose event types from the list: "+err.Error()+".")
			break
		}
		in.Types = types
	default:
		errs.Add("events", "Choose All events or Only these.")
	}
	return in, errs
}

// ParseEndpointEnv reads the create form's environment: live or test.
func ParseEndpointEnv(v url.Values) (policy.Environment, Errors) {
	var errs Errors
	env := policy.Environment(get(v, "env"))
	if env != policy.Live && env != policy.Test {
		errs.Add("env", "Choose Live or Test.")
	}
	return env, errs
}

// ParseSecretRotation reads the rotate-secret form: one of Graces.
func ParseSecretRotation(v url.Values) (time.Duration, Errors) {
	var errs Errors
	x := get(v, "grace")
	d, err := time.ParseDuration(x)
	if err != nil || !offers(Graces, x) {
		errs.Add("grace", "Choose how long the old secret keeps signing.")
		return 0, errs
	}
	return d, errs
}

// ParseResend reads the resend-failed form: a date and time (UTC) in
// SinceLayout.
func ParseResend(v url.Values) (time.Time, Errors) {
	var errs Errors
	x := get(v, "since")
	since, err := time.ParseInLocation(SinceLayout, x, time.UTC)
	switch {
	case x == "":
		errs.Add("since", "Enter the date and time (UTC) from which failed deliveries are sent again.")
	case err != nil:
		errs.Add("since", "Enter a date and time such as 2026-03-01T09:00 (UTC).")
	}
	return since, errs
}

// URLProblem says why an endpoint URL was refused.
func URLProblem(err error) string {
	var blocked *webhooks.BlockedError
	if errors.As(err, &blocked) && blocked.Resolved {
		// What the server's resolver answers is not the person's to learn.
		return "This address is not public: the host resolves to a private, loopback or link-local address. Endpoints must be reachable on the internet."
	}
	if errors.As(err, &blocked) {
		return fmt.Sprintf("This address is not public: %s is a private, loopback or link-local address. Endpoints must be reachable on the internet.", blocked.Addr)
	}
	return "This URL cannot be used: " + err.Error() + "."
}

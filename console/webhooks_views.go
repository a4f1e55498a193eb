// What the webhook pages show: their data types, an endpoint's rows and its
// deliveries.

package console

import (
	"fmt"
	"html/template"
	"net/url"
	"strconv"
	"time"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/ent"
	"larder.dev/larder/internal/webhooks"
)

// endpointRow is an endpoint as the pages show it.
type endpointRow struct {
	*ent.WebhookEndpoint
	Env    string
	Health webhooks.Health
	// Chart is its deliveries per day over the last 30 days.
	Chart *barChart
}

// AllEvents reports whether the endpoint receives every event type.
func (e endpointRow) AllEvents() bool { return len(e.EventTypes) == 0 }

// webhooksView is the list page's data.
type webhooksView struct {
	// Env is the environment the console shows; Rows are its endpoints.
	Env  string
	Rows []endpointRow
	// Types are the event types an endpoint may choose.
	Types    []string
	CanWrite bool
	// Created is the endpoint just registered, with its secret (shown once).
	Created *endpointRow
	Secret  string
}

// endpointView is the endpoint page's data.
type endpointView struct {
	endpointRow
	Types    []string
	Graces   []forms.Choice
	CanWrite bool
	// CanResend is whether single deliveries can be resent here (the
	// console has a dispatcher).
	CanResend bool
	// Secret is the new secret right after a rotation (shown once), and
	// PreviousUntil when the old one stops signing.
	Secret        string
	PreviousUntil *time.Time
	Log           logView
}

// logView is one page of the delivery log and its filters.
type logView struct {
	Deliveries []deliveryRow
	Outcome    string
	Type       string
	// FilterTypes are the types the filter offers (ping included).
	FilterTypes []string
	Outcomes    []string
	// Error is a filter's problem, shown next to it.
	Error string
	// Before is the cursor of this page (0 for the newest); Next is the
	// link to the next older page, empty when this is the last.
	Before int
	Next   template.URL
	// First is the link to the newest page with the same filters.
	First template.URL
	// Filtered is whether a filter narrows the log.
	Filtered bool
}

// deliveryRow is a delivery of the log.
type deliveryRow struct {
	ID        int
	EventID   string
	Type      string
	Outcome   string
	Badge     string
	CreatedAt time.Time
	// Due is when a pending delivery's next attempt is due.
	Due      *time.Time
	Attempts []attemptRow
}

// attemptRow is one post of a delivery.
type attemptRow struct {
	At       time.Time
	Trigger  string
	OK       bool
	Status   string
	Duration string
	Error    string
	Response string
	Body     string
	Headers  []string
}

// triggers name what caused an attempt.
var triggers = map[string]string{"schedule": "Scheduled", "resend": "Resent", "ping": "Test event"}

// endpointValues are the edit form's values as the endpoint has them.
func endpointValues(ep *ent.WebhookEndpoint) url.Values {
	v := url.Values{"url": {ep.URL}, "description": {ep.Description}, "email": {ep.Email}, "events": {"all"}, "grace": {defaultGrace}}
	if len(ep.EventTypes) > 0 {
		v["events"] = []string{"only"}
		v["types"] = append([]string(nil), ep.EventTypes...)
	}
	return v
}

// queryOf is v as a query string, with its "?" (empty without values).
func queryOf(v url.Values) string {
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// deliveryRowOf is a delivery as the log shows it.
func deliveryRowOf(d webhooks.Delivery) deliveryRow {
	row := deliveryRow{ID: d.ID, Outcome: string(d.Outcome), CreatedAt: d.CreatedAt}
	if d.Event != nil {
		row.EventID, row.Type = d.Event.EventID, d.Event.Type
	}
	switch d.Outcome {
	case webhooks.OutcomeSucceeded:
		row.Badge = "ok"
	case webhooks.OutcomeFailed:
		row.Badge = "bad"
	default:
		row.Badge = "warn"
	}
	if d.Outcome != webhooks.OutcomeSucceeded && d.Status == "pending" {
		due := d.NextAttemptAt
		row.Due = &due
	}
	for _, a := range d.Attempts {
		ar := attemptRow{At: a.AttemptedAt, Trigger: triggers[string(a.Trigger)], OK: a.Success, Status: "no answer",
			Duration: fmt.Sprintf("%d ms", a.DurationMs), Response: a.ResponseBody, Body: a.RequestBody}
		if a.ResponseStatus != nil {
			ar.Status = strconv.Itoa(*a.ResponseStatus)
		}
		if a.Error != nil {
			ar.Error = *a.Error
		}
		for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			if v, ok := a.RequestHeaders[k]; ok {
				ar.Headers = append(ar.Headers, k+": "+v)
			}
		}
		row.Attempts = append(row.Attempts, ar)
	}
	return row
}

// answerOf says how an attempt was answered.
func answerOf(a *ent.WebhookAttempt) string {
	switch {
	case a.ResponseStatus != nil:
		return fmt.Sprintf("answered %d in %d ms", *a.ResponseStatus, a.DurationMs)
	case a.Error != nil:
		return "no answer (" + truncate(*a.Error, 200) + ")"
	}
	return "no answer"
}

package console

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/ent"
	"larder.dev/larder/internal/platform/missing"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// webhookRoutes are the webhook endpoints of the organization and each
// endpoint's delivery log.
func (s *Server) webhookRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/webhooks", Nav: "Webhooks", Summary: "the organization's webhook endpoints, live and test, with their event types and health (never a signing secret)", serve: s.webhooks},
		{Method: "POST", Path: "/console/webhooks", Roles: Writers, Summary: "register a webhook endpoint (public HTTPS addresses only); its signing secret is shown once in the answer", serve: s.createWebhook},
		{Method: "GET", Path: "/console/webhooks/{id}", Summary: "one endpoint: its settings, health and delivery log, with the signed bodies sent and the start of each answer (never the signing secret)", serve: s.webhook},
		{Method: "POST", Path: "/console/webhooks/{id}", Roles: Writers, Summary: "change an endpoint's URL, description, owner e-mail address or event types", serve: s.updateWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/disable", Roles: Writers, Summary: "stop deliveries to an endpoint (nothing is deleted; pending deliveries wait)", serve: s.disableWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/enable", Roles: Writers, Summary: "resume deliveries to an endpoint, pending ones first", serve: s.enableWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/rotate-secret", Roles: Writers, Summary: "give an endpoint a new signing secret, shown once; the old one also signs for the grace period chosen (at most 7 days)", serve: s.rotateWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/delete", Roles: Writers, Summary: "delete an endpoint with its delivery log (confirmed with a checkbox)", serve: s.deleteWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/ping", Roles: Writers, Summary: "queue a signed test event (ping) to an endpoint for the dispatcher and show its answer", serve: s.pingWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/resend-failed", Roles: Writers, Summary: "queue again every failed delivery of an endpoint since a time, for the dispatcher to send", serve: s.resendFailed},
		{Method: "POST", Path: "/console/webhooks/{id}/deliveries/{delivery}/resend", Roles: Writers, Summary: "post one delivery of an endpoint again now (same event id and body, a fresh signature)", serve: s.resendDelivery},
	}
}

// logPage is the deliveries one page of the log shows.
const logPage = 25

// defaultPingWait is how long the test button waits for the dispatcher.
const defaultPingWait = 10 * time.Second

// graces are the grace periods a rotation offers, in the order shown.
var graces = forms.Graces

// defaultGrace is the grace preselected: a day to deploy the new secret.
const defaultGrace = forms.DefaultGrace

// canWrite reports whether the signed-in person may change endpoints.
func canWrite(c *caller) bool { return slices.Contains(Writers, c.Me.Person.Role) }

// endpointRow is an endpoint as the pages show it.
type endpointRow struct {
	*ent.WebhookEndpoint
	Env    string
	Health webhooks.Health
}

// AllEvents reports whether the endpoint receives every event type.
func (e endpointRow) AllEvents() bool { return len(e.EventTypes) == 0 }

// webhooksView is the list page's data.
type webhooksView struct {
	Live, Test []endpointRow
	// Types are the event types an endpoint may choose.
	Types    []string
	CanWrite bool
	// Created is the endpoint just registered, with its secret (shown once).
	Created *endpointRow
	Secret  string
}

func (s *Server) webhooks(w http.ResponseWriter, r *http.Request, c *caller) {
	s.webhooksPage(w, r, c, http.StatusOK, newForm(url.Values{"env": {"live"}, "events": {"all"}}), nil, "")
}

// webhooksPage renders the list of endpoints with the create form f and,
// right after a registration, the new endpoint's secret.
func (s *Server) webhooksPage(w http.ResponseWriter, r *http.Request, c *caller, status int, f *form, created *endpointRow, secret string) {
	eps, err := s.o.Webhooks.List(c.ctx, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	health, err := s.o.Webhooks.Health(c.ctx, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v := webhooksView{Types: webhooks.Catalogue(), CanWrite: canWrite(c), Created: created, Secret: secret}
	for _, ep := range eps {
		row := endpointRow{WebhookEndpoint: ep, Env: string(ep.Edges.Account.Environment), Health: health[ep.ID]}
		if row.Env == string(policy.Test) {
			v.Test = append(v.Test, row)
		} else {
			v.Live = append(v.Live, row)
		}
	}
	webhooksTemplate.render(s, w, r, c, status, "Webhooks", f, v)
}

// endpointInput is what the endpoint form asks.
type endpointInput = forms.Endpoint

// readEndpoint checks the endpoint form's fields (forms.ParseEndpoint, with
// the registry's check of the URL).
func (s *Server) readEndpoint(ctx context.Context, f *form) endpointInput {
	in, errs := forms.ParseEndpoint(f.values, func(u string) error { return s.o.Webhooks.CheckURL(ctx, u) })
	f.add(errs)
	return in
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	env, errs := forms.ParseEndpointEnv(f.values)
	if f.OK() {
		f.add(errs)
	}
	in := endpointInput{}
	if f.Error("") == "" {
		in = s.readEndpoint(c.ctx, f)
	}
	if !f.OK() {
		s.webhooksPage(w, r, c, http.StatusBadRequest, f, nil, "")
		return
	}
	ep, err := s.o.Webhooks.Create(c.ctx, c.orgID(), env, in.URL, in.Email, in.Description, in.Types)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	created := &endpointRow{WebhookEndpoint: ep, Env: string(env), Health: webhooks.Health{State: webhooks.StateHealthy}}
	s.webhooksPage(w, r, c, http.StatusOK, newForm(url.Values{"env": {string(env)}, "events": {"all"}}), created, ep.Secret)
}

// endpointID is the endpoint the path names; a malformed id does not exist.
func endpointID(r *http.Request) (int, error) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id <= 0 {
		return 0, missing.Errorf("webhook endpoint %q does not exist", r.PathValue("id"))
	}
	return id, nil
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

// loadEndpoint is the endpoint the path names, of the caller's organization.
func (s *Server) loadEndpoint(r *http.Request, c *caller) (endpointRow, error) {
	id, err := endpointID(r)
	if err != nil {
		return endpointRow{}, err
	}
	ep, err := s.o.Webhooks.Get(c.ctx, c.orgID(), id)
	if err != nil {
		return endpointRow{}, err
	}
	h, err := s.o.Webhooks.Health(c.ctx, c.orgID(), id)
	if err != nil {
		return endpointRow{}, err
	}
	env := string(policy.Live)
	eps, err := s.o.Webhooks.List(c.ctx, c.orgID())
	if err != nil {
		return endpointRow{}, err
	}
	for _, e := range eps {
		if e.ID == id {
			env = string(e.Edges.Account.Environment)
		}
	}
	return endpointRow{WebhookEndpoint: ep, Env: env, Health: h[id]}, nil
}

// endpointValues are the edit form's values as the endpoint has them.
func endpointValues(ep *ent.WebhookEndpoint) url.Values {
	v := url.Values{"url": {ep.URL}, "description": {ep.Description}, "email": {ep.Email}, "events": {"all"}, "grace": {defaultGrace}}
	if len(ep.EventTypes) > 0 {
		v["events"] = []string{"only"}
		v["types"] = append([]string(nil), ep.EventTypes...)
	}
	return v
}

func (s *Server) webhook(w http.ResponseWriter, r *http.Request, c *caller) {
	s.endpointPage(w, r, c, http.StatusOK, nil, "")
}

// endpointPage renders an endpoint's page. f is a submitted form with its
// errors (nil: the endpoint's own values); the fields it lacks show the
// endpoint's values. secret is a secret just made, shown once.
func (s *Server) endpointPage(w http.ResponseWriter, r *http.Request, c *caller, status int, f *form, secret string) {
	row, err := s.loadEndpoint(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if f == nil {
		f = newForm(nil)
	}
	if f.values.Get("url") == "" && f.values.Get("events") == "" {
		for k, v := range endpointValues(row.WebhookEndpoint) {
			if _, ok := f.values[k]; !ok {
				f.values[k] = v
			}
		}
	}
	if f.values.Get("grace") == "" {
		f.values.Set("grace", defaultGrace)
	}
	if f.values.Get("since") == "" {
		f.values.Set("since", s.o.Now().UTC().Add(-24*time.Hour).Format(sinceLayout))
	}
	v := endpointView{endpointRow: row, Types: webhooks.Catalogue(), Graces: graces, CanWrite: canWrite(c),
		CanResend: s.o.Dispatcher != nil, Secret: secret}
	if secret != "" {
		v.PreviousUntil = row.PreviousSecretExpiresAt
	}
	lg, ok, err := s.deliveryLog(r, c, row.ID)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if !ok && status == http.StatusOK {
		status = http.StatusBadRequest
	}
	v.Log = lg
	webhookTemplate.render(s, w, r, c, status, "Endpoint "+row.URL, f, v)
}

// deliveryLog reads the page of the log the query asks for; ok is false when
// a filter is not valid (the log is then shown unfiltered, the problem next
// to the filter).
func (s *Server) deliveryLog(r *http.Request, c *caller, id int) (logView, bool, error) {
	q := r.URL.Query()
	if r.Method != http.MethodGet {
		q = url.Values{}
	}
	lg := logView{
		Outcome:     strings.TrimSpace(q.Get("outcome")),
		Type:        strings.TrimSpace(q.Get("type")),
		FilterTypes: append(webhooks.Catalogue(), webhooks.PingType),
		Outcomes:    []string{string(webhooks.OutcomeFailed), string(webhooks.OutcomeSucceeded), string(webhooks.OutcomePending)},
	}
	slices.Sort(lg.FilterTypes)
	ok := true
	flt := webhooks.DeliveryFilter{Limit: logPage}
	if lg.Outcome != "" {
		o, err := webhooks.ParseOutcome(lg.Outcome)
		if err != nil {
			lg.Error, ok = "Choose an outcome from the list.", false
			lg.Outcome = ""
		}
		flt.Outcome = o
	}
	if lg.Type != "" {
		if !slices.Contains(lg.FilterTypes, lg.Type) {
			lg.Error, ok = "Choose an event type from the list.", false
			lg.Type = ""
		}
		flt.Type = lg.Type
	}
	if b := q.Get("before"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n <= 0 {
			lg.Error, ok = "That page of the log does not exist; here is the newest.", false
		} else {
			flt.Before, lg.Before = n, n
		}
	}
	lg.Filtered = flt.Outcome != "" || flt.Type != ""
	ds, err := s.o.Webhooks.Deliveries(c.ctx, c.orgID(), id, flt)
	if err != nil {
		return lg, ok, err
	}
	for _, d := range ds {
		lg.Deliveries = append(lg.Deliveries, deliveryRowOf(d))
	}
	keep := url.Values{}
	if flt.Outcome != "" {
		keep.Set("outcome", string(flt.Outcome))
	}
	if flt.Type != "" {
		keep.Set("type", flt.Type)
	}
	// Built from ids and values checked above, so safe as a link.
	lg.First = template.URL(endpointPath(id) + queryOf(keep))
	if len(ds) == logPage {
		keep.Set("before", strconv.Itoa(ds[len(ds)-1].ID))
		lg.Next = template.URL(endpointPath(id) + queryOf(keep))
	}
	return lg, ok, nil
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

func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	id, err := endpointID(r)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	cur, err := s.o.Webhooks.Get(c.ctx, c.orgID(), id)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	in := endpointInput{}
	if f.Error("") == "" {
		in = s.readEndpoint(c.ctx, f)
	}
	if !f.OK() {
		s.endpointPage(w, r, c, http.StatusBadRequest, f, "")
		return
	}
	// Only what differs is changed, so that the audit history names it.
	var ch webhooks.Change
	changed := false
	if in.URL != cur.URL {
		ch.URL, changed = &in.URL, true
	}
	if in.Description != cur.Description {
		ch.Description, changed = &in.Description, true
	}
	if in.Email != cur.Email {
		ch.Email, changed = &in.Email, true
	}
	if !slices.Equal(in.Types, cur.EventTypes) {
		types := in.Types
		if types == nil {
			types = []string{}
		}
		ch.EventTypes, changed = &types, true
	}
	if !changed {
		s.redirect(w, r, c, endpointPath(id), "Nothing changed.")
		return
	}
	if _, err := s.o.Webhooks.Update(c.ctx, c.orgID(), id, ch); err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, endpointPath(id), "The endpoint is saved.")
}

// endpointPath is the page of endpoint id.
func endpointPath(id int) string { return Prefix + "webhooks/" + strconv.Itoa(id) }

func (s *Server) disableWebhook(w http.ResponseWriter, r *http.Request, c *caller) {
	id, err := endpointID(r)
	if err == nil {
		_, err = s.o.Webhooks.Disable(c.ctx, c.orgID(), id)
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, endpointPath(id), "The endpoint is disabled: nothing is sent to it; new deliveries wait until it is enabled.")
}

func (s *Server) enableWebhook(w http.ResponseWriter, r *http.Request, c *caller) {
	id, err := endpointID(r)
	if err == nil {
		_, err = s.o.Webhooks.Enable(c.ctx, c.orgID(), id)
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, endpointPath(id), "The endpoint is enabled: waiting deliveries are sent first.")
}

func (s *Server) rotateWebhook(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	id, err := endpointID(r)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if _, err := s.o.Webhooks.Get(c.ctx, c.orgID(), id); err != nil {
		s.fail(w, r, c, err)
		return
	}
	grace, errs := forms.ParseSecretRotation(f.values)
	if f.OK() {
		f.add(errs)
	}
	if !f.OK() {
		s.endpointPage(w, r, c, http.StatusBadRequest, f, "")
		return
	}
	ep, err := s.o.Webhooks.RotateSecret(c.ctx, c.orgID(), id, grace)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.endpointPage(w, r, c, http.StatusOK, nil, ep.Secret)
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	row, err := s.loadEndpoint(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if f.OK() {
		f.add(forms.ParseEndpointDeletion(f.values))
	}
	if !f.OK() {
		s.endpointPage(w, r, c, http.StatusBadRequest, f, "")
		return
	}
	if err := s.o.Webhooks.Delete(c.ctx, c.orgID(), row.ID); err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, Prefix+"webhooks", fmt.Sprintf("The endpoint %s is deleted with its delivery log.", row.URL))
}

func (s *Server) pingWebhook(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	row, err := s.loadEndpoint(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if !row.Enabled {
		f.Fail("ping", "Enable the endpoint first: nothing is sent to a disabled endpoint.")
		s.endpointPage(w, r, c, http.StatusBadRequest, f, "")
		return
	}
	_, del, err := s.o.Webhooks.Ping(c.ctx, c.orgID(), row.ID)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	wait := s.o.PingWait
	if wait <= 0 {
		wait = defaultPingWait
	}
	ctx, cancel := context.WithTimeout(c.ctx, wait)
	defer cancel()
	a, err := s.o.Webhooks.WaitPing(ctx, c.orgID(), del.ID, 200*time.Millisecond)
	var msg string
	switch {
	case err == nil:
		msg = "Test event sent: " + answerOf(a) + "."
	case errors.Is(err, webhooks.ErrPingNotSent):
		msg = fmt.Sprintf("No dispatcher sent the test event within %s, so it was withdrawn. Check that the server runs with webhooks on (or that `larder webhook worker` runs), then try again.", wait)
	case ctx.Err() != nil && c.ctx.Err() == nil:
		msg = "The test event is being sent; its answer will show in the delivery log."
	default:
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, endpointPath(row.ID), msg)
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

// sinceLayout is the value of a datetime-local field, read as UTC.
const sinceLayout = forms.SinceLayout

func (s *Server) resendFailed(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	row, err := s.loadEndpoint(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	since, errs := forms.ParseResend(f.values)
	if f.OK() {
		f.add(errs)
		if f.OK() && !row.Enabled {
			f.Fail("since", "Enable the endpoint first: nothing is sent to a disabled endpoint.")
		}
	}
	if !f.OK() {
		s.endpointPage(w, r, c, http.StatusBadRequest, f, "")
		return
	}
	n, err := s.o.Webhooks.ResendFailed(c.ctx, c.orgID(), row.ID, since)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	msg := fmt.Sprintf("%d failed deliveries since %s queued; the dispatcher sends them within seconds.", n, stamp(since))
	switch n {
	case 0:
		msg = fmt.Sprintf("No failed delivery since %s to queue.", stamp(since))
	case 1:
		msg = fmt.Sprintf("1 failed delivery since %s queued; the dispatcher sends it within seconds.", stamp(since))
	}
	if n == webhooks.MaxResend {
		msg += fmt.Sprintf(" At most %d are queued at once: queue again for the rest.", webhooks.MaxResend)
	}
	s.redirect(w, r, c, endpointPath(row.ID), msg)
}

func (s *Server) resendDelivery(w http.ResponseWriter, r *http.Request, c *caller) {
	id, err := endpointID(r)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	delID, err := strconv.Atoi(r.PathValue("delivery"))
	if err != nil || delID <= 0 {
		s.fail(w, r, c, missing.Errorf("webhook delivery %q does not exist", r.PathValue("delivery")))
		return
	}
	// The delivery must be this endpoint's (and so the organization's):
	// the log's page that starts at it.
	ds, err := s.o.Webhooks.Deliveries(c.ctx, c.orgID(), id, webhooks.DeliveryFilter{Before: delID + 1, Limit: 1})
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if len(ds) == 0 || ds[0].ID != delID {
		s.fail(w, r, c, missing.Errorf("webhook delivery %d does not exist", delID))
		return
	}
	if s.o.Dispatcher == nil {
		s.showError(w, r, c, http.StatusServiceUnavailable, "Not available", "This server resends no single delivery; resend the failed ones since a time, or use `larder webhook resend`.")
		return
	}
	a, err := s.o.Dispatcher.Resend(c.ctx, c.orgID(), delID)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, endpointPath(id), fmt.Sprintf("Delivery %d resent: %s.", delID, answerOf(a)))
}

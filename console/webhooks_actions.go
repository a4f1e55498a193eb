// The webhook pages' actions: creating, changing, disabling, enabling,
// rotating, deleting, pinging an endpoint and resending deliveries.

package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

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
	if !f.OK() {
		s.confirmDeleteWebhook(w, r, c, http.StatusBadRequest, f)
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
		s.fail(w, r, c, policy.Missingf("webhook delivery %q does not exist", r.PathValue("delivery")))
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
		s.fail(w, r, c, policy.Missingf("webhook delivery %d does not exist", delID))
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

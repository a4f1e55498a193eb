// The webhook pages that read: the endpoints, one endpoint and its delivery
// log.

package console

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

func (s *Server) webhooks(w http.ResponseWriter, r *http.Request, c *caller) {
	s.webhooksPage(w, r, c, http.StatusOK, newForm(url.Values{"env": {c.env}, "events": {"all"}}), nil, "")
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
	since, until := deliveryWindow(s.o.Now())
	days, err := s.o.Webhooks.DeliveryDays(c.ctx, c.orgID(), since, until)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v := webhooksView{Types: webhooks.Catalogue(), CanWrite: canWrite(c), Created: created, Secret: secret, Env: c.env}
	for _, ep := range eps {
		row := endpointRow{WebhookEndpoint: ep, Env: string(ep.Edges.Account.Environment), Health: health[ep.ID],
			Chart: deliveryChart(ep.ID, ep.URL, days[ep.ID], true)}
		if row.Env == c.env {
			// The endpoints of the environment the console shows.
			v.Rows = append(v.Rows, row)
		}
	}
	webhooksTemplate.render(s, w, r, c, status, "Webhooks", f, v)
}

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
	since, until := deliveryWindow(s.o.Now())
	days, err := s.o.Webhooks.DeliveryDays(c.ctx, c.orgID(), since, until)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v.Chart = deliveryChart(row.ID, row.URL, days[row.ID], false)
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

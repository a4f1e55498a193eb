// The request log's handlers: the filtered list and one request.

package console

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/policy"
)

func (s *Server) requests(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	keys, err := auth.ListKeys(c.ctx, s.o.Client, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if rid := f.Get("request_id"); rid != "" {
		s.findRequest(w, r, c, f, rid, keys)
		return
	}
	v, filter := s.requestsForm(f)
	choices, labels := keyLabels(keys, policy.Environment(v.Env), s.o.Now())
	v.Keys = choices
	if filter.KeyID != 0 && !slices.ContainsFunc(choices, func(k keyChoice) bool { return k.ID == filter.KeyID }) {
		f.Fail("key", fmt.Sprintf("The organization has no %s key of that id; choose one from the list.", v.Env))
	}
	if !f.OK() {
		requestsTemplate.render(s, w, r, c, http.StatusBadRequest, "Requests", f, v)
		return
	}
	rows, err := reqlog.List(c.ctx, s.o.Client, c.orgID(), policy.Environment(v.Env), filter)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if len(rows) > requestsPage {
		rows = rows[:requestsPage]
		v.Older = requestsLink(v.Env, f, strconv.Itoa(rows[len(rows)-1].ID))
	}
	if !v.Paged {
		if v.Charts, err = requestCharts(c.ctx, s.o.Client, c.orgID(), policy.Environment(v.Env), s.o.Now()); err != nil {
			s.fail(w, r, c, err)
			return
		}
	}
	v.Rows = make([]requestRow, len(rows))
	for i, row := range rows {
		v.Rows[i] = requestRow{APIRequest: row, Key: keyLabel(labels, row.APIKeyID), Duration: duration(row.DurationUs), Link: requestDetailPath(row.ID, v.Env)}
	}
	requestsTemplate.render(s, w, r, c, http.StatusOK, "Requests", f, v)
}

// requestsLink is the list with f's filters from cursor before ("" for the
// newest page).
func requestsLink(env string, f *form, before string) string {
	u := url.Values{"env": {env}}
	for _, k := range requestFilters {
		if x := f.Get(k); x != "" {
			u.Set(k, x)
		}
	}
	if before != "" {
		u.Set("before", before)
	}
	return Prefix + "requests?" + u.Encode()
}

// requestsForm reads the list's environment and filters, failing each field
// that does not hold a valid value (the key is checked against the keys
// later).
func (s *Server) requestsForm(f *form) (requestsView, reqlog.Filter) {
	v := requestsView{
		Env: string(policy.Live), Statuses: statusClasses, Codes: errorCodes(), Methods: requestMethods,
		Operations: operations, Retention: retention(s.o.RequestLogRetention),
	}
	switch env := f.Get("env"); env {
	case "", string(policy.Live):
	case string(policy.Test):
		v.Env = env
	default:
		f.Fail("", "Choose the live or the test environment.")
	}
	filter := reqlog.Filter{Limit: requestsPage + 1}
	if class, err := reqlog.ParseStatusClass(f.Get("status")); err != nil {
		f.Fail("status", "Choose a status class from the list: 2xx, 3xx, 4xx or 5xx.")
	} else {
		filter.StatusClass = class
	}
	if code := f.Get("error_code"); code != "" {
		if !slices.Contains(v.Codes, code) {
			f.Fail("error_code", "There is no error code of that name; choose one from the list.")
		}
		filter.ErrorCode = code
	}
	if key := f.Get("key"); key != "" {
		id, err := strconv.Atoi(key)
		if err != nil || id <= 0 {
			f.Fail("key", "Choose a key from the list.")
		}
		filter.KeyID = id
	}
	if m := f.Get("method"); m != "" {
		if !slices.Contains(requestMethods, m) {
			f.Fail("method", "Choose a method from the list.")
		}
		filter.Method = m
	}
	if op := f.Get("operation"); op != "" {
		if _, found := slices.BinarySearch(operations, op); !found {
			f.Fail("operation", "There is no operation of that name; choose one from the list.")
		}
		filter.Operation = op
	}
	if x := f.Get("since"); x != "" {
		t, ok := parseFilterTime(x, false)
		if !ok {
			f.Fail("since", fmt.Sprintf("%q is not a time. Enter one such as 2026-03-01T09:30, or a date such as 2026-03-01 (UTC).", x))
		}
		f.values.Set("since", inputTime(t))
		filter.Since = t
	}
	if x := f.Get("until"); x != "" {
		t, ok := parseFilterTime(x, true)
		if !ok {
			f.Fail("until", fmt.Sprintf("%q is not a time. Enter one such as 2026-03-01T17:00, or a date such as 2026-03-01 (UTC).", x))
		} else if !filter.Since.IsZero() && !t.After(filter.Since) {
			f.Fail("until", "The end of the range must be after its start.")
		}
		f.values.Set("until", inputTime(t))
		filter.Until = t
	}
	if x := f.Get("before"); x != "" {
		id, err := strconv.Atoi(x)
		if err != nil || id <= 0 {
			f.Fail("", "This page's link is damaged; start again from the newest requests.")
		}
		filter.Before = id
	}
	for _, k := range requestFilters {
		v.Filtered = v.Filtered || f.Get(k) != ""
	}
	v.Paged = filter.Before != 0
	v.Newest = requestsLink(v.Env, f, "")
	return v, filter
}

// findRequest sends the person to the request with id rid, in whichever
// environment it was made, or says there is none.
func (s *Server) findRequest(w http.ResponseWriter, r *http.Request, c *caller, f *form, rid string, keys []auth.Listed) {
	v, _ := s.requestsForm(newForm(nil))
	v.Keys, _ = keyLabels(keys, policy.Live, s.o.Now())
	if !strings.HasPrefix(rid, "req_") || len(rid) > 100 {
		f.Fail("request_id", "Enter a request id: it starts with req_, as in the X-Request-Id header and the request_id of an error.")
		requestsTemplate.render(s, w, r, c, http.StatusBadRequest, "Requests", f, v)
		return
	}
	req, env, err := reqlog.Find(c.ctx, s.o.Client, c.orgID(), rid)
	if policy.IsMissing(err) {
		f.Fail("request_id", fmt.Sprintf("No request %s is in this organization's log, live or test. Requests are kept for %s.", rid, v.Retention))
		requestsTemplate.render(s, w, r, c, http.StatusNotFound, "Requests", f, v)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	http.Redirect(w, r, requestDetailPath(req.ID, string(env)), http.StatusSeeOther)
}

func (s *Server) request(w http.ResponseWriter, r *http.Request, c *caller) {
	id, err := strconv.Atoi(r.PathValue("id"))
	env := r.URL.Query().Get("env")
	if env == "" {
		env = string(policy.Live)
	}
	if err != nil || id <= 0 || (env != string(policy.Live) && env != string(policy.Test)) {
		s.notFound(w, r)
		return
	}
	req, err := reqlog.Get(c.ctx, s.o.Client, c.orgID(), policy.Environment(env), id)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	keys, err := auth.ListKeys(c.ctx, s.o.Client, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	_, labels := keyLabels(keys, policy.Environment(env), s.o.Now())
	evs, err := reqlog.Events(c.ctx, s.o.Client, req)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	sees := c.Me.Person.Role.SeesCosts()
	v := requestView{
		Env: env, APIRequest: req, Key: keyLabel(labels, req.APIKeyID), Duration: duration(req.DurationUs),
		StatusText: http.StatusText(req.Status),
		Request:    showBody(req.RequestBody, req.Truncated, sees),
		Response:   showBody(req.ResponseBody, req.Truncated, sees),
		SeesCosts:  sees,
		Back:       Prefix + "requests?" + url.Values{"env": {env}}.Encode(),
	}
	for _, ev := range evs {
		q := url.Values{"env": {env}, "type": {ev.Type}, "resource_type": {ev.ResourceType}, "resource_id": {strconv.Itoa(ev.ResourceID)}}
		v.Events = append(v.Events, requestEvent{Event: ev, Link: Prefix + "events?" + q.Encode() + "#" + ev.EventID})
	}
	requestTemplate.render(s, w, r, c, http.StatusOK, "Request "+req.RequestID, nil, v)
}

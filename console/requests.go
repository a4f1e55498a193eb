package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/platform/missing"
	apiproblem "larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/openapi"
	"larder.dev/larder/policy"
)

// requestRoutes are the request log: the API requests made with the
// organization's keys, what was sent and answered, and the events each
// emitted.
func (s *Server) requestRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/requests", Nav: "Requests", Summary: "read the API requests made with the organization's keys in one environment (live or test), newest first, filtered by status class, error code, key, method, operation and time; or find one by its request id (req_…) in either environment; changes nothing", serve: s.requests},
		{Method: "GET", Path: "/console/requests/{id}", Summary: "read one of the organization's logged API requests: every field, the bodies sent and answered (cost fields hidden unless the role is admin) and the webhook events it emitted; changes nothing", serve: s.request},
	}
}

// requestsPage is the requests a page shows; one more is asked for to know
// whether an older page exists.
const requestsPage = reqlog.DefaultPage

// requestMethods are the methods the method filter offers.
var requestMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// statusClasses are the status filter's choices.
var statusClasses = []struct{ Value, Label string }{
	{"2xx", "2xx success"}, {"3xx", "3xx redirect"}, {"4xx", "4xx client error"}, {"5xx", "5xx server error"},
}

// operations are the operation ids of the API description, sorted: the
// operation filter's choices.
var operations = func() []string {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		panic("console: the API description: " + err.Error())
	}
	var out []string
	for _, item := range doc.Paths {
		for _, raw := range item {
			var op struct {
				OperationID string `json:"operationId"`
			}
			if json.Unmarshal(raw, &op) == nil && op.OperationID != "" {
				out = append(out, op.OperationID)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}()

// errorCodes are the API's error codes, the error code filter's choices.
func errorCodes() []string {
	var out []string
	for _, c := range apiproblem.Codes() {
		out = append(out, string(c))
	}
	return out
}

// requestsView is the request log page's own data.
type requestsView struct {
	Env                        string
	Statuses                   []struct{ Value, Label string }
	Codes, Methods, Operations []string
	Keys                       []keyChoice
	Rows                       []requestRow
	Filtered, Paged            bool
	Newest, Older              string
	// Retention is how long the log keeps a request, in words.
	Retention string
}

// keyChoice is one key of the environment in the key filter.
type keyChoice struct {
	ID    int
	Label string
}

// requestRow is one request as the list shows it.
type requestRow struct {
	*ent.APIRequest
	Key, Duration, Link string
}

// keyLabels names the organization's keys of env: their name and display
// (key_live_…abcd), marked when they no longer work; the rows' actions are
// not read, so whoever acts does not matter.
func keyLabels(keys []auth.Listed, env policy.Environment, now time.Time) ([]keyChoice, map[int]string) {
	rows := keyRows(keys, now, auth.Holder)
	var choices []keyChoice
	labels := map[int]string{}
	for _, k := range keys {
		if k.Env != string(env) {
			continue
		}
		row := rows[k.ID]
		label := row.Display
		if row.Name != "" {
			label = row.Name + " (" + row.Display + ")"
		}
		if row.Badge == "bad" {
			label += ", " + strings.ToLower(row.Status)
		}
		choices = append(choices, keyChoice{ID: k.ID, Label: label})
		labels[k.ID] = label
	}
	return choices, labels
}

// keyLabel is the name of a request's key.
func keyLabel(labels map[int]string, id *int) string {
	if id == nil {
		return "—"
	}
	if l, ok := labels[*id]; ok {
		return l
	}
	return "key " + strconv.Itoa(*id)
}

// timeLayouts are the forms the time filters take: a datetime-local input's
// (with or without seconds), with a space, or a date alone.
var timeLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05", time.RFC3339}

// parseFilterTime reads a time filter in UTC. A date alone is the start of
// that day, or, for the end of the range (end), the start of the next: the
// day is included.
func parseFilterTime(s string, end bool) (time.Time, bool) {
	if d, err := time.ParseInLocation("2006-01-02", s, time.UTC); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d, true
	}
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, s, time.UTC); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// retention is a retention period in words: whole days as days, else hours.
func retention(d time.Duration) string {
	plural := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.FormatInt(n, 10) + " " + unit + "s"
	}
	if d%(24*time.Hour) == 0 {
		return plural(int64(d/(24*time.Hour)), "day")
	}
	return plural(int64((d+time.Hour-1)/time.Hour), "hour")
}

// inputTime is t as a datetime-local input holds it (to the second when it
// has seconds), "" for the zero time: the form shows, and its links carry,
// the time the list was narrowed by.
func inputTime(t time.Time) string {
	switch {
	case t.IsZero():
		return ""
	case t.Second() != 0:
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04")
}

// requestDetailPath is the page of a request of env.
func requestDetailPath(id int, env string) string {
	return Prefix + "requests/" + strconv.Itoa(id) + "?" + url.Values{"env": {env}}.Encode()
}

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
	v.Rows = make([]requestRow, len(rows))
	for i, row := range rows {
		v.Rows[i] = requestRow{APIRequest: row, Key: keyLabel(labels, row.APIKeyID), Duration: duration(row.DurationUs), Link: requestDetailPath(row.ID, v.Env)}
	}
	requestsTemplate.render(s, w, r, c, http.StatusOK, "Requests", f, v)
}

// requestFilters are the list's filter fields, in the order its links carry
// them.
var requestFilters = []string{"status", "error_code", "key", "method", "operation", "since", "until"}

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
	if missing.Is(err) {
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

// requestView is the page of one request.
type requestView struct {
	Env string
	*ent.APIRequest
	Key, Duration, StatusText string
	Request, Response         shownBody
	Events                    []requestEvent
	// SeesCosts is whether the person's role reads cost fields.
	SeesCosts bool
	// Back is the list of the request's environment.
	Back string
}

// requestEvent is an event the request emitted, linked to the events page
// filtered to its record and type.
type requestEvent struct {
	*ent.Event
	Link string
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

// duration is a request's duration in words: µs below a millisecond, ms
// below a second, s above.
func duration(us int64) string {
	switch {
	case us < 1000:
		return fmt.Sprintf("%d µs", us)
	case us < 1_000_000:
		return strconv.FormatFloat(float64(us)/1000, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(float64(us)/1_000_000, 'f', 2, 64) + " s"
}

// shownBody is a body as the request's page shows it.
type shownBody struct {
	// Kept is whether a body was kept (writes and answers of 400 and above).
	Kept bool
	// Text is the body: indented JSON, or the bytes as text.
	Text string
	// JSON is whether it is whole JSON; Cut whether it was cut at
	// reqlog.MaxBody; NotUTF8 whether bytes that are not UTF-8 were replaced.
	JSON, Cut, NotUTF8 bool
	// Hidden counts the cost fields whose values were replaced.
	Hidden int
	// Withheld is set when the body is not whole JSON and the person may
	// not see costs: its cost fields cannot be found, so it is not shown.
	Withheld bool
}

// hiddenCost replaces a cost field's value for people who may not see costs.
const hiddenCost = "hidden"

// costMembers are the names of the API's cost fields, from the generated
// schema table (the fields annotate.Cost marks; the API description says
// "Cost field" on each of them).
var costMembers = func() map[string]bool {
	m := map[string]bool{}
	for _, a := range ent.Access {
		for _, name := range a.Costs {
			m[name] = true
		}
	}
	return m
}()

// showBody prepares a logged body: JSON indented (its cost fields hidden
// unless sees), anything else as text, unless it might hold a cost field
// the person may not see.
func showBody(b []byte, truncated, sees bool) shownBody {
	out := shownBody{Kept: len(b) > 0, Cut: truncated && len(b) >= reqlog.MaxBody}
	if !out.Kept {
		return out
	}
	if json.Valid(b) {
		src := b
		if !sees {
			hidden, n, err := hideCosts(b)
			if err != nil {
				out.Withheld = true
				return out
			}
			src, out.Hidden = hidden, n
		}
		var buf bytes.Buffer
		if json.Indent(&buf, src, "", "  ") == nil {
			out.JSON = true
			out.Text, out.NotUTF8 = printable(buf.String())
			return out
		}
	}
	if !sees {
		out.Withheld = true
		return out
	}
	out.Text, out.NotUTF8 = printable(string(b))
	return out
}

// printable makes text safe to show: bytes that are not UTF-8, and control
// characters other than tabs and line breaks, become U+FFFD. It reports
// whether anything was not UTF-8.
func printable(s string) (string, bool) {
	bad := !utf8.ValidString(s)
	if bad {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && r != '\r' && unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s), bad
}

// hideCosts rewrites the JSON value b with the value of every object member
// named as a cost field, at any depth, replaced by hiddenCost, keeping the
// members' order; it returns the rewritten value (compact) and how many
// values it replaced.
func hideCosts(b []byte) ([]byte, int, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	str := func(s string) error {
		if err := enc.Encode(s); err != nil {
			return err
		}
		out.Truncate(out.Len() - 1) // Encode ends with a newline
		return nil
	}
	// frame is an open object or array: its members so far, and, for an
	// object, whether the next token is a member's name.
	type frame struct {
		object, name bool
		n            int
	}
	var stack []*frame
	hidden := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) && len(stack) == 0 {
				return out.Bytes(), hidden, nil
			}
			return nil, 0, err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			continue
		}
		if n := len(stack); n > 0 {
			top := stack[n-1]
			if top.object && top.name {
				if top.n > 0 {
					out.WriteByte(',')
				}
				top.n++
				name, _ := tok.(string)
				if err := str(name); err != nil {
					return nil, 0, err
				}
				out.WriteByte(':')
				if costMembers[name] {
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return nil, 0, err
					}
					if err := str(hiddenCost); err != nil {
						return nil, 0, err
					}
					hidden++
					continue
				}
				top.name = false
				continue
			}
			if top.object {
				top.name = true
			} else {
				if top.n > 0 {
					out.WriteByte(',')
				}
				top.n++
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(t))
			stack = append(stack, &frame{object: t == '{', name: t == '{'})
		case string:
			if err := str(t); err != nil {
				return nil, 0, err
			}
		case json.Number:
			out.WriteString(t.String())
		case bool:
			out.WriteString(strconv.FormatBool(t))
		case nil:
			out.WriteString("null")
		}
	}
}

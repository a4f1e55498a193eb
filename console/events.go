package console

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// eventRoutes are the webhook event log: what the organization's data
// changes were reported as, and where each report went.
func (s *Server) eventRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/events", Nav: "Events", Summary: "read the organization's webhook events of one environment (live or test), newest first: type, record, source, the JSON body as sent and the outcome at each endpoint; changes nothing", serve: s.events},
	}
}

// eventsPage is the events a page shows; one more is asked for to know
// whether an older page exists.
const eventsPage = webhooks.DefaultPage

// eventsView is the events page's own data.
type eventsView struct {
	Env string
	// Types and ResourceTypes are the choices of the filters.
	Types, ResourceTypes []string
	Rows                 []eventRow
	// Filtered is whether a filter narrows the list (the empty state says
	// so), Paged whether the page is not the newest.
	Filtered, Paged bool
	// Newest is the list's first page with the same filters; Older the next
	// page, empty when there is none.
	Newest, Older string
}

// eventRow is one event as the page shows it.
type eventRow struct {
	webhooks.EventRow
	// Body is the envelope indented for reading.
	Body string
	// Resource lists this record's events alone.
	Resource string
}

// eventTypes are the types an event can have: the catalogue's and the ping.
func eventTypes() []string {
	return append(ent.EventTypes(), webhooks.PingType)
}

// resourceTypes are the records events are about (a ping is about an endpoint
// and names itself).
func resourceTypes() []string {
	out := slices.Sorted(maps.Keys(ent.EventCatalogue))
	return append(out, webhooks.PingType)
}

func (s *Server) events(w http.ResponseWriter, r *http.Request, c *caller) {
	q := r.URL.Query()
	f := newForm(q)
	v := eventsView{Env: string(policy.Live), Types: eventTypes(), ResourceTypes: resourceTypes()}
	switch env := f.Get("env"); env {
	case "", string(policy.Live):
	case string(policy.Test):
		v.Env = env
	default:
		f.Fail("", "Choose the live or the test environment.")
	}
	filter := webhooks.EventFilter{
		Type: f.Get("type"), ResourceType: f.Get("resource_type"), ResourceID: f.Get("resource_id"),
		Before: f.Get("before"), Limit: eventsPage + 1,
	}
	if filter.Type != "" && !slices.Contains(v.Types, filter.Type) {
		f.Fail("type", "There is no event type of that name; choose one from the list.")
	}
	if filter.ResourceType != "" && !slices.Contains(v.ResourceTypes, filter.ResourceType) {
		f.Fail("resource_type", "There is no record type of that name; choose one from the list.")
	}
	if filter.ResourceID != "" {
		if id, err := strconv.Atoi(filter.ResourceID); err != nil || id <= 0 {
			f.Fail("resource_id", "Enter a record id: a whole number such as 42.")
		} else if filter.ResourceType == "" {
			f.Fail("resource_id", "Choose the record type of this id as well.")
		}
	}
	v.Filtered = filter.Type != "" || filter.ResourceType != ""
	v.Paged = filter.Before != ""
	link := func(before string) string {
		u := url.Values{"env": {v.Env}}
		for k, x := range map[string]string{"type": filter.Type, "resource_type": filter.ResourceType, "resource_id": filter.ResourceID, "before": before} {
			if x != "" {
				u.Set(k, x)
			}
		}
		return Prefix + "events?" + u.Encode()
	}
	v.Newest = link("")
	if !f.OK() {
		eventsTemplate.render(s, w, r, c, http.StatusBadRequest, "Events", f, v)
		return
	}
	rows, err := webhooks.Events(c.ctx, s.o.Client, c.orgID(), policy.Environment(v.Env), filter)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if len(rows) > eventsPage {
		rows = rows[:eventsPage]
		v.Older = link(rows[len(rows)-1].EventID)
	}
	v.Rows = make([]eventRow, len(rows))
	for i, row := range rows {
		var body bytes.Buffer
		if err := json.Indent(&body, row.Envelope, "", "  "); err != nil {
			s.fail(w, r, c, err)
			return
		}
		res := url.Values{"env": {v.Env}, "resource_type": {row.ResourceType}, "resource_id": {strconv.Itoa(row.ResourceID)}}
		v.Rows[i] = eventRow{EventRow: row, Body: body.String(), Resource: Prefix + "events?" + res.Encode()}
	}
	eventsTemplate.render(s, w, r, c, http.StatusOK, "Events", f, v)
}

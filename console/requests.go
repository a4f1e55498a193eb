// The request log's routes and filter choices; requests_views.go builds what
// its pages show, requests_handlers.go answers them.

package console

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"time"

	apiproblem "larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/openapi"
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

// requestDetailPath is the page of a request of env.
func requestDetailPath(id int, env string) string {
	return Prefix + "requests/" + strconv.Itoa(id) + "?" + url.Values{"env": {env}}.Encode()
}

// requestFilters are the list's filter fields, in the order its links carry
// them.
var requestFilters = []string{"status", "error_code", "key", "method", "operation", "since", "until"}

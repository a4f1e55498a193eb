package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/console"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/openapi"
	"larder.dev/larder/policy"
)

// logged is a request as the log's writer would record it; the zero value's
// fields are filled in by logRequest.
type logged struct {
	At                                 time.Time
	Env                                policy.Environment
	KeyID                              int
	Method, Operation, Path, ErrorCode string
	Status                             int
	ClientRequestID, ClientAddr, Agent string
	DurationUs                         int64
	RequestBody, ResponseBody          []byte
	Truncated                          bool
}

// logRequest stores one request in org's log, as the log's writer does (its
// hour counted), and returns it.
func logRequest(t *testing.T, st *store.Store, org *dbtest.Org, l logged) *ent.APIRequest {
	t.Helper()
	acct := org.Live.ID
	if l.Env == policy.Test {
		acct = org.Test.ID
	}
	if l.At.IsZero() {
		l.At = time.Now().UTC()
	}
	if l.Method == "" {
		l.Method = "GET"
	}
	if l.Path == "" {
		l.Path = "/v1/tags"
	}
	if l.Status == 0 {
		l.Status = 200
	}
	if reqlog.Keeps(l.Method, l.Status) {
		// As the writer stores them: a write's and an error's bodies are
		// kept, if only empty.
		if l.RequestBody == nil {
			l.RequestBody = []byte{}
		}
		if l.ResponseBody == nil {
			l.ResponseBody = []byte{}
		}
	}
	r := &ent.APIRequest{CreatedAt: l.At, AccountID: acct, Method: l.Method, Operation: l.Operation, Path: l.Path, Status: l.Status,
		ErrorCode: l.ErrorCode, RequestID: ids.NewAt("req_", l.At), ClientRequestID: l.ClientRequestID, DurationUs: l.DurationUs,
		ClientAddr: l.ClientAddr, UserAgent: l.Agent, RequestBody: l.RequestBody, ResponseBody: l.ResponseBody, Truncated: l.Truncated}
	if l.KeyID != 0 {
		r.APIKeyID = &l.KeyID
	}
	stored, err := reqlog.Insert(context.Background(), st, r)
	if err != nil {
		t.Fatal(err)
	}
	return stored[0]
}

// newKey creates a key of org's env named name and returns its record.
func newKey(t *testing.T, st *store.Store, org *dbtest.Org, env policy.Environment, name string) *ent.APIKey {
	t.Helper()
	k, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, env, []policy.Scope{policy.Scope("catalog:read")}, name)
	if err != nil {
		t.Fatal(err)
	}
	return k.Record
}

// shownRequests are the request ids a list page shows, in its order.
func shownRequests(body string) []string {
	var out []string
	for _, part := range strings.Split(body, `<tr class="request">`)[1:] {
		i := strings.Index(part, ">req_")
		if i < 0 {
			continue
		}
		j := strings.Index(part[i:], "<")
		out = append(out, part[i+1:i+j])
	}
	return out
}

// requestIDs are the request ids of rs.
func requestIDs(rs ...*ent.APIRequest) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.RequestID
	}
	return out
}

// The list shows an environment's requests newest first with their columns;
// each filter narrows it, alone and together; a filter that matches nothing
// says so; bad filter values are refused next to their field, never a 500.
func TestRequestsPage(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		if res := b.get("/console/requests"); res.status != http.StatusOK || !strings.Contains(res.body, "No test requests logged yet.") ||
			!strings.Contains(res.body, "and kept for 30 days.") {
			t.Fatalf("an empty log: %d\n%s", res.status, res.body)
		}

		reporting := newKey(t, st, org, policy.Live, "Reporting")
		shop := newKey(t, st, org, policy.Live, "Shop")
		testKey := newKey(t, st, org, policy.Test, "Sandbox")
		base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		read := logRequest(t, st, org, logged{At: base, KeyID: reporting.ID, Operation: "listTags", Path: "/v1/tags?limit=5", DurationUs: 1500})
		created := logRequest(t, st, org, logged{At: base.Add(time.Hour), KeyID: shop.ID, Method: "POST", Operation: "createTag", Status: 201, DurationUs: 820,
			RequestBody: []byte(`{"name":"Seasonal"}`), ResponseBody: []byte(`{"data":{"id":1}}`)})
		invalid := logRequest(t, st, org, logged{At: base.Add(2 * time.Hour), KeyID: shop.ID, Method: "POST", Operation: "createTag", Status: 400, ErrorCode: "VALIDATION_ERROR", DurationUs: 2_500_000})
		missingTag := logRequest(t, st, org, logged{At: base.Add(25 * time.Hour), KeyID: reporting.ID, Operation: "getTag", Path: "/v1/tags/99", Status: 404, ErrorCode: "NOT_FOUND", DurationUs: 90})
		failed := logRequest(t, st, org, logged{At: base.Add(26 * time.Hour), KeyID: reporting.ID, Method: "DELETE", Operation: "deleteTag", Path: "/v1/tags/3", Status: 500, ErrorCode: "INTERNAL_ERROR"})
		sandbox := logRequest(t, st, org, logged{At: base.Add(time.Minute), Env: policy.Test, KeyID: testKey.ID, Operation: "listTags"})
		live := requestIDs(failed, missingTag, invalid, created, read)

		res := b.get("/console/requests?env=live")
		if got := shownRequests(res.body); res.status != http.StatusOK || !slices.Equal(got, live) {
			t.Fatalf("the live list: %d %v, want %v", res.status, got, live)
		}
		rows := strings.Split(res.body, `<tr class="request">`)[1:]
		for i, want := range [][]string{
			// The time without its zone, which the column's heading names;
			// the request id clipped, whole in its title.
			{`<td class="nowrap">2026-03-02 11:00:00</td>`, "<code>DELETE</code>", "/v1/tags/3", `<span class="badge bad">500</span>`, "<code>INTERNAL_ERROR</code>", "<code>deleteTag</code>", "Reporting (" + reporting.Prefix + "…" + reporting.Last4 + ")", "0 µs",
				fmt.Sprintf(`<td class="clip rid" title="%s"><a class="mono" href="/console/requests/%d?env=live">%s</a>`, failed.RequestID, failed.ID, failed.RequestID)},
			{`<td class="nowrap">2026-03-02 10:00:00</td>`, `<span class="badge warn">404</span>`, "<code>NOT_FOUND</code>", "<code>getTag</code>", "90 µs"},
			{`<td class="nowrap">2026-03-01 11:00:00</td>`, "Shop (" + shop.Prefix + "…" + shop.Last4 + ")", "2.50 s"},
			{`<span class="badge ok">201</span>`, "<code>createTag</code>", "820 µs"},
			{"/v1/tags?limit=5", "1.5 ms", "<code>listTags</code>"},
		} {
			for _, w := range want {
				if !strings.Contains(rows[i], template.HTMLEscapeString(w)) && !strings.Contains(rows[i], w) {
					t.Errorf("row %d lacks %q:\n%s", i, w, rows[i])
				}
			}
		}
		if strings.Contains(res.body, sandbox.RequestID) {
			t.Error("the live list shows a test request")
		}
		if res := b.get("/console/requests?env=test"); !slices.Equal(shownRequests(res.body), requestIDs(sandbox)) ||
			!strings.Contains(res.body, `name="env" value="test" aria-pressed="true"`) ||
			!strings.Contains(res.body, fmt.Sprintf(`<option value="%d">Sandbox (%s…%s)</option>`, testKey.ID, testKey.Prefix, testKey.Last4)) ||
			strings.Contains(res.body, "Reporting (") {
			t.Errorf("the test list: %v\n%s", shownRequests(res.body), res.body)
		}
		// Back to live, which the pages below show without naming it.
		b.get("/console/requests?env=live")

		for _, tc := range []struct {
			query string
			want  []*ent.APIRequest
		}{
			{"status=2xx", []*ent.APIRequest{created, read}},
			{"status=4xx", []*ent.APIRequest{missingTag, invalid}},
			{"status=5xx", []*ent.APIRequest{failed}},
			{"status=3xx", nil},
			{"error_code=VALIDATION_ERROR", []*ent.APIRequest{invalid}},
			{"key=" + strconv.Itoa(reporting.ID), []*ent.APIRequest{failed, missingTag, read}},
			{"key=" + strconv.Itoa(shop.ID) + "&status=2xx", []*ent.APIRequest{created}},
			{"method=POST", []*ent.APIRequest{invalid, created}},
			{"method=DELETE", []*ent.APIRequest{failed}},
			{"operation=createTag", []*ent.APIRequest{invalid, created}},
			{"operation=getTag&status=4xx", []*ent.APIRequest{missingTag}},
			{"since=2026-03-01T10:00", []*ent.APIRequest{failed, missingTag, invalid, created}},
			{"until=2026-03-01T10:00", []*ent.APIRequest{read}},
			{"since=2026-03-01T10:00&until=2026-03-01T11:00", []*ent.APIRequest{created}},
			{"since=2026-03-02", []*ent.APIRequest{failed, missingTag}},
			{"until=2026-03-01", []*ent.APIRequest{invalid, created, read}},
			{"since=2026-03-01T09:30&until=2026-03-01T09:45", nil},
			{"env=test&key=" + strconv.Itoa(testKey.ID), []*ent.APIRequest{sandbox}},
		} {
			res := b.get("/console/requests?" + tc.query)
			if res.status != http.StatusOK {
				t.Errorf("%s: %d\n%s", tc.query, res.status, res.body)
				continue
			}
			if got, want := shownRequests(res.body), requestIDs(tc.want...); !slices.Equal(got, want) {
				t.Errorf("%s lists %v, want %v", tc.query, got, want)
			}
			if tc.want == nil && !strings.Contains(res.body, "request matches these filters.") {
				t.Errorf("%s: no empty state saying the filters narrow the list", tc.query)
			}
			if !strings.Contains(res.body, ">Clear filters</a>") {
				t.Errorf("%s: no way to clear the filters", tc.query)
			}
		}
		// The last query chose test; back to live.
		b.get("/console/requests?env=live")
		// The chosen filters stay chosen.
		res = b.get("/console/requests?status=4xx&operation=getTag&key=" + strconv.Itoa(reporting.ID))
		for _, want := range []string{`<option value="4xx" selected>`, `<option value="getTag" selected>`, fmt.Sprintf(`<option value="%d" selected>`, reporting.ID)} {
			if !strings.Contains(res.body, want) {
				t.Errorf("the filter form lost %s", want)
			}
		}

		// The time filters show as a datetime-local input holds them: a
		// date alone until the start of the next day.
		res = b.get("/console/requests?since=2026-03-01T08:59:30&until=2026-03-01")
		if !strings.Contains(res.body, `id="f-since" name="since" type="datetime-local" value="2026-03-01T08:59:30"`) ||
			!strings.Contains(res.body, `id="f-until" name="until" type="datetime-local" value="2026-03-02T00:00"`) ||
			!slices.Equal(shownRequests(res.body), requestIDs(invalid, created, read)) {
			t.Errorf("the time filters:\n%s", res.body)
		}
		if res := b.get("/console/requests?since=yesterday"); !strings.Contains(res.body, `id="f-since" name="since" type="datetime-local" value=""`) {
			t.Error("a time that is not one is put back in the datetime-local input")
		}

		// Bad filters: 400, the message beside the field, nothing listed.
		other := dbtest.NewOrg(t, st, "")
		theirKey := newKey(t, st, other, policy.Live, "Theirs")
		for _, tc := range []struct{ query, field, msg string }{
			{"status=6xx", "status", "Choose a status class from the list: 2xx, 3xx, 4xx or 5xx."},
			{"status=ok", "status", "Choose a status class from the list: 2xx, 3xx, 4xx or 5xx."},
			{"error_code=OOPS", "error_code", "There is no error code of that name; choose one from the list."},
			{"key=abc", "key", "Choose a key from the list."},
			{"key=" + strconv.Itoa(testKey.ID), "key", "The organization has no live key of that id; choose one from the list."},
			{"key=" + strconv.Itoa(theirKey.ID), "key", "The organization has no live key of that id; choose one from the list."},
			{"method=BREW", "method", "Choose a method from the list."},
			{"operation=launchRocket", "operation", "There is no operation of that name; choose one from the list."},
			{"since=yesterday", "since", `"yesterday" is not a time. Enter one such as 2026-03-01T09:30, or a date such as 2026-03-01 (UTC).`},
			{"until=2026-13-01", "until", `"2026-13-01" is not a time. Enter one such as 2026-03-01T17:00, or a date such as 2026-03-01 (UTC).`},
			{"since=2026-03-02T00:00&until=2026-03-01T00:00", "until", "The end of the range must be after its start."},
		} {
			res := b.get("/console/requests?" + tc.query)
			want := fmt.Sprintf(`<p class="error" id="e-%s">%s</p>`, tc.field, template.HTMLEscapeString(tc.msg))
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, want) || len(shownRequests(res.body)) != 0 {
				t.Errorf("%s: %d, want 400 with %q:\n%s", tc.query, res.status, want, res.body)
			}
		}
		for _, q := range []string{"env=staging", "before=abc", "before=-1"} {
			if res := b.get("/console/requests?" + q); res.status != http.StatusBadRequest || !strings.Contains(res.body, `<p class="error" role="alert">`) {
				t.Errorf("%s: %d, want 400 with the form's error", q, res.status)
			}
		}
	})
}

// A page holds 50 requests and links to the older ones by the last row's id;
// requests of the same instant are neither repeated nor skipped across the
// boundary; the filters are kept from page to page.
func TestRequestsPaging(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Developer)
		const total = 53
		at := time.Now().UTC().Truncate(time.Second)
		// Two older requests, then 51 of one instant around the boundary.
		var all []*ent.APIRequest
		for i := range total {
			when := at
			if i < 2 {
				when = at.Add(-time.Duration(2-i) * time.Minute)
			}
			all = append(all, logRequest(t, st, org, logged{At: when, Operation: "listTags", Status: 200}))
		}
		// Newest first: the same instant by id, descending.
		slices.Reverse(all)
		want := requestIDs(all...)
		first := b.get("/console/requests?env=live")
		if got := shownRequests(first.body); !slices.Equal(got, want[:50]) {
			t.Fatalf("first page: %v, want the newest 50 %v", got, want[:50])
		}
		older := "/console/requests?" + url.Values{"env": {"live"}, "before": {strconv.Itoa(all[49].ID)}}.Encode()
		if !strings.Contains(first.body, `href="`+template.HTMLEscapeString(older)+`">Older requests</a>`) || strings.Contains(first.body, "Newest requests") {
			t.Fatalf("first page does not link to %s alone", older)
		}
		second := b.get(older)
		if got := shownRequests(second.body); second.status != http.StatusOK || !slices.Equal(got, want[50:]) {
			t.Fatalf("second page: %d %v, want %v", second.status, got, want[50:])
		}
		if strings.Contains(second.body, "Older requests") || !strings.Contains(second.body, `<a href="/console/requests?env=live">Newest requests</a>`) {
			t.Error("the last page links further, or not back to the newest")
		}
		filtered := b.get("/console/requests?status=2xx&operation=listTags")
		link := "/console/requests?" + url.Values{"env": {"live"}, "status": {"2xx"}, "operation": {"listTags"}, "before": {strconv.Itoa(all[49].ID)}}.Encode()
		if !strings.Contains(filtered.body, `href="`+template.HTMLEscapeString(link)+`"`) {
			t.Errorf("the filtered page does not link to %s", link)
		}
		if res := b.get(link); !slices.Equal(shownRequests(res.body), want[50:]) {
			t.Errorf("the filtered second page: %v", shownRequests(res.body))
		}
		if res := b.get("/console/requests?before=" + strconv.Itoa(all[total-1].ID)); !strings.Contains(res.body, "There are no older requests.") {
			t.Errorf("past the oldest: %d", res.status)
		}
	})
}

// The page of one request shows every field, the bodies pretty-printed when
// they are JSON and as safe text otherwise, and the events it caused, each
// linked to the events page; the events page links back to the request.
func TestRequestPage(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		key := newKey(t, st, org, policy.Test, "Shop")
		b, _ := d.signedIn(org.Org.ID, people.Admin)
		at := time.Date(2026, 3, 1, 9, 15, 42, 0, time.UTC)
		req := logRequest(t, st, org, logged{
			At: at, Env: policy.Test, KeyID: key.ID, Method: "POST", Operation: "createTag", Path: "/v1/tags?expand=x",
			Status: 201, ClientRequestID: "order-77<b>", ClientAddr: "198.51.100.7", Agent: "shop/1.2", DurationUs: 12_345,
			RequestBody:  []byte(`{"name":"Seasonal","ref_type":"PRODUCT"}`),
			ResponseBody: []byte(`{"data":{"id":5,"name":"Seasonal <b>"}}`),
		})
		// The events the request caused, and one of another request.
		sys := policy.System(context.Background())
		var evIDs []string
		for i, typ := range []string{"tag.created", "tag.updated"} {
			id := ids.New("evt_")
			if err := st.Client.Event.Create().SetEventID(id).SetAccountID(org.Test.ID).SetEnvironment(event.EnvironmentTest).
				SetType(typ).SetResourceType("tag").SetResourceID(5).SetSnapshot([]byte(`{"id":5}`)).SetSource(event.SourceAPI).
				SetRequestID(req.RequestID).SetCreatedAt(at.Add(time.Duration(i) * time.Millisecond)).Exec(sys); err != nil {
				t.Fatal(err)
			}
			evIDs = append(evIDs, id)
		}
		if err := st.Client.Event.Create().SetEventID(ids.New("evt_")).SetAccountID(org.Test.ID).SetEnvironment(event.EnvironmentTest).
			SetType("tag.deleted").SetResourceType("tag").SetResourceID(6).SetSnapshot([]byte(`{"id":6}`)).SetSource(event.SourceAPI).
			SetRequestID(ids.New("req_")).SetCreatedAt(at).Exec(sys); err != nil {
			t.Fatal(err)
		}

		path := fmt.Sprintf("/console/requests/%d?env=test", req.ID)
		res := b.get(path)
		if res.status != http.StatusOK {
			t.Fatalf("%s: %d\n%s", path, res.status, res.body)
		}
		for _, want := range []string{
			"<title>Request " + req.RequestID + " · Larder console</title>",
			"<dt>Time</dt><dd>2026-03-01 09:15:42 UTC</dd>",
			"<dt>Environment</dt><dd>test</dd>",
			"<dt>Key</dt><dd>Shop (" + key.Prefix + "…" + key.Last4 + ")</dd>",
			"<dt>Method</dt><dd><code>POST</code></dd>",
			`<dt>Path</dt><dd><span class="copyable"><span class="mono" id="request-path" title="/v1/tags?expand=x">/v1/tags?expand=x</span><button type="button" class="copy" data-copy="request-path" aria-label="Copy the path" hidden>Copy</button></span></dd>`,
			"<dt>Operation</dt><dd><code>createTag</code></dd>",
			`<dt>Status</dt><dd><span class="badge ok">201 Created</span></dd>`,
			"<dt>Error code</dt><dd>—</dd>",
			`<dt>Request id</dt><dd><span class="copyable"><span class="mono" id="request-id" title="` + req.RequestID + `">` + req.RequestID + "</span>",
			`<dt>Caller's X-Request-Id</dt><dd><span class="mono">order-77&lt;b&gt;</span></dd>`,
			"<dt>Duration</dt><dd>12.3 ms</dd>",
			`<dt>Client address</dt><dd class="mono">198.51.100.7</dd>`,
			`<span class="mono path">shop/1.2</span>`,
			"<dt>Bodies cut</dt><dd>No</dd>",
			"<pre id=\"request-body-text\">{\n  &#34;name&#34;: &#34;Seasonal&#34;,\n  &#34;ref_type&#34;: &#34;PRODUCT&#34;\n}</pre>",
			"<pre id=\"response-body-text\">{\n  &#34;data&#34;: {\n    &#34;id&#34;: 5,\n    &#34;name&#34;: &#34;Seasonal &lt;b&gt;&#34;\n  }\n}</pre>",
			`<a href="/console/requests?env=test">`,
		} {
			if !strings.Contains(res.body, want) {
				t.Errorf("the request's page lacks %q", want)
			}
		}
		for i, typ := range []string{"tag.created", "tag.updated"} {
			link := "/console/events?" + url.Values{"env": {"test"}, "type": {typ}, "resource_type": {"tag"}, "resource_id": {"5"}}.Encode() + "#" + evIDs[i]
			if !strings.Contains(res.body, `<a href="`+template.HTMLEscapeString(link)+`"><code>`+typ+`</code> of tag 5</a>`) {
				t.Errorf("the page does not link to event %s at %s", evIDs[i], link)
				continue
			}
			ev := b.get(strings.Split(link, "#")[0])
			if got := shownEvents(ev.body); !slices.Equal(got, evIDs[i:i+1]) || !strings.Contains(ev.body, `id="`+evIDs[i]+`"`) {
				t.Errorf("the event's link shows %v, want %s", got, evIDs[i])
			}
		}
		if strings.Contains(res.body, "tag.deleted") {
			t.Error("the page lists another request's event")
		}
		// The events page links each event to its request through the
		// search, which finds the environment.
		evs := b.get("/console/events?env=test")
		find := "/console/requests?request_id=" + req.RequestID
		if n := strings.Count(evs.body, `href="`+find+`"`); n != 2 {
			t.Errorf("the events page links %d events to %s, want 2", n, find)
		}
		if got := b.get(find); got.status != http.StatusSeeOther || got.location() != fmt.Sprintf("/console/requests/%d?env=test", req.ID) {
			t.Errorf("the search: %d to %s", got.status, got.location())
		}
		// A request without events or bodies.
		plain := logRequest(t, st, org, logged{Env: policy.Test, Operation: ""})
		res = b.get(fmt.Sprintf("/console/requests/%d?env=test", plain.ID))
		for _, want := range []string{"This request caused no webhook event.", "No body was kept", "none: no route matched", "<dt>Key</dt><dd>—</dd>", "none sent"} {
			if !strings.Contains(res.body, want) {
				t.Errorf("a bare request's page lacks %q", want)
			}
		}
		// The wrong environment, a bad id or environment: not found.
		for _, p := range []string{
			fmt.Sprintf("/console/requests/%d?env=live", req.ID), fmt.Sprintf("/console/requests/%d", req.ID),
			fmt.Sprintf("/console/requests/%d?env=staging", req.ID), "/console/requests/abc?env=test", "/console/requests/0?env=test",
		} {
			if res := b.get(p); res.status != http.StatusNotFound || strings.Contains(res.body, req.RequestID) {
				t.Errorf("%s: %d, want 404", p, res.status)
			}
		}
	})
}

// Bodies that are not JSON are shown as text: cut mid-character at 16 KB,
// not UTF-8, with control characters; each says so.
func TestRequestPageRawBodies(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Admin)
		// A JSON body cut inside "é" at reqlog.MaxBody.
		long := []byte(`{"name":"` + strings.Repeat("é", reqlog.MaxBody))
		long = long[:reqlog.MaxBody]
		req := logRequest(t, st, org, logged{Method: "POST", Operation: "createTag", Status: 400, ErrorCode: "VALIDATION_ERROR",
			RequestBody: long, ResponseBody: []byte("plain \xff\xfe text\x00<script>"), Truncated: true})
		res := b.get(fmt.Sprintf("/console/requests/%d?env=live", req.ID))
		if res.status != http.StatusOK {
			t.Fatalf("%d\n%s", res.status, res.body)
		}
		for _, want := range []string{
			"<dt>Bodies cut</dt><dd>Yes: a body was longer than 16 KB",
			"Cut at 16 KB: the rest was not kept, so it is shown as text.",
			"<pre id=\"request-body-text\">{&#34;name&#34;:&#34;éé",
			"Not JSON: shown as text.",
			"Bytes that are not UTF-8 are shown as �.",
			"<pre id=\"response-body-text\">plain � text�&lt;script&gt;</pre>",
		} {
			if !strings.Contains(res.body, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if !utf8Valid(res.body) {
			t.Error("the page is not UTF-8")
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

// The search takes a request id to its page in either environment; an id
// that is not the organization's, or not an id, is said so on the list page.
func TestRequestSearch(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		live := logRequest(t, st, org, logged{})
		test := logRequest(t, st, org, logged{Env: policy.Test})
		theirs := logRequest(t, st, other, logged{})
		b, _ := d.signedIn(org.Org.ID, people.Operator)
		for _, c := range []struct {
			r   *ent.APIRequest
			env string
		}{{live, "live"}, {test, "test"}} {
			res := b.get("/console/requests?request_id=" + url.QueryEscape(" "+c.r.RequestID+" "))
			if want := fmt.Sprintf("/console/requests/%d?env=%s", c.r.ID, c.env); res.status != http.StatusSeeOther || res.location() != want {
				t.Errorf("%s: %d to %s, want %s", c.r.RequestID, res.status, res.location(), want)
			}
		}
		for _, rid := range []string{theirs.RequestID, ids.New("req_")} {
			res := b.get("/console/requests?request_id=" + rid)
			msg := template.HTMLEscapeString("No request " + rid + " is in this organization's log, live or test.")
			if res.status != http.StatusNotFound || !strings.Contains(res.body, `<p class="error" id="e-request_id">`+msg) ||
				!strings.Contains(res.body, `value="`+rid+`"`) || len(shownRequests(res.body)) != 0 {
				t.Errorf("%s: %d, want 404 with the message beside the search\n%s", rid, res.status, res.body)
			}
		}
		res := b.get("/console/requests?request_id=evt_123")
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, `<p class="error" id="e-request_id">Enter a request id: it starts with req_`) {
			t.Errorf("not a request id: %d", res.status)
		}
	})
}

// Another organization's requests are never listed, and their pages and
// cursors are not found, both ways.
func TestRequestsOtherOrganization(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		a, o := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		rows := map[*dbtest.Org][]*ent.APIRequest{}
		for _, org := range []*dbtest.Org{a, o} {
			for _, env := range []policy.Environment{policy.Live, policy.Test} {
				rows[org] = append(rows[org], logRequest(t, st, org, logged{Env: env}))
			}
		}
		for _, c := range []struct{ me, them *dbtest.Org }{{a, o}, {o, a}} {
			b, _ := d.signedIn(c.me.Org.ID, people.Admin)
			for i, env := range []string{"live", "test"} {
				res := b.get("/console/requests?env=" + env)
				if got := shownRequests(res.body); !slices.Equal(got, requestIDs(rows[c.me][i])) {
					t.Errorf("organization %d's %s list: %v", c.me.Org.ID, env, got)
				}
			}
			for _, r := range rows[c.them] {
				for _, env := range []string{"live", "test"} {
					if res := b.get(fmt.Sprintf("/console/requests/%d?env=%s", r.ID, env)); res.status != http.StatusNotFound || strings.Contains(res.body, r.RequestID) {
						t.Errorf("organization %d opens request %d of organization %d: %d", c.me.Org.ID, r.ID, c.them.Org.ID, res.status)
					}
					if res := b.get(fmt.Sprintf("/console/requests?env=%s&before=%d", env, r.ID)); res.status != http.StatusNotFound {
						t.Errorf("organization %d pages from request %d of organization %d: %d", c.me.Org.ID, r.ID, c.them.Org.ID, res.status)
					}
				}
			}
		}
	})
}

// apiCostFields are the members the API description marks as cost fields.
func apiCostFields(t *testing.T) []string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for name, p := range props {
					if m, ok := p.(map[string]any); ok {
						if d, _ := m["description"].(string); strings.Contains(d, "Cost field") {
							found[name] = true
						}
					}
				}
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(doc)
	var out []string
	for name := range found {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Admins read the bodies as sent and answered; every other role sees the
// value of each cost field the API description marks, at any depth, as
// "hidden", the rest of the body as it was, and a body that is not whole
// JSON not at all.
func TestRequestCosts(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		costs := apiCostFields(t)
		if len(costs) == 0 || !slices.Contains(costs, "cost") || !slices.Contains(costs, "price") {
			t.Fatalf("the API description marks %v as cost fields", costs)
		}
		// A request naming every cost field at the top and inside lines;
		// the answer with costs beside the same names' look-alikes.
		top := map[string]any{"name": "Flour", "costing": "9.99"}
		for i, c := range costs {
			top[c] = fmt.Sprintf("%d.25", i+1)
		}
		top["lines"] = []any{map[string]any{"sku": "F-1", "price": "4.10", "cost": nil}, map[string]any{"sku": "F-2", "discount_rate": 5}}
		reqBody, _ := json.Marshal(top)
		respBody := []byte(`{"data":{"id":7,"name":"Flour","cost":"1.25","price_list":"retail","operations_cost":{"labour":"3.00"},"notes":"cost: 1.25"}}`)
		req := logRequest(t, st, org, logged{Method: "POST", Operation: "createProduct", Status: 201, RequestBody: reqBody, ResponseBody: respBody})
		cut := logRequest(t, st, org, logged{Method: "POST", Operation: "createProduct", Status: 400, ErrorCode: "VALIDATION_ERROR",
			RequestBody: []byte(`{"cost":"7.77","name":"` + strings.Repeat("x", reqlog.MaxBody)), Truncated: true, ResponseBody: []byte(`{"code":"VALIDATION_ERROR"}`)})

		page := func(role people.Role, id int) string {
			b, _ := d.signedIn(org.Org.ID, role)
			res := b.get(fmt.Sprintf("/console/requests/%d?env=live", id))
			if res.status != http.StatusOK {
				t.Fatalf("%s: %d", role, res.status)
			}
			return res.body
		}
		q := func(s string) string { return template.HTMLEscapeString(s) }
		admin := page(people.Admin, req.ID)
		for _, want := range []string{`"cost": "`, `"price": "4.10"`, `"cost": null`, `"discount_rate": 5`, `"labour": "3.00"`, `"cost": "1.25"`} {
			if !strings.Contains(admin, q(want)) {
				t.Errorf("the admin does not see %s", want)
			}
		}
		if strings.Contains(admin, q(`"hidden"`)) || strings.Contains(admin, "Your role does not show costs") {
			t.Error("the admin sees costs hidden")
		}
		if body := page(people.Admin, cut.ID); !strings.Contains(body, q(`{"cost":"7.77","name":"xxx`)) {
			t.Error("the admin does not see the cut body as text")
		}
		for _, role := range []people.Role{people.Developer, people.Operator, people.Viewer} {
			body := page(role, req.ID)
			for _, c := range costs {
				if !strings.Contains(body, q(`"`+c+`": "hidden"`)) {
					t.Errorf("%s: cost field %s is not hidden", role, c)
				}
			}
			for i := range costs {
				if leak := q(fmt.Sprintf(`"%d.25"`, i+1)); strings.Contains(body, leak) {
					t.Errorf("%s sees the value %s of a cost field", role, leak)
				}
			}
			for _, leak := range []string{`"price": "4.10"`, `"labour"`, `"discount_rate": 5`, `"cost": null`, `"cost": "1.25"`} {
				if strings.Contains(body, q(leak)) {
					t.Errorf("%s sees %s", role, leak)
				}
			}
			// Everything else as it was, in its order.
			for _, keep := range []string{
				`"costing": "9.99"`, `"cost": "hidden",` + "\n      " + `"price": "hidden",` + "\n      " + `"sku": "F-1"`,
				`"price_list": "retail"`, `"operations_cost": "hidden"`, `"notes": "cost: 1.25"`,
				`"id": 7,` + "\n    " + `"name": "Flour",` + "\n    " + `"cost": "hidden"`,
			} {
				if !strings.Contains(body, q(keep)) {
					t.Errorf("%s: the body lacks %s", role, keep)
				}
			}
			if !strings.Contains(body, "Your role does not show costs and prices") || !strings.Contains(body, fmt.Sprintf("%d cost fields hidden.", len(costs)+3)) {
				t.Errorf("%s: the page does not say costs are hidden", role)
			}
			body = page(role, cut.ID)
			if strings.Contains(body, "7.77") || !strings.Contains(body, "This body is not shown: it is not whole JSON (it was cut at 16 KB)") ||
				!strings.Contains(body, q(`"code": "VALIDATION_ERROR"`)) {
				t.Errorf("%s: the cut body is shown, or the whole answer is not", role)
			}
		}
	})
}

// The pages say how long the server keeps requests.
func TestRequestsRetention(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		for _, c := range []struct {
			keep time.Duration
			says string
		}{{7 * 24 * time.Hour, "7 days"}, {24 * time.Hour, "1 day"}, {36 * time.Hour, "36 hours"}} {
			d := newDeskWith(t, st, func(o *console.Options) { o.RequestLogRetention = c.keep })
			org := dbtest.NewOrg(t, st, "")
			b, _ := d.signedIn(org.Org.ID, people.Viewer)
			if res := b.get("/console/requests"); !strings.Contains(res.body, "and kept for "+c.says+".") {
				t.Errorf("a retention of %s: the list does not say %q", c.keep, c.says)
			}
			if res := b.get("/console/requests?request_id=req_none"); !strings.Contains(res.body, "Requests are kept for "+c.says+".") {
				t.Errorf("a retention of %s: the search does not say %q", c.keep, c.says)
			}
		}
	})
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// requestIDs are the request ids of a --json list, in order.
func requestIDs(t *testing.T, m map[string]any) []string {
	t.Helper()
	var out []string
	for _, r := range m["requests"].([]any) {
		out = append(out, r.(map[string]any)["request_id"].(string))
	}
	return out
}

// docs/operators.md, "Commands": larder requests lists an organization's
// request log newest first, filtered and paged by the cursor, shows one
// request in full with the events it emitted, lists the failed
// authentications, and refuses bad flags naming them.
func TestRequestsCommand(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			if b == dbtest.Postgres {
				// Its own database: the failed authentications are the whole
				// server's, and other tests may log some.
				db = dbtest.Scratch(t, "requests")
			}
			orgA := int(cli(t, db, "org", "create", "--name", "Logged")["id"].(float64))
			orgB := int(cli(t, db, "org", "create", "--name", "Elsewhere")["id"].(float64))
			a := fmt.Sprint(orgA)
			st := dbtest.OpenURL(t, db)
			ctx := context.Background()
			acct := func(org int, env policy.Environment) int {
				ac, err := tenancy.Account(ctx, st.Client, org, env)
				if err != nil {
					t.Fatal(err)
				}
				return ac.ID
			}
			aLive, aTest, bLive := acct(orgA, policy.Live), acct(orgA, policy.Test), acct(orgB, policy.Live)
			k1 := int(cli(t, db, "key", "create", "--org", a, "--env", "live", "--scopes", "all")["id"].(float64))
			k2 := int(cli(t, db, "key", "create", "--org", a, "--env", "live", "--scopes", "read-all")["id"].(float64))

			base := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
			problem := func(status int, code string) []byte {
				return fmt.Appendf(nil, `{"type":"about:blank","status":%d,"code":"%s","detail":"refused"}`, status, code)
			}
			entries := []*reqlog.Entry{
				{AccountID: aLive, KeyID: k1, Method: "GET", Operation: "listTags", Path: "/v1/tags?limit=10", Status: 200, RequestID: "req_r1", Deprecated: "listTags"},
				{AccountID: aLive, KeyID: k2, Method: "POST", Operation: "createTag", Path: "/v1/tags", Status: 201, RequestID: "req_r2",
					RequestBody: []byte(`{"name":"rye"}`), ResponseBody: []byte(`{"id":7,"name":"rye"}`), ClientRequestID: "sync-42"},
				{AccountID: aLive, KeyID: k1, Method: "POST", Operation: "createTag", Path: "/v1/tags", Status: 400, RequestID: "req_r3",
					RequestBody: []byte(`{"name":""}`), ResponseBody: problem(400, "VALIDATION_ERROR")},
				{AccountID: aLive, KeyID: k2, Method: "GET", Operation: "getTag", Path: "/v1/tags/9", Status: 404, RequestID: "req_r4",
					ResponseBody: problem(404, "NOT_FOUND")},
				{AccountID: aLive, KeyID: k1, Method: "GET", Operation: "listProducts", Path: "/v1/products", Status: 500, RequestID: "req_r5",
					ResponseBody: problem(500, "INTERNAL_ERROR")},
				{AccountID: aLive, KeyID: k1, Method: "PATCH", Operation: "updateTag", Path: "/v1/tags/7", Status: 200, RequestID: "req_r6", Deprecated: "updateTag:name",
					RequestBody: []byte(`{"name":"rye flour"}`), ResponseBody: []byte(`{"id":7,"name":"rye flour"}`)},
				{AccountID: aTest, KeyID: 99, Method: "GET", Operation: "listTags", Path: "/v1/tags", Status: 200, RequestID: "req_r7"},
				{AccountID: bLive, KeyID: 98, Method: "GET", Operation: "listTags", Path: "/v1/tags", Status: 200, RequestID: "req_r8", Deprecated: "listTags"},
				{Method: "GET", Operation: "listTags", Path: "/v1/tags", Status: 401, RequestID: "req_r9", RemoteAddr: "198.51.100.7:4000",
					ResponseBody: problem(401, "INVALID_API_KEY")},
				{Method: "POST", Operation: "createTag", Path: "/v1/tags", Status: 401, RequestID: "req_r10", RemoteAddr: "198.51.100.8:4000",
					RequestBody: []byte(`{"name":"x"}`), ResponseBody: problem(401, "INVALID_API_KEY")},
			}
			w := reqlog.NewWriter(st, nil, 0)
			for i, e := range entries {
				e.At = base.Add(time.Duration(i) * time.Minute)
				e.Duration = time.Duration(1000+i) * time.Microsecond
				w.Record(e)
			}
			w.Flush()
			if w.Written() != int64(len(entries)) {
				t.Fatalf("wrote %d of %d entries", w.Written(), len(entries))
			}
			// The event request r2 emitted.
			sys := policy.System(ctx)
			if err := st.Client.Event.Create().SetEventID("evt_fromr2").SetAccountID(aLive).SetEnvironment(event.EnvironmentLive).
				SetType("tag.created").SetResourceType("tag").SetResourceID(7).SetSnapshot(json.RawMessage(`{"id":7}`)).
				SetSource(event.SourceAPI).SetAPIKeyID(k2).SetRequestID("req_r2").Exec(sys); err != nil {
				t.Fatal(err)
			}

			// Who still uses what is deprecated: per key and use, newest
			// first, this organization's live account only.
			dep := cli(t, db, "requests", "--org", a, "--env", "live", "--deprecated")["deprecated_uses"].([]any)
			if len(dep) != 2 {
				t.Fatalf("--deprecated: %v, want r6's and r1's uses", dep)
			}
			if u := dep[0].(map[string]any); u["uses"] != "updateTag:name" || u["last_request_id"] != "req_r6" || int(u["api_key_id"].(float64)) != k1 || u["requests"].(float64) != 1 {
				t.Errorf("--deprecated, newest: %v", u)
			}
			if u := dep[1].(map[string]any); u["uses"] != "listTags" || u["last_request_id"] != "req_r1" {
				t.Errorf("--deprecated, second: %v", u)
			}
			if d := cli(t, db, "requests", "--org", a, "--env", "live", "--deprecated", "--since", base.Add(3*time.Minute).Format(time.RFC3339))["deprecated_uses"].([]any); len(d) != 1 {
				t.Errorf("--deprecated --since after r1: %v", d)
			}
			fails(t, db, "--deprecated lists keys", "requests", "--org", a, "--env", "live", "--deprecated", "--status", "4xx")

			ids := func(args ...string) []string {
				t.Helper()
				return requestIDs(t, cli(t, db, append([]string{"requests", "--org", a, "--env", "live"}, args...)...))
			}
			same := func(what string, got []string, want ...string) {
				t.Helper()
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Fatalf("%s: %v, want %v", what, got, want)
				}
			}

			all := cli(t, db, "requests", "--org", a, "--env", "live")
			same("the live log", requestIDs(t, all), "req_r6", "req_r5", "req_r4", "req_r3", "req_r2", "req_r1")
			if all["next_before"] != nil {
				t.Fatalf("a short page has a next page: %v", all["next_before"])
			}
			r2 := all["requests"].([]any)[4].(map[string]any)
			if got := strings.Join(keys(r2), ","); got != "api_key_id,client_addr,client_request_id,created_at,duration_us,error_code,id,method,operation,path,request_id,status,truncated,user_agent" {
				t.Fatalf("a listed request's members: %s", got)
			}
			if r2["method"] != "POST" || r2["status"] != float64(201) || r2["api_key_id"] != float64(k2) || r2["duration_us"] != float64(1001) ||
				r2["client_request_id"] != "sync-42" || r2["created_at"] != base.Add(time.Minute).Format(time.RFC3339) {
				t.Fatalf("listed r2: %v", r2)
			}
			if r3 := all["requests"].([]any)[3].(map[string]any); r3["error_code"] != "VALIDATION_ERROR" {
				t.Fatalf("listed r3: %v", r3)
			}

			// Paging: each page's next_before is its last row, and the next
			// page starts after it.
			var pages [][]string
			before := ""
			for range 4 {
				args := []string{"requests", "--org", a, "--env", "live", "--limit", "2"}
				if before != "" {
					args = append(args, "--before", before)
				}
				p := cli(t, db, args...)
				pages = append(pages, requestIDs(t, p))
				if p["next_before"] == nil {
					break
				}
				last := p["requests"].([]any)[1].(map[string]any)
				if p["next_before"] != last["id"] {
					t.Fatalf("next_before %v is not the page's last row %v", p["next_before"], last["id"])
				}
				before = fmt.Sprint(int(p["next_before"].(float64)))
			}
			same("pages of 2", []string{fmt.Sprint(pages)}, "[[req_r6 req_r5] [req_r4 req_r3] [req_r2 req_r1] []]")

			same("--status 4xx", ids("--status", "4xx"), "req_r4", "req_r3")
			same("--status 5xx", ids("--status", "5xx"), "req_r5")
			same("--status 2", ids("--status", "2"), "req_r6", "req_r2", "req_r1")
			same("--error-code", ids("--error-code", "VALIDATION_ERROR"), "req_r3")
			same("--key", ids("--key", fmt.Sprint(k2)), "req_r4", "req_r2")
			same("--method", ids("--method", "post"), "req_r3", "req_r2")
			same("--operation", ids("--operation", "createTag"), "req_r3", "req_r2")
			same("--since/--until", ids("--since", base.Add(2*time.Minute).Format(time.RFC3339), "--until", base.Add(4*time.Minute).Format(time.RFC3339)),
				"req_r4", "req_r3")
			same("--since 1h", ids("--since", "1h"))
			same("--since 3h --until 90m", ids("--since", "3h", "--until", "90m", "--status", "4xx"), "req_r4", "req_r3")
			same("--since 1d", ids("--since", "1d", "--method", "PATCH"), "req_r6")
			same("--key and --status", ids("--key", fmt.Sprint(k1), "--status", "2xx"), "req_r6", "req_r1")
			same("the test log", requestIDs(t, cli(t, db, "requests", "--org", a, "--env", "test")), "req_r7")

			// One request in full.
			one := cli(t, db, "requests", "--org", a, "--request-id", "req_r2")
			if got := strings.Join(keys(one), ","); got != "api_key_id,client_addr,client_request_id,created_at,duration_us,env,error_code,events,id,method,operation,path,request_body,request_id,response_body,status,truncated,user_agent" {
				t.Fatalf("one request's members: %s", got)
			}
			evs := one["events"].([]any)
			if one["env"] != "live" || one["request_body"] != `{"name":"rye"}` || one["response_body"] != `{"id":7,"name":"rye"}` ||
				len(evs) != 1 || evs[0].(map[string]any)["event_id"] != "evt_fromr2" || evs[0].(map[string]any)["type"] != "tag.created" ||
				evs[0].(map[string]any)["resource_id"] != float64(7) {
				t.Fatalf("request r2: %v", one)
			}
			if r1 := cli(t, db, "requests", "--org", a, "--env", "live", "--request-id", "req_r1"); r1["request_body"] != nil || r1["response_body"] != nil ||
				len(r1["events"].([]any)) != 0 || r1["path"] != "/v1/tags?limit=10" {
				t.Fatalf("request r1: %v", r1)
			}
			if r7 := cli(t, db, "requests", "--org", a, "--request-id", "req_r7"); r7["env"] != "test" {
				t.Fatalf("request r7: %v", r7)
			}
			fails(t, db, "in the test log", "requests", "--org", a, "--env", "live", "--request-id", "req_r7")
			fails(t, db, `no request "req_r8"`, "requests", "--org", a, "--request-id", "req_r8")
			fails(t, db, `no request "req_r9"`, "requests", "--org", a, "--request-id", "req_r9")
			if r8 := cli(t, db, "requests", "--org", fmt.Sprint(orgB), "--request-id", "req_r8"); r8["request_id"] != "req_r8" {
				t.Fatalf("request r8 of its own organization: %v", r8)
			}

			// The failed authentications: no account's requests.
			fa := cli(t, db, "requests", "--failed-auth")
			same("--failed-auth", requestIDs(t, fa), "req_r10", "req_r9")
			if r10 := fa["requests"].([]any)[0].(map[string]any); r10["api_key_id"] != nil || r10["client_addr"] != "198.51.100.8" ||
				r10["error_code"] != "INVALID_API_KEY" {
				t.Fatalf("failed authentication r10: %v", r10)
			}
			same("--failed-auth --method", requestIDs(t, cli(t, db, "requests", "--failed-auth", "--method", "GET")), "req_r9")

			// Text: a table newest first and the next page's cursor; one
			// request with its bodies and events.
			out, _, err := runOut("requests", "--org", a, "--env", "live", "--limit", "2", "--database", db)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			next := fmt.Sprint(int(cli(t, db, "requests", "--org", a, "--env", "live", "--limit", "2")["next_before"].(float64)))
			if len(lines) != 4 || !strings.HasPrefix(lines[0], "ROW") || !strings.Contains(lines[1], "req_r6") || !strings.Contains(lines[1], "PATCH") ||
				!strings.Contains(lines[1], base.Add(5*time.Minute).Format("2006-01-02 15:04:05")) || !strings.Contains(lines[2], "req_r5") ||
				!strings.Contains(lines[2], "INTERNAL_ERROR") || !strings.Contains(lines[2], "1.0ms") || lines[3] != "next page: --before "+next {
				t.Fatalf("requests table:\n%s", out)
			}
			if out, _, err = runOut("requests", "--org", a, "--env", "test", "--database", db); err != nil || !strings.HasSuffix(out, "last page\n") {
				t.Fatalf("last page: %v\n%s", err, out)
			}
			out, _, err = runOut("requests", "--org", a, "--request-id", "req_r2", "--database", db)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"req_r2", "POST", "201", "sync-42", "request body:\n{\"name\":\"rye\"}\n", "response body:\n{\"id\":7,\"name\":\"rye\"}\n",
				"events emitted: 1", "evt_fromr2", "tag.created", "tag:7"} {
				if !strings.Contains(out, want) {
					t.Fatalf("request r2 as text lacks %q:\n%s", want, out)
				}
			}

			// Refusals name the flag.
			bRow := fmt.Sprint(int(cli(t, db, "requests", "--org", fmt.Sprint(orgB), "--env", "live")["requests"].([]any)[0].(map[string]any)["id"].(float64)))
			for _, c := range []struct {
				want string
				args []string
			}{
				{"needs --org and --env", []string{"--org", a}},
				{"needs --org and --env", []string{"--env", "live"}},
				{"--env must be live or test", []string{"--org", a, "--env", "prod"}},
				{"--status", []string{"--org", a, "--env", "live", "--status", "6xx"}},
				{"--since must be an RFC 3339 time", []string{"--org", a, "--env", "live", "--since", "yesterday"}},
				{"--until must be an RFC 3339 time", []string{"--org", a, "--env", "live", "--until", "-5m"}},
				{"--since must be before --until", []string{"--org", a, "--env", "live", "--since", "1h", "--until", "2h"}},
				{"--limit must be 1 to 500", []string{"--org", a, "--env", "live", "--limit", "0"}},
				{"--limit must be 1 to 500", []string{"--org", a, "--env", "live", "--limit", "501"}},
				{"--method must be an HTTP method", []string{"--org", a, "--env", "live", "--method", "GE T"}},
				{"--key must be a key id", []string{"--org", a, "--env", "live", "--key", "-3"}},
				{"-frob", []string{"--org", a, "--env", "live", "--frob"}},
				{"does not exist", []string{"--org", a, "--env", "live", "--before", "987654"}},
				// Another organization's row is no cursor.
				{"does not exist", []string{"--org", a, "--env", "live", "--before", bRow}},
				{"does not exist", []string{"--org", "987654", "--env", "live"}},
				{"takes no --org, --env or --key", []string{"--failed-auth", "--org", a}},
				{"takes no --status, --limit", []string{"--org", a, "--request-id", "req_r2", "--status", "4xx", "--limit", "5"}},
				{"--request-id needs --org", []string{"--request-id", "req_r2"}},
				{"takes no --failed-auth", []string{"--failed-auth", "--request-id", "req_r2", "--org", a}},
			} {
				fails(t, db, c.want, append([]string{"requests"}, c.args...)...)
			}
		})
	}
}

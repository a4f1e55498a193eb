package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// logRequest records a request of account acct as the request log's writer
// does, with the key (0 for none), operation, status and bodies given.
func logRequest(t *testing.T, st *store.Store, acct, key int, method, op, path string, status int, code, reqBody, respBody string) *ent.APIRequest {
	t.Helper()
	r := &ent.APIRequest{CreatedAt: time.Now().UTC(), AccountID: acct, Method: method, Operation: op, Path: path, Status: status,
		ErrorCode: code, RequestID: ids.NewAt("req_", time.Now().UTC()), DurationUs: 4200, ClientAddr: "198.51.100.7", UserAgent: "shop/1.0",
		RequestBody: []byte(reqBody), ResponseBody: []byte(respBody)}
	if key != 0 {
		r.APIKeyID = &key
	}
	stored, err := reqlog.Insert(context.Background(), st, r)
	if err != nil {
		t.Fatal(err)
	}
	return stored[0]
}

// A viewer reads the test requests, narrows them by status, opens one (its
// costs hidden), goes from its event to the events page and back, and finds
// requests by id, with JavaScript and without; every page passes axe-core.
func TestRequestLog(t *testing.T) {
	for _, noScript := range []bool{false, true} {
		name := "script"
		if noScript {
			name = "no-script"
		}
		t.Run(name, func(t *testing.T) {
			dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
				s := newSite(t, st)
				org := dbtest.NewOrg(t, st, "")
				k, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Test, policy.Known(), "Shop")
				if err != nil {
					t.Fatal(err)
				}
				created := logRequest(t, st, org.Test.ID, k.Record.ID, "POST", "createProduct", "/v1/products", 201, "",
					`{"name":"Rye flour","cost":"2.40"}`, `{"data":{"id":5,"name":"Rye flour","cost":"2.40"}}`)
				notFound := logRequest(t, st, org.Test.ID, k.Record.ID, "GET", "getTag", "/v1/tags/99", 404, "NOT_FOUND",
					"", `{"code":"NOT_FOUND","request_id":"x"}`)
				live := logRequest(t, st, org.Live.ID, 0, "GET", "listTags", "/v1/tags", 200, "", "", "")
				evID := ids.New("evt_")
				if err := st.Client.Event.Create().SetEventID(evID).SetAccountID(org.Test.ID).SetEnvironment(event.EnvironmentTest).
					SetType("product.created").SetResourceType("product").SetResourceID(5).SetSnapshot([]byte(`{"id":5}`)).
					SetSource(event.SourceAPI).SetRequestID(created.RequestID).SetCreatedAt(time.Now()).
					Exec(policy.System(context.Background())); err != nil {
					t.Fatal(err)
				}

				viewer := s.person(org.Org.ID, people.Viewer)
				ctx := tab(t, noScript)
				s.signIn(t, ctx, viewer.Email)
				s.open(t, ctx, "/console/requests?env=test", http.StatusOK)
				check(t, ctx, "requests")
				got := mainText(t, ctx)
				if !strings.Contains(got, created.RequestID) || !strings.Contains(got, notFound.RequestID) || strings.Contains(got, live.RequestID) {
					t.Errorf("the test list:\n%s", got)
				}

				// The filters wait behind their disclosure.
				if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("details.filterbox > summary"))); err != nil {
					t.Fatalf("open the filters: %v", err)
				}
				browsertest.Fill(t, ctx, "Status", "4xx")
				submit(t, ctx, "Show requests", http.StatusOK)
				check(t, ctx, "requests-filtered")
				if got := mainText(t, ctx); !strings.Contains(got, notFound.RequestID) || strings.Contains(got, created.RequestID) {
					t.Errorf("the 4xx requests:\n%s", got)
				}
				if p := s.path(t, ctx); !strings.Contains(p, "env=test") || !strings.Contains(p, "status=4xx") {
					t.Errorf("the filter leads to %s", p)
				}
				s.open(t, ctx, "/console/requests?env=test&since=yesterday", http.StatusBadRequest)
				check(t, ctx, "requests-error")

				s.open(t, ctx, "/console/requests?env=test", http.StatusOK)
				follow(t, ctx, created.RequestID, http.StatusOK)
				check(t, ctx, "request")
				if p, want := s.path(t, ctx), fmt.Sprintf("/console/requests/%d?env=test", created.ID); p != want {
					t.Errorf("the request's link leads to %s, want %s", p, want)
				}
				// Copy buttons: the request id, the path and both bodies, shown
				// by the script (and only with it), each naming what it copies.
				copies, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('main button.copy')].filter(b => !b.hidden).map(b => b.getAttribute('aria-label') + '=' + document.getElementById(b.getAttribute('data-copy')).textContent.trim().split('\n')[0])`))
				if err != nil {
					t.Fatal(err)
				}
				wantCopies := []string{"Copy the path=/v1/products", "Copy the request id=" + created.RequestID, "Copy the request body={", "Copy the answer body={"}
				if noScript {
					wantCopies = nil
				}
				if strings.Join(copies, "|") != strings.Join(wantCopies, "|") {
					t.Errorf("the copy buttons: %q, want %q", copies, wantCopies)
				}
				got = mainText(t, ctx)
				for _, kept := range []string{"User agent", "shop/1.0", "Client address", "198.51.100.7", "Caller's X-Request-Id", "Deprecated use", "Duration", "4.2 ms"} {
					if !strings.Contains(got, kept) {
						t.Errorf("the request page does not show %q:\n%s", kept, got)
					}
				}
				if !strings.Contains(got, `"cost": "hidden"`) || strings.Contains(got, "2.40") || !strings.Contains(got, `"name": "Rye flour"`) {
					t.Errorf("the viewer's request page:\n%s", got)
				}
				follow(t, ctx, "product.created of product 5", http.StatusOK)
				if got := mainText(t, ctx); !strings.Contains(got, evID) {
					t.Errorf("the event's link shows:\n%s", got)
				}
				follow(t, ctx, created.RequestID, http.StatusOK)
				if p, want := s.path(t, ctx), fmt.Sprintf("/console/requests/%d?env=test", created.ID); p != want {
					t.Errorf("the event's request link leads to %s, want %s", p, want)
				}

				s.open(t, ctx, "/console/requests", http.StatusOK)
				browsertest.Fill(t, ctx, "Request id", notFound.RequestID)
				submit(t, ctx, "Find request", http.StatusOK)
				if p, want := s.path(t, ctx), fmt.Sprintf("/console/requests/%d?env=test", notFound.ID); p != want {
					t.Errorf("the search leads to %s, want %s", p, want)
				}
				check(t, ctx, "request-error")
				s.open(t, ctx, "/console/requests", http.StatusOK)
				browsertest.Fill(t, ctx, "Request id", "req_none")
				submit(t, ctx, "Find request", http.StatusNotFound)
				check(t, ctx, "requests-not-found")
				if got := mainText(t, ctx); !strings.Contains(got, "No request req_none is in this organization's log") {
					t.Errorf("the failed search says:\n%s", got)
				}
			})
		})
	}
}

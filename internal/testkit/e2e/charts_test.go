package e2e_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// drawn is a chart as the page shows it: its SVG's role, title and
// description, the bars' values (data-values), and the rows of its table.
type drawn struct {
	Role, Title, Desc string
	Values            []string
	Rows              [][]string
	// Rects is how many bar segments are drawn.
	Rects int
}

// readChart reads the chart of id from the page.
func readChart(t *testing.T, ctx context.Context, id string) drawn {
	t.Helper()
	js := `(() => {
		const f = document.getElementById(` + "`" + id + "`" + `);
		if (!f) return null;
		const svg = f.querySelector('svg');
		const ref = n => document.getElementById(n);
		const [ti, de] = svg.getAttribute('aria-labelledby').split(' ');
		return {Role: svg.getAttribute('role'), Title: ref(ti).textContent, Desc: ref(de).textContent,
			Values: svg.getAttribute('data-values').split(','),
			Rows: [...f.querySelectorAll(':scope table > tbody > tr')].map(r => [...r.children].map(c => c.textContent)),
			Rects: svg.querySelectorAll('rect').length};
	})()`
	d, err := chromedp.Run(ctx, chromedp.Evaluate[drawn](js))
	if err != nil {
		t.Fatalf("read the chart %s: %v", id, err)
	}
	return d
}

// row is the table row of the chart whose period is label, or nil.
func (d drawn) row(label string) []string {
	for _, r := range d.Rows {
		if len(r) > 0 && r[0] == label {
			return r
		}
	}
	return nil
}

// The request log draws the environment's requests per hour (last 24 hours)
// and per day (last 30 days) as pictures with a text alternative: each
// bar's values are the requests logged in its period, answered below 400
// and with an error, and the table beside it says the same with the error
// rate; the other environment's and another organization's requests are not
// counted. The filters wait behind a disclosure until one is set.
func TestRequestCharts(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		sys := policy.System(context.Background())
		now := time.Now().UTC()
		log := func(acct int, at time.Time, status int) {
			if _, err := reqlog.Insert(sys, st, &ent.APIRequest{CreatedAt: at, AccountID: acct, Method: "GET", Operation: "listTags",
				Path: "/v1/tags", Status: status, RequestID: ids.NewAt("req_", at), DurationUs: 900}); err != nil {
				t.Fatal(err)
			}
		}
		// Five hours ago: three requests, one answered 404 and one 503.
		earlier := now.Add(-5 * time.Hour)
		log(org.Test.ID, earlier, 200)
		log(org.Test.ID, earlier, 404)
		log(org.Test.ID, earlier, 503)
		// Three days ago: two, one a 304 (not an error).
		days := now.AddDate(0, 0, -3)
		log(org.Test.ID, days, 200)
		log(org.Test.ID, days, 304)
		// Not counted: the live environment, another organization, and 31 days ago.
		log(org.Live.ID, earlier, 500)
		log(other.Test.ID, earlier, 500)
		log(org.Test.ID, now.AddDate(0, 0, -31), 500)

		viewer := s.person(org.Org.ID, people.Viewer)
		ctx := tab(t, false)
		s.signIn(t, ctx, viewer.Email)
		s.open(t, ctx, "/console/requests?env=test", http.StatusOK)
		check(t, ctx, "requests-charts")

		hours := readChart(t, ctx, "per-hour")
		if hours.Role != "img" || hours.Title != "Test requests per hour, last 24 hours (UTC)" {
			t.Errorf("the hourly chart is a %q titled %q", hours.Role, hours.Title)
		}
		if len(hours.Values) != 24 || len(hours.Rows) != 24 {
			t.Fatalf("the hourly chart has %d bars and %d rows, want 24", len(hours.Values), len(hours.Rows))
		}
		label := earlier.Truncate(time.Hour).Format("2006-01-02 15:00")
		for i, r := range hours.Rows {
			want, wantRow := "0 0", []string{r[0], "0", "0", "—"}
			if r[0] == label {
				want, wantRow = "1 2", []string{label, "1", "2", "67%"}
			}
			if hours.Values[i] != want || strings.Join(r, "|") != strings.Join(wantRow, "|") {
				t.Errorf("hour %s: bar %q, row %q; want %q, %q", r[0], hours.Values[i], r, want, wantRow)
			}
		}
		if hours.Rects != 2 || !strings.HasPrefix(hours.Desc, "3 requests, 2 of them (67%) answered with an error") {
			t.Errorf("the hourly chart draws %d segments and says %q", hours.Rects, hours.Desc)
		}

		perDay := readChart(t, ctx, "per-day")
		if perDay.Role != "img" || perDay.Title != "Test requests per day, last 30 days (UTC)" || len(perDay.Values) != 30 {
			t.Fatalf("the daily chart: %q %q, %d bars", perDay.Role, perDay.Title, len(perDay.Values))
		}
		sum := 0
		for _, r := range perDay.Rows {
			if r[1] != "0" || r[2] != "0" {
				sum++
			}
		}
		if r := perDay.row(days.Format("2006-01-02")); strings.Join(r, "|") != days.Format("2006-01-02")+"|2|0|0%" {
			t.Errorf("three days ago: %q", r)
		}
		if r := perDay.row(earlier.Format("2006-01-02")); r == nil || r[2] != "2" {
			t.Errorf("five hours ago's day: %q", r)
		}
		if sum != 2 && !(sum == 1 && earlier.Format("2006-01-02") == days.Format("2006-01-02")) {
			t.Errorf("%d days have requests, want 2: %q", sum, perDay.Rows)
		}

		// The filters: closed with none set, open with one.
		if open := attrOf(t, ctx, "details.filterbox", "open"); open {
			t.Error("the filters are open with none set")
		}
		s.open(t, ctx, "/console/requests?env=test&status=4xx", http.StatusOK)
		if open := attrOf(t, ctx, "details.filterbox", "open"); !open {
			t.Error("the filters are closed with the status filter set")
		}
	})
}

// attrOf reports whether the element css has the attribute name.
func attrOf(t *testing.T, ctx context.Context, css, name string) bool {
	t.Helper()
	has, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(`+"`"+css+"`"+`).hasAttribute(`+"`"+name+"`"+`)`))
	if err != nil {
		t.Fatal(err)
	}
	return has
}

// The webhook endpoints show each endpoint's deliveries per day over 30
// days, as a picture with its text alternative whose bars are the
// deliveries made: delivered, failed, not attempted yet; an endpoint that
// never delivered says so instead of "Healthy".
func TestDeliveryCharts(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		sys := policy.System(context.Background())
		busy := st.Client.WebhookEndpoint.Create().SetAccountID(org.Test.ID).SetURL("https://receiver.example/busy").
			SetSecret("whsec_x").SetEventTypes([]string{}).SaveX(sys)
		st.Client.WebhookEndpoint.Create().SetAccountID(org.Test.ID).SetURL("https://receiver.example/quiet").
			SetSecret("whsec_x").SetEventTypes([]string{}).SaveX(sys)
		now := time.Now().UTC()
		later := now.AddDate(1, 0, 0) // never due while the test runs
		n := 0
		deliver := func(at time.Time, status webhookdelivery.Status, attempts int) {
			n++
			ev := st.Client.Event.Create().SetEventID(ids.New("evt_")).SetAccountID(org.Test.ID).SetEnvironment(event.EnvironmentTest).
				SetType("tag.created").SetResourceType("tag").SetResourceID(n).SetSnapshot([]byte(`{}`)).SetSource(event.SourceApp).
				SetCreatedAt(at).SetDispatchedAt(at).SaveX(sys)
			st.Client.WebhookDelivery.Create().SetAccountID(ev.AccountID).SetEventID(ev.ID).SetEndpointID(busy.ID).SetStatus(status).SetAttemptCount(attempts).
				SetNextAttemptAt(later).SetCreatedAt(at).ExecX(sys)
		}
		two := now.AddDate(0, 0, -2)
		deliver(two, webhookdelivery.StatusSucceeded, 1)
		deliver(two, webhookdelivery.StatusSucceeded, 2)
		deliver(two, webhookdelivery.StatusAbandoned, 8)
		deliver(now.AddDate(0, 0, -40), webhookdelivery.StatusSucceeded, 1) // older than the chart

		viewer := s.person(org.Org.ID, people.Viewer)
		ctx := tab(t, false)
		s.signIn(t, ctx, viewer.Email)
		s.open(t, ctx, "/console/webhooks", http.StatusOK)
		check(t, ctx, "webhooks-charts")
		c := readChart(t, ctx, "deliveries-"+strconv.Itoa(busy.ID))
		if c.Role != "img" || c.Title != "Deliveries to https://receiver.example/busy per day, last 30 days (UTC)" || len(c.Values) != 30 {
			t.Fatalf("the endpoint's chart: %q %q, %d bars", c.Role, c.Title, len(c.Values))
		}
		label := two.Format("2006-01-02")
		for i, r := range c.Rows {
			want := "0 0 0"
			if r[0] == label {
				want = "2 1 0"
				if strings.Join(r, "|") != label+"|2|1|0|67%" {
					t.Errorf("the day of the deliveries: %q", r)
				}
			}
			if c.Values[i] != want {
				t.Errorf("day %s: bar %q, want %q", r[0], c.Values[i], want)
			}
		}
		if !strings.HasPrefix(c.Desc, "3 deliveries in the last 30 days: 2 delivered (67% of those attempted), 1 failed") {
			t.Errorf("the chart says %q", c.Desc)
		}
		rows := mainText(t, ctx)
		if !strings.Contains(rows, "No deliveries yet") {
			t.Errorf("the endpoint that never delivered is not said to be so:\n%s", rows)
		}
		s.open(t, ctx, "/console/webhooks/"+strconv.Itoa(busy.ID), http.StatusOK)
		check(t, ctx, "webhook-chart")
		if c := readChart(t, ctx, "deliveries-"+strconv.Itoa(busy.ID)); c.Role != "img" || c.row(label) == nil || c.row(label)[1] != "2" {
			t.Errorf("the endpoint page's chart: %q, %q", c.Role, c.row(label))
		}
	})
}

package testaccount_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/schema"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/documentcounter"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/migrate"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/ent/webhookattempt"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/modules/testaccount"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// server serves the API over st for the test; its rate limit is out of the
// way of the loops below.
func server(t *testing.T, st *store.Store) string {
	t.Helper()
	cfg := config.Defaults()
	cfg.AuthFailLimit = 1 << 20
	cfg.RateLimit = 1 << 20
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}

// call sends a request with key and returns the status and decoded body.
func call(t testing.TB, method, url, key string, body any) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Error(err)
			return 0, nil
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Errorf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode, m
}

// counts are the rows of an account in every table with an account_id,
// taken from the generated schema so that a table added later is counted.
func counts(t *testing.T, st *store.Store, acct int) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, tb := range migrate.Tables {
		if !hasAccount(tb.Columns) {
			continue
		}
		// Direct SQL: the test counts an account's rows in every tenant table, which no one ent query reads.
		var n int
		if err := st.DB.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM "+tb.Name+" WHERE account_id = $1", acct).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[tb.Name] = n
	}
	return out
}

// elsewhere are the rows of every table that are not the account's: all rows
// of the tables without an account_id, and the other accounts' and shared
// rows of the others.
func elsewhere(t *testing.T, st *store.Store, acct int) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, tb := range migrate.Tables {
		q, args := "SELECT COUNT(*) FROM "+tb.Name, []any{}
		if hasAccount(tb.Columns) {
			q, args = q+" WHERE account_id IS NULL OR account_id <> $1", []any{acct}
		}
		// Direct SQL: the test counts rows in every table, which no one ent query reads.
		var n int
		if err := st.DB.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[tb.Name] = n
	}
	return out
}

func hasAccount(cols []*schema.Column) bool {
	for _, c := range cols {
		if c.Name == "account_id" {
			return true
		}
	}
	return false
}

// counters are the account's document counters (document -> last number).
func counters(t *testing.T, c *ent.Client, acct int) map[string]int {
	t.Helper()
	// System viewer: counters are internal; the test reads them to compare numbering.
	cs, err := c.DocumentCounter.Query().Where(documentcounter.AccountID(acct)).All(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, x := range cs {
		out[x.Document] = x.Last
	}
	return out
}

// ResetTest deletes what the test account gained through the API (a tag made
// with a test key, its event, that event's delivery and attempt), brings back
// the seed with its document numbering, keeps the keys (the same key reads
// the seed afterwards) and the endpoints, records the reset with its counts,
// and leaves the live account and another organization alone, both ways.
func TestResetTest(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		sys := policy.System(ctx)
		url := server(t, st)
		a := dbtest.NewSeededOrg(t, st)
		b := dbtest.NewSeededOrg(t, st)
		fresh := counts(t, st, b.Test.ID) // a seed as `org create` makes it
		if got := counts(t, st, a.Test.ID); !reflect.DeepEqual(got, fresh) {
			t.Fatalf("two fresh seeds differ:\n%v\n%v", got, fresh)
		}
		freshCounters := counters(t, st.Client, b.Test.ID)
		if len(freshCounters) == 0 {
			t.Fatal("the seed numbers no document: the counter check below proves nothing")
		}
		testKey := a.Key(t, policy.Test, "all")
		liveKey := a.Key(t, policy.Live, "all")
		bKey := b.Key(t, policy.Test, "all")

		// Changes the reset must undo, and some it must keep.
		st1, tag := call(t, "POST", url+"/v1/tags", testKey, map[string]any{"name": "Marker", "ref_type": "PRODUCT"})
		if st1 != 201 {
			t.Fatalf("create a tag with the test key: %d %v", st1, tag)
		}
		markerID := int(tag["data"].(map[string]any)["id"].(float64))
		if s, _ := call(t, "POST", url+"/v1/tags", liveKey, map[string]any{"name": "Live marker", "ref_type": "PRODUCT"}); s != 201 {
			t.Fatalf("create a live tag: %d", s)
		}
		if s, _ := call(t, "POST", url+"/v1/tags", bKey, map[string]any{"name": "B marker", "ref_type": "PRODUCT"}); s != 201 {
			t.Fatalf("create a tag in the other organization: %d", s)
		}
		endpoint, err := st.Client.WebhookEndpoint.Create().SetAccountID(a.Test.ID).SetURL("https://example.com/hook").SetSecret("whsec_dGVzdA==").Save(sys)
		if err != nil {
			t.Fatal(err)
		}
		testEvent, err := st.Client.Event.Query().Where(event.AccountID(a.Test.ID)).Only(sys)
		if err != nil {
			t.Fatalf("the event of the tag made with the test key: %v", err)
		}
		delivery, err := st.Client.WebhookDelivery.Create().SetAccountID(testEvent.AccountID).SetEndpointID(endpoint.ID).SetEventID(testEvent.ID).SetNextAttemptAt(time.Now()).Save(sys)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Client.WebhookAttempt.Create().SetAccountID(delivery.AccountID).SetDeliveryID(delivery.ID).SetTrigger("schedule").SetAttemptedAt(time.Now()).
			SetRequestHeaders(map[string]string{}).SetRequestBody("{}").SetDurationMs(1).SetSuccess(false).Exec(sys); err != nil {
			t.Fatal(err)
		}
		// Documents numbered since the seed.
		if err := st.Client.DocumentCounter.Update().Where(documentcounter.AccountID(a.Test.ID)).AddLast(5).Exec(sys); err != nil {
			t.Fatal(err)
		}
		s, list := call(t, "GET", url+"/v1/tags?ref_type=PRODUCT&limit=200", testKey, nil)
		if s != 200 {
			t.Fatalf("list tags with the test key: %d %v", s, list)
		}
		tagsBefore := list["data"].([]any)
		elsewhereBefore := elsewhere(t, st, a.Test.ID)
		liveBefore := counts(t, st, a.Live.ID)
		bBefore := counts(t, st, b.Test.ID)
		aBefore := counts(t, st, a.Test.ID)

		r, err := testaccount.ResetTest(audit.WithActor(ctx, "ops@desk"), st.Client, a.Org.ID)
		if err != nil {
			t.Fatal(err)
		}

		// Outside the test account, the reset wrote its audit record,
		// nothing more.
		wantElsewhere := maps.Clone(elsewhereBefore)
		wantElsewhere[migrate.AuditRecordsTable.Name]++
		if got := elsewhere(t, st, a.Test.ID); !reflect.DeepEqual(got, wantElsewhere) {
			t.Errorf("rows outside the test account:\n%v\nwant\n%v", got, wantElsewhere)
		}
		after := counts(t, st, a.Test.ID)
		for table, n := range fresh {
			want := n
			switch table {
			case migrate.APIKeysTable.Name, migrate.WebhookEndpointsTable.Name:
				want = aBefore[table] // kept as they were
			}
			if after[table] != want {
				t.Errorf("%s: %d rows of the test account after the reset, want %d (a fresh seed's, or kept)", table, after[table], want)
			}
		}
		if after[migrate.APIKeysTable.Name] != 1 || after[migrate.WebhookEndpointsTable.Name] != 1 {
			t.Errorf("keys and endpoints of the test account: %v", after)
		}
		if got := counters(t, st.Client, a.Test.ID); !reflect.DeepEqual(got, freshCounters) {
			t.Errorf("document counters after the reset: %v, want a fresh seed's %v", got, freshCounters)
		}
		if got := counts(t, st, a.Live.ID); !reflect.DeepEqual(got, liveBefore) {
			t.Errorf("live account changed:\n%v\n%v", got, liveBefore)
		}
		if got := counts(t, st, b.Test.ID); !reflect.DeepEqual(got, bBefore) {
			t.Errorf("the other organization's test account changed:\n%v\n%v", got, bBefore)
		}
		if n, err := st.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(endpoint.ID)).Count(sys); err != nil || n != 0 {
			t.Errorf("deliveries of the cleared events: %d, %v", n, err)
		}
		if n, err := st.Client.WebhookAttempt.Query().Where(webhookattempt.DeliveryID(delivery.ID)).Count(sys); err != nil || n != 0 {
			t.Errorf("attempts of the cleared deliveries: %d, %v", n, err)
		}
		if _, err := st.Client.WebhookEndpoint.Get(sys, endpoint.ID); err != nil {
			t.Errorf("endpoint: %v", err)
		}

		// The counts: what was there, and a fresh seed.
		wantDeleted, wantCreated := 0, 0
		for table, n := range aBefore {
			if table != migrate.APIKeysTable.Name && table != migrate.WebhookEndpointsTable.Name {
				wantDeleted += n
				wantCreated += fresh[table]
			}
		}
		if r.OrganizationID != a.Org.ID || r.AccountID != a.Test.ID || r.Deleted != wantDeleted || r.Created != wantCreated || wantCreated < 100 {
			t.Errorf("reset = {org %d, account %d, deleted %d, created %d}, want {%d, %d, %d, %d}",
				r.OrganizationID, r.AccountID, r.Deleted, r.Created, a.Org.ID, a.Test.ID, wantDeleted, wantCreated)
		}
		if c := r.Tables["tags"]; c.Deleted != aBefore["tags"] || c.Created != fresh["tags"] || c.Deleted != c.Created+1 {
			t.Errorf("tags: %+v, want the seed's %d and the marker deleted, the seed's created", c, fresh["tags"])
		}
		recs, err := st.Client.AuditRecord.Query().Where(auditrecord.OrganizationID(a.Org.ID), auditrecord.ActionEQ(audit.TestDataReset)).All(sys)
		if err != nil || len(recs) != 1 {
			t.Fatalf("audit records of the reset: %v, %v", recs, err)
		}
		if d := recs[0].Detail; recs[0].Actor != "ops@desk" || d["deleted"] != float64(wantDeleted) && d["deleted"] != wantDeleted ||
			d["created"] != float64(wantCreated) && d["created"] != wantCreated {
			t.Errorf("audit record: actor %q, detail %v", recs[0].Actor, d)
		}

		// The same key reads the seed: the marker is gone, the seed's tags are back.
		s, list = call(t, "GET", url+"/v1/tags?ref_type=PRODUCT&limit=200", testKey, nil)
		if s != 200 {
			t.Fatalf("list tags with the test key after the reset: %d %v", s, list)
		}
		data := list["data"].([]any)
		if len(data) != len(tagsBefore)-1 {
			t.Errorf("product tags after the reset: %d, want the seed's %d", len(data), len(tagsBefore)-1)
		}
		for _, x := range data {
			if x.(map[string]any)["name"] == "Marker" || int(x.(map[string]any)["id"].(float64)) == markerID {
				t.Errorf("the tag made before the reset is still listed: %v", x)
			}
		}

		// And back: resetting the other organization leaves this one alone.
		aNow := counts(t, st, a.Test.ID)
		if _, err := testaccount.ResetTest(ctx, st.Client, b.Org.ID); err != nil {
			t.Fatal(err)
		}
		if got := counts(t, st, a.Test.ID); !reflect.DeepEqual(got, aNow) {
			t.Errorf("resetting another organization changed this one:\n%v\n%v", got, aNow)
		}
		bFresh := maps.Clone(fresh)
		bFresh[migrate.APIKeysTable.Name] = 1 // its key stays
		if got := counts(t, st, b.Test.ID); !reflect.DeepEqual(got, bFresh) {
			t.Errorf("the other organization after its reset:\n%v\nwant a fresh seed's\n%v", got, bFresh)
		}

		if _, err := testaccount.ResetTest(ctx, st.Client, 999999999); err == nil || !strings.Contains(err.Error(), "organization 999999999 does not exist") {
			t.Errorf("reset of no organization: %v", err)
		}
	})
}

// shape is what a product list says of each product beyond its id: for each
// product code, the length of every list in its material and recipe parts
// (suppliers, banned countries, substitutes, steps, …), which the reader loads
// in statements after the page's own.
func shape(data []any) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, x := range data {
		p := x.(map[string]any)
		lens := map[string]int{}
		for _, part := range []string{"material", "recipe"} {
			obj, _ := p[part].(map[string]any)
			for k, v := range obj {
				if l, ok := v.([]any); ok {
					lens[part+"."+k] = len(l)
				}
			}
		}
		out[p["product_code"].(string)] = lens
	}
	return out
}

// While the test account is reset again and again, API lists with a test key
// answer with the data wholly before or wholly after each reset: the tag list
// has the tag made before the reset and its total counts it, or has neither;
// the product list has the seed's products and total, and the lists of each
// product (suppliers, banned countries, substitutes, recipe lists), which are
// read in statements of their own after the page's, are the seed's too. A
// product of before with the empty lists of after would be a mix: every GET
// with a test key reads in one snapshot (store.Snapshot), and any mix fails.
func TestResetTestWhileReading(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		url := server(t, st)
		a := dbtest.NewSeededOrg(t, st)
		key := a.Key(t, policy.Test, "all")
		tags := url + "/v1/tags?ref_type=PRODUCT&limit=200"
		products := url + "/v1/products?limit=200"
		_, first := call(t, "GET", tags, key, nil)
		seedTags := len(first["data"].([]any))
		_, first = call(t, "GET", products, key, nil)
		seedShape := shape(first["data"].([]any))
		if len(seedShape) < 20 {
			t.Fatalf("the seed lists %d products: too few to see a mix", len(seedShape))
		}

		done := make(chan struct{})
		type tally struct{ before, after, edges int }
		tagResult, productResult := make(chan tally, 1), make(chan tally, 1)
		go func() { // the tag list: marker and total agree
			var n tally
			defer func() { tagResult <- n }()
			for {
				select {
				case <-done:
					return
				case <-time.After(time.Millisecond): // room for the reset on two cores
				}
				s, m := call(t, "GET", tags, key, nil)
				if s != 200 {
					t.Errorf("tags: %d %v", s, m)
					return
				}
				data := m["data"].([]any)
				total := int(m["pagination"].(map[string]any)["total"].(float64))
				marked := false
				for _, x := range data {
					marked = marked || strings.HasPrefix(x.(map[string]any)["name"].(string), "Marker")
				}
				switch {
				case marked && total == seedTags+1 && len(data) == total:
					n.before++
				case !marked && total == seedTags && len(data) == total:
					n.after++
				default:
					t.Errorf("tag list mixes before and after the reset: marker %t, total %d, %d rows, seed %d", marked, total, len(data), seedTags)
				}
			}
		}()
		go func() { // the product list: the seed's products, and their lists
			var n tally
			defer func() { productResult <- n }()
			for {
				select {
				case <-done:
					return
				case <-time.After(time.Millisecond): // room for the reset on two cores
				}
				s, m := call(t, "GET", products, key, nil)
				if s != 200 {
					t.Errorf("products: %d %v", s, m)
					return
				}
				data := m["data"].([]any)
				total := int(m["pagination"].(map[string]any)["total"].(float64))
				got := shape(data)
				if total != len(seedShape) || len(data) != total || !reflect.DeepEqual(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(seedShape))) {
					t.Errorf("product list: total %d, %d rows, codes %v; want the seed's %d", total, len(data), slices.Sorted(maps.Keys(got)), len(seedShape))
				}
				if reflect.DeepEqual(got, seedShape) {
					n.after++
				} else {
					n.edges++
				}
			}
		}()
		const rounds = 4
		for k := range rounds {
			if s, m := call(t, "POST", url+"/v1/tags", key, map[string]any{"name": "Marker " + strconv.Itoa(k), "ref_type": "PRODUCT"}); s != 201 {
				t.Fatalf("marker: %d %v", s, m)
			}
			time.Sleep(20 * time.Millisecond) // let the readers see it
			if _, err := testaccount.ResetTest(context.Background(), st.Client, a.Org.ID); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(20 * time.Millisecond) // and the seed after the last reset
		close(done)
		tagTally, productTally := <-tagResult, <-productResult
		t.Logf("tag list answers during %d resets: %d before, %d after; product list answers: %d whole, %d mixed",
			rounds, tagTally.before, tagTally.after, productTally.after, productTally.edges)
		if tagTally.before == 0 || tagTally.after == 0 || productTally.after+productTally.edges < rounds {
			t.Errorf("too few answers to tell: %+v %+v", tagTally, productTally)
		}
		if productTally.edges > 0 {
			t.Errorf("%d of %d product lists showed products of before with the lists of after: the reads of a request left its snapshot",
				productTally.edges, productTally.after+productTally.edges)
		}
	})
}

// blockedBy waits until a backend waits for a lock that pid holds and returns
// it; it fails the test if done is closed first or ten seconds pass.
func blockedBy(t *testing.T, st *store.Store, pid int, done <-chan struct{}, what string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			t.Fatalf("%s finished without waiting for backend %d", what, pid)
		default:
		}
		// Direct SQL: which backend waits for which is PostgreSQL's own view, no table of the schema.
		var blocked int
		err := st.DB.QueryRowContext(context.Background(),
			"SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) LIMIT 1", pid).Scan(&blocked)
		if err == nil {
			return blocked
		}
		if !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s never waited for backend %d", what, pid)
	return 0
}

// A write to the test account that adds a row while a reset is under way
// waits for the reset to commit, and then lands on the fresh seed: it
// neither commits in the middle of the reset nor escapes its DELETE as if it
// came after it. The reset is held in the middle by a transaction holding a
// seeded tag's row lock (adding nothing, so the reset's lock on the account
// takes no wait); the write is a tag made in a transaction, as the API makes
// it.
func TestResetTestOrdersWrites(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		if st.Dialect != dialect.Postgres {
			t.Skip("SQLite runs one writing transaction at a time, each holding the database's write lock from BEGIN: no write can fall inside a reset")
		}
		bg := context.Background()
		a := dbtest.NewSeededOrg(t, st)
		ctx := a.Ctx(policy.Test)
		seedTags, err := st.Client.Tag.Query().Count(ctx)
		if err != nil || seedTags == 0 {
			t.Fatalf("seeded tags: %d, %v", seedTags, err)
		}
		held, err := st.Client.Tag.Query().First(ctx)
		if err != nil {
			t.Fatal(err)
		}

		hold, err := st.DB.BeginTx(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer hold.Rollback()
		var holdPID int
		// Direct SQL: the test holds one row's lock in a transaction of its own, and needs its backend's id.
		if err := hold.QueryRowContext(bg, "SELECT pg_backend_pid()").Scan(&holdPID); err != nil {
			t.Fatal(err)
		}
		if _, err := hold.ExecContext(bg, "UPDATE tags SET name = name WHERE id = $1", held.ID); err != nil {
			t.Fatal(err)
		}

		resetDone, resetErr := make(chan struct{}), error(nil)
		go func() {
			defer close(resetDone)
			_, resetErr = testaccount.ResetTest(bg, st.Client, a.Org.ID)
		}()
		resetPID := blockedBy(t, st, holdPID, resetDone, "the reset")

		writeDone, writeErr := make(chan struct{}), error(nil)
		go func() {
			defer close(writeDone)
			writeErr = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
				return tx.Tag.Create().SetName("Late").SetRefType(tag.RefTypePRODUCT).Exec(ctx)
			})
		}()
		blockedBy(t, st, resetPID, writeDone, "a write during the reset")

		if err := hold.Rollback(); err != nil {
			t.Fatal(err)
		}
		<-resetDone
		<-writeDone
		if resetErr != nil || writeErr != nil {
			t.Fatalf("reset: %v; write: %v", resetErr, writeErr)
		}
		late, err := st.Client.Tag.Query().Where(tag.Name("Late")).Count(ctx)
		if err != nil || late != 1 {
			t.Errorf("the write that waited for the reset: %d tags, %v; want it kept", late, err)
		}
		if n, err := st.Client.Tag.Query().Count(ctx); err != nil || n != seedTags+1 {
			t.Errorf("tags after the reset and the write: %d, %v; want the seed's %d and the write's", n, err, seedTags)
		}
	})
}

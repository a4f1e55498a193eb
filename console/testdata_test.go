package console_test

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/testaccount"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// tagExists reports whether the tag of id is still there.
func tagExists(t *testing.T, st *store.Store, id int) bool {
	t.Helper()
	ok, err := st.Client.Tag.Query().Where(tag.ID(id)).Exist(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// resets are the test-data resets recorded for org.
func resets(t *testing.T, st *store.Store, orgID int) []*ent.AuditRecord {
	t.Helper()
	recs, err := st.Client.AuditRecord.Query().
		Where(auditrecord.OrganizationID(orgID), auditrecord.ActionEQ(audit.TestDataReset)).
		All(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// seededOrg creates an organization named name whose test account holds the
// seed, as `larder org create` makes it.
func seededOrg(t *testing.T, st *store.Store, name string) *dbtest.Org {
	t.Helper()
	o, err := tenancy.Create(context.Background(), st.Client, name, tenancy.Entitled, "CAD", seed.TestAccount)
	if err != nil {
		t.Fatal(err)
	}
	return &dbtest.Org{Organization: o}
}

// The test-data page says what the test account holds; a reset asks for the
// organization's name typed out and refuses anything else beside the field,
// changing nothing; with the name it replaces the test data with the seed
// (the marker made before is gone, the seed's counts are back), keeps the
// live data and another organization's, shows the counts, and is recorded
// under the person's e-mail and address. A viewer may not reset.
func TestResetTestDataPage(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		d := newDesk(t, st)
		org, other := seededOrg(t, st, "Acme Bakery"), seededOrg(t, st, "Acme Bakery Two")
		seed, err := testaccount.TestContents(ctx, st.Client, org.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		marker := tagged(t, st, org, policy.Test, "Marker")
		liveMarker := tagged(t, st, org, policy.Live, "Live marker")
		theirMarker := tagged(t, st, other, policy.Test, "Their marker")
		held, err := testaccount.TestContents(ctx, st.Client, org.Org.ID)
		if err != nil || held.Total != seed.Total+2 { // the marker and its event
			t.Fatalf("before: %d rows, want the seed's %d and 2: %v", held.Total, seed.Total, err)
		}

		b, person := d.signedIn(org.Org.ID, people.Developer)
		page := b.get("/console/test-data")
		if page.status != http.StatusOK || !strings.Contains(page.body, fmt.Sprintf("A reset would delete <strong>%d</strong> records", held.Total)) ||
			strings.Contains(page.body, `data-confirm`) || !strings.Contains(page.body, "Type the organization&#39;s name, "+template.HTMLEscapeString(org.Org.Name)+", to confirm") {
			t.Fatalf("page: %d\n%s", page.status, page.body)
		}

		// Refused: nothing changes, the message is beside the field.
		for _, tc := range []struct{ name, msg string }{
			{"", "Type the organization's name to confirm the reset."},
			{"   ", "Type the organization's name to confirm the reset."},
			{strings.ToUpper(org.Org.Name) + "x", fmt.Sprintf("That is not the organization's name. Type “%s” exactly to confirm the reset.", org.Org.Name)},
			{other.Org.Name + "-nope", fmt.Sprintf("That is not the organization's name. Type “%s” exactly to confirm the reset.", org.Org.Name)},
		} {
			res := b.post("/console/test-data", url.Values{"name": {tc.name}})
			want := `<p class="error" id="e-name">` + template.HTMLEscapeString(tc.msg) + `</p>`
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, want) {
				t.Errorf("name %q: %d, want 400 with %s", tc.name, res.status, want)
			}
		}
		if !tagExists(t, st, marker.ID) || len(resets(t, st, org.Org.ID)) != 0 {
			t.Fatal("a refused reset changed the test data or was recorded")
		}

		// A viewer may not reset, even with the name.
		viewer, _ := d.signedIn(org.Org.ID, people.Viewer)
		if res := viewer.post("/console/test-data", url.Values{"name": {org.Org.Name}}); res.status != http.StatusForbidden || !tagExists(t, st, marker.ID) {
			t.Fatalf("viewer: %d, marker there %t", res.status, tagExists(t, st, marker.ID))
		}

		res := b.post("/console/test-data", url.Values{"name": {" " + org.Org.Name + " "}})
		if res.status != http.StatusSeeOther || res.location() != "/console/test-data" {
			t.Fatalf("reset: %d to %q\n%s", res.status, res.location(), res.body)
		}
		if tagExists(t, st, marker.ID) {
			t.Error("the marker made before the reset is still there")
		}
		if !tagExists(t, st, liveMarker.ID) || !tagExists(t, st, theirMarker.ID) {
			t.Error("the reset removed live data or another organization's")
		}
		after, err := testaccount.TestContents(ctx, st.Client, org.Org.ID)
		if err != nil || after.Total != seed.Total || fmt.Sprint(after.Tables) != fmt.Sprint(seed.Tables) {
			t.Errorf("after the reset: %d rows %v, want the seed's %d %v (%v)", after.Total, after.Tables, seed.Total, seed.Tables, err)
		}
		flash := fmt.Sprintf("The test account is reset: %d records deleted, %d seeded records created.", held.Total, seed.Total)
		if page := b.get("/console/test-data"); !strings.Contains(page.body, `<p class="flash" role="status">`+flash+`</p>`) {
			t.Errorf("no flash %q after the reset", flash)
		}
		recs := resets(t, st, org.Org.ID)
		if len(recs) != 1 || recs[0].Actor != person.Email || recs[0].Address != "127.0.0.1" ||
			fmt.Sprint(recs[0].Detail["deleted"]) != fmt.Sprint(held.Total) || fmt.Sprint(recs[0].Detail["created"]) != fmt.Sprint(seed.Total) {
			t.Fatalf("audit records of the reset: %+v", recs)
		}
		if len(resets(t, st, other.Org.ID)) != 0 {
			t.Error("the reset was recorded for another organization")
		}

		// And the other way: the other organization's admin resets theirs
		// with their own name, which leaves this one alone.
		again := tagged(t, st, org, policy.Test, "Marker again")
		ob, _ := d.signedIn(other.Org.ID, people.Admin)
		if res := ob.post("/console/test-data", url.Values{"name": {org.Org.Name}}); res.status != http.StatusBadRequest {
			t.Errorf("the other organization's admin confirmed with this one's name: %d", res.status)
		}
		if res := ob.post("/console/test-data", url.Values{"name": {other.Org.Name}}); res.status != http.StatusSeeOther {
			t.Fatalf("the other organization's reset: %d", res.status)
		}
		if tagExists(t, st, theirMarker.ID) || !tagExists(t, st, again.ID) || len(resets(t, st, org.Org.ID)) != 1 {
			t.Error("the other organization's reset did not stay in its own test account")
		}
	})
}

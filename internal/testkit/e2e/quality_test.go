package e2e_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// signLabel is the label of the field that signs a release.
const signLabel = "Your password, to sign a release (RELEASED only)"

// An operator opens the quality queue of the test account, opens the lot on
// hold, releases it with a note, and reads its new status and the decision
// in its history (with the status before), once the password signs it (a
// wrong one first changes nothing); back in the queue the lot is gone; all of it without
// JavaScript. The queue and the lot's page, with and without the form's
// refusal, pass axe-core.
func TestQualityRelease(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewSeededOrg(t, st)
		held, err := st.Client.ProductLot.Query().Where(productlot.LotNumber("OA-2610-03")).Only(org.Ctx(policy.Test))
		if err != nil {
			t.Fatal(err)
		}
		operator := s.person(org.Org.ID, people.Operator)
		// Without JavaScript: the queue and the form are the server's alone.
		tb := tab(t, true)
		s.signIn(t, tb, operator.Email)

		follow(t, tb, "Quality", http.StatusOK)
		// Without a live key the console shows the test account.
		if env, _ := envShown(t, tb); env != "test" {
			t.Fatalf("the quality queue shows %q, want test", env)
		}
		check(t, tb, "queue")
		queue := browsertest.Text(t, tb, "table tbody")
		for _, lot := range []string{"OA-2610-03", "BU-2611-11"} {
			if !strings.Contains(queue, lot) {
				t.Errorf("the queue does not list %s:\n%s", lot, queue)
			}
		}
		follow(t, tb, "OA-2610-03", http.StatusOK)
		if p, want := s.path(t, tb), fmt.Sprintf("/console/lots/%d?env=test", held.ID); p != want {
			t.Errorf("the queue's link leads to %s, want %s", p, want)
		}
		check(t, tb, "lot-on-hold")

		// The same decision again (its note typed anew: the form starts
		// without one) is refused beside the status.
		browsertest.Fill(t, tb, "Note", "Awaiting the mill's certificate of analysis.")
		submit(t, tb, "Record the decision", http.StatusConflict)
		check(t, tb, "lot-refused")
		if got := browsertest.Text(t, tb, "#e-status"); !strings.Contains(got, "The lot is ON_HOLD already") {
			t.Errorf("the refusal says %q", got)
		}

		browsertest.Fill(t, tb, "Status", "RELEASED")
		browsertest.Fill(t, tb, "Note", "Certificate of analysis received: within specification.")
		// A release is signed with the password: a wrong one changes nothing.
		browsertest.Fill(t, tb, signLabel, "not my password!")
		submit(t, tb, "Record the decision", http.StatusBadRequest)
		check(t, tb, "lot-release-unsigned")
		if got := browsertest.Text(t, tb, "#e-signature_password"); !strings.Contains(got, "That is not your password") {
			t.Errorf("the wrong signature says %q", got)
		}
		if lot, err := st.Client.ProductLot.Get(org.Ctx(policy.Test), held.ID); err != nil || lot.QcStatus != productlot.QcStatusON_HOLD {
			t.Fatalf("after a wrong signature the lot is %v (%v), want ON_HOLD", lot.QcStatus, err)
		}
		browsertest.Fill(t, tb, signLabel, password)
		submit(t, tb, "Record the decision", http.StatusOK)
		if p, want := s.path(t, tb), fmt.Sprintf("/console/lots/%d?env=test", held.ID); p != want {
			t.Errorf("the decision leads to %s, want %s", p, want)
		}
		check(t, tb, "lot-released")
		page := mainText(t, tb)
		for _, s := range []string{"Lot OA-2610-03 is now RELEASED.", "Certificate of analysis received: within specification."} {
			if !strings.Contains(page, s) {
				t.Errorf("the lot's page lacks %q:\n%s", s, page)
			}
		}
		if got := browsertest.Text(t, tb, "#quality + dl"); !strings.Contains(got, "RELEASED since") {
			t.Errorf("the lot's status reads %q", got)
		}
		history := browsertest.Text(t, tb, `table[aria-labelledby="qc-history"] tbody`)
		for _, s := range []string{"RELEASED", "ON_HOLD", "Certificate of analysis received: within specification.", operator.Email} {
			if !strings.Contains(history, s) {
				t.Errorf("the history lacks %q:\n%s", s, history)
			}
		}

		follow(t, tb, "Quality", http.StatusOK)
		if queue := browsertest.Text(t, tb, "table tbody"); strings.Contains(queue, "OA-2610-03") || !strings.Contains(queue, "BU-2611-11") {
			t.Errorf("after the release the queue lists:\n%s", queue)
		}
	})
}

package console

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/internal/modules/testaccount"
)

// testDataRoutes reset the test account to its seed.
func (s *Server) testDataRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/test-data", Nav: "Test data", Roles: Writers, Summary: "what resetting the test account does and how many records it holds now, with the form to reset it; changes nothing", serve: s.testData},
		{Method: "POST", Path: "/console/test-data", Roles: Writers, Summary: "reset the test account: delete its business data and webhook events and seed it afresh (keys, endpoints, people and the live account stay); the organization's name must be typed to confirm; audited (test_data_reset)", serve: s.resetTestData},
	}
}

// testDataView is what the test account holds now.
type testDataView struct {
	Total  int
	Tables []tableCount
}

// tableCount is one kind of record and how many the test account has.
type tableCount struct {
	Name  string
	Count int
}

func (s *Server) testData(w http.ResponseWriter, r *http.Request, c *caller) {
	s.testDataPage(w, r, c, http.StatusOK, nil)
}

func (s *Server) testDataPage(w http.ResponseWriter, r *http.Request, c *caller, status int, f *form) {
	held, err := testaccount.TestContents(c.ctx, s.o.Client, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v := testDataView{Total: held.Total}
	for _, table := range slices.Sorted(maps.Keys(held.Tables)) {
		v.Tables = append(v.Tables, tableCount{Name: strings.ReplaceAll(table, "_", " "), Count: held.Tables[table]})
	}
	testdataTemplate.render(s, w, r, c, status, "Test data", f, v)
}

func (s *Server) resetTestData(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	if f.OK() {
		f.add(forms.ParseTestReset(f.values, c.Me.OrganizationName))
	}
	if !f.OK() {
		s.testDataPage(w, r, c, http.StatusBadRequest, f)
		return
	}
	res, err := testaccount.ResetTest(c.ctx, s.o.Client, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, Prefix+"test-data", fmt.Sprintf(
		"The test account is reset: %d records deleted, %d seeded records created.", res.Deleted, res.Created))
}

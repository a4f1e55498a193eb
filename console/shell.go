// The console's shell: the navigation grouped by desk, each person's first
// page, and the one environment switch of the whole console.

package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/policy"
)

// shellRoutes are the environment switch.
func (s *Server) shellRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/console/env", Summary: "choose the environment (live or test) every page of the session shows", serve: s.switchEnv},
	}
}

// navGroup is a desk of the navigation: the pages of one kind of work.
type navGroup struct {
	Label string
	// Paths are the group's pages in the order the navigation lists them.
	Paths []string
	// Home is the role whose first page is the group's.
	Home []people.Role
}

// navGroups are the console's desks. A person's own desk comes first in
// their navigation and its first page is where they land.
var navGroups = []navGroup{
	{Label: "Developers", Paths: []string{"/console/keys", "/console/webhooks", "/console/events", "/console/requests"}, Home: []people.Role{people.Developer}},
	{Label: "Plant", Paths: []string{"/console/quality", "/console/lots", "/console/suppliers", "/console/products", "/console/production", "/console/invoices", "/console/bills", "/console/imports"}, Home: []people.Role{people.Operator, people.Viewer}},
	{Label: "Admin", Paths: []string{"/console/people", "/console/settings", "/console/audit", "/console/test-data"}, Home: []people.Role{people.Admin}},
}

// navSection is a group as the navigation shows it to one person.
type navSection struct {
	Label string
	Items []navItem
}

// navItem is one entry of the navigation.
type navItem struct {
	Label, Path string
	Current     bool
}

// sections lists the desks and their pages the signed-in person may open,
// their own desk first; nil before they are fully signed in.
func (s *Server) sections(c *caller) []navSection {
	if c.Me == nil || c.Me.Pending || c.Me.MustEnroll {
		return nil
	}
	byPath := map[string]Route{}
	for _, rt := range s.routes() {
		if rt.Nav != "" && rt.Method == http.MethodGet {
			byPath[rt.Path] = rt
		}
	}
	role := c.Me.Person.Role
	var own, rest []navSection
	for _, g := range navGroups {
		sec := navSection{Label: g.Label}
		for _, p := range g.Paths {
			rt, ok := byPath[p]
			if !ok || !rt.Allows(role) {
				continue
			}
			sec.Items = append(sec.Items, navItem{Label: rt.Nav, Path: rt.Path, Current: rt.Path == c.route.Path || strings.HasPrefix(c.route.Path, rt.Path+"/")})
		}
		if len(sec.Items) == 0 {
			continue
		}
		if slices.Contains(g.Home, role) {
			own = append(own, sec)
		} else {
			rest = append(rest, sec)
		}
	}
	return append(own, rest...)
}

// nav lists the pages the signed-in person may open, their desk's first.
func (s *Server) nav(c *caller) []navItem {
	var items []navItem
	for _, sec := range s.sections(c) {
		items = append(items, sec.Items...)
	}
	return items
}

// shell is what the layout shows around every page of a signed-in person.
type shell struct {
	Sections []navSection
	// Env is the environment the page shows ("" on pages before signing
	// in); Test is true in the test environment (the banner).
	Env  string
	Test bool
	// Back is where the environment switch returns: the current desk's
	// page, whose records are those of the environment chosen.
	Back string
}

// shellOf is the shell of the caller's page.
func (s *Server) shellOf(c *caller) shell {
	sh := shell{Sections: s.sections(c), Env: c.env, Test: c.env == string(policy.Test), Back: Prefix}
	for _, sec := range sh.Sections {
		for _, it := range sec.Items {
			if it.Current {
				sh.Back = it.Path
			}
		}
	}
	if sh.Sections == nil {
		sh.Env, sh.Test = "", false
	}
	return sh
}

// switchEnv records the environment chosen in the session and returns to
// the page it was chosen on (its desk's list: a record of one environment
// is not in the other).
func (s *Server) switchEnv(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	env := f.Get("env")
	if env != string(policy.Live) && env != string(policy.Test) {
		s.showError(w, r, c, http.StatusBadRequest, "Choose an environment", "Choose the live or the test environment.")
		return
	}
	if err := s.o.People.SetSessionEnv(c.ctx, c.Me.SessionID, env); err != nil {
		s.fail(w, r, c, err)
		return
	}
	back := nextPath(f.Get("back"))
	if u, err := url.Parse(back); err == nil {
		q := u.Query()
		q.Del("env")
		u.RawQuery = q.Encode()
		back = u.String()
	}
	msg := "You are seeing live data."
	if env == string(policy.Test) {
		msg = "You are seeing test data: the test account's, which API calls with a test key change."
	}
	s.redirect(w, r, c, back, msg)
}

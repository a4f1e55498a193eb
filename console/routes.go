package console

import (
	"net/http"
	"slices"

	"larder.dev/larder/internal/identity/people"
)

// Route is one page or action of the console and who may use it.
type Route struct {
	// Method and Path are the net/http pattern.
	Method, Path string
	// Roles may use the route; empty means every signed-in person.
	Roles []people.Role
	// Public routes need no session (signing in, one-time links).
	Public bool
	// Pending routes are open to a session that still waits for its second
	// factor (the code page, signing out).
	Pending bool
	// Enrolling routes are open to a person whose organization requires a
	// second factor they have not set up (setting it up, signing out).
	Enrolling bool
	// Nav, when set, lists the page in the console's navigation.
	Nav string
	// Summary says what the route does, for the access report.
	Summary string
	// MaxBody bounds the body the route reads (MaxForm when zero).
	MaxBody int64

	serve func(w http.ResponseWriter, r *http.Request, c *caller)
}

// Allows reports whether a person of role may use the route.
func (rt Route) Allows(role people.Role) bool {
	return rt.Public || len(rt.Roles) == 0 || slices.Contains(rt.Roles, role)
}

// Writers are the roles that change keys, webhook endpoints and test data
// (the developer's desk); everyone signed in reads them.
var Writers = []people.Role{people.Admin, people.Developer}

// Operators are the roles that act on the plant's records (approvals,
// quality decisions, the floor, cancellations, imports); everyone signed in
// reads them.
var Operators = []people.Role{people.Admin, people.Operator}

// Admins are the roles that manage people and read the audit history.
var Admins = []people.Role{people.Admin}

// Routes lists every route of the console with who may use it, in the order
// the access report shows them.
func Routes() []Route {
	rs := (&Server{}).routes()
	for i := range rs {
		rs[i].serve = nil
	}
	return rs
}

// routes is the console: each group is in the file of its pages.
func (s *Server) routes() []Route {
	return slices.Concat(
		s.signInRoutes(),
		s.accountRoutes(),
		s.shellRoutes(),
		s.keyRoutes(),
		s.webhookRoutes(),
		s.eventRoutes(),
		s.requestRoutes(),
		s.lotRoutes(),
		s.qualityRoutes(),
		s.supplierRoutes(),
		s.productRoutes(),
		s.settingsRoutes(),
		s.documentRoutes(),
		s.importRoutes(),
		s.productionRoutes(),
		s.floorRoutes(),
		s.testDataRoutes(),
		s.peopleRoutes(),
		s.auditRoutes(),
	)
}

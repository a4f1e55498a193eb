// The floor's routes and the bounds of its forms; floor_plan.go plans a
// production run, floor_complete.go completes one.

package console

import (
	"net/url"
	"strconv"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/policy"
)

// floorRoutes plan and complete production runs.
func (s *Server) floorRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/production/new", Roles: Operators, Summary: "read the form that plans a production run; changes nothing", serve: s.planPage},
		{Method: "POST", Path: "/console/production", Roles: Operators, Summary: "plan a production run (PLANNED) as `larder production create` does: product, line, quantity, lot number, expiry and planned steps; recorded in the audit history", serve: s.planRun},
		{Method: "GET", Path: "/console/production/{id}/complete", Roles: Operators, Summary: "read the form that completes a run in progress, with what the run's components can draw on and, asked for, a preview of what completing would consume and make (worked out in a transaction that is rolled back); changes nothing", serve: s.completePage},
		{Method: "POST", Path: "/console/production/{id}/complete", Roles: Operators, Summary: "complete a run in progress as `larder production complete` does: consume the named lots or the first-expiring sellable ones, make the output lot (ON_HOLD under positive release); recorded in the audit history", serve: s.completeRun},
	}
}

// Bounds of the floor's forms.
const (
	// planRows is how many step rows the plan form starts with; planRowsMax
	// how many it can grow to ("More step rows").
	planRows, planRowsMax = forms.PlanRows, forms.PlanRowsMax
	// componentLots is how many sellable lots of a component the completion
	// form lists to take from by name.
	componentLots = 20
	// codeMax bounds a product code as typed; lotNumberMax is the API's.
	codeMax, lotNumberMax = forms.CodeMax, forms.LotNumberMax
)

// planEnv is the environment a floor form names: live unless test.
func planEnv(f *form) (string, bool) {
	switch env := f.Get("env"); env {
	case "", string(policy.Live):
		return string(policy.Live), true
	case string(policy.Test):
		return env, true
	}
	return "", false
}

// dayLayout is a date field's layout (input type=date).
const dayLayout = forms.DayLayout

// runPath is the page of run id in env.
func runPath(id int, env string) string {
	return Prefix + "production/" + strconv.Itoa(id) + "?" + url.Values{"env": {env}}.Encode()
}

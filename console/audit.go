package console

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"larder.dev/larder/internal/identity/audit"
)

// auditRoutes are the organization's audit history.
func (s *Server) auditRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/audit", Nav: "Audit history", Roles: Admins, Summary: "the organization's audit history, newest first: who changed keys, endpoints, people, settings and test data, when and from which address (filter by action and actor)", serve: s.auditHistory},
	}
}

// actionWords say what each recorded action did, for people reading the history.
var actionWords = map[string]string{
	"key_created":                    "Created an API key",
	"key_rotated":                    "Rotated an API key",
	"key_revoked":                    "Revoked an API key",
	"plan_changed":                   "Changed the plan",
	"settings_changed":               "Changed the settings",
	"endpoint_created":               "Added a webhook endpoint",
	"endpoint_updated":               "Changed a webhook endpoint",
	"endpoint_disabled":              "Disabled a webhook endpoint",
	"endpoint_enabled":               "Enabled a webhook endpoint",
	"endpoint_deleted":               "Deleted a webhook endpoint",
	"endpoint_secret_rotated":        "Rotated a webhook signing secret",
	"deliveries_resent":              "Resent webhook deliveries",
	"user_invited":                   "Invited a person",
	"user_role_changed":              "Changed a person's role",
	"user_removed":                   "Removed a person",
	"password_reset_issued":          "Made a password reset link",
	"password_set":                   "Set a password",
	"second_factor_enabled":          "Turned a second factor on",
	"second_factor_disabled":         "Turned a second factor off",
	"signed_in":                      "Signed in",
	"sign_in_failed":                 "Gave a wrong password",
	"second_factor_failed":           "Gave a wrong second-factor code",
	"second_factor_locked":           "Second factor locked after wrong codes",
	"second_factor_unlocked":         "Unlocked a second factor",
	"signed_out":                     "Signed out",
	"recovery_codes_generated":       "Made new recovery codes",
	"recovery_code_used":             "Signed in with a recovery code",
	"signature_failed":               "Gave a wrong password to sign",
	"test_data_reset":                "Reset the test data",
	"supplier_approval_changed":      "Changed a supplier's approval",
	"supplier_certification_changed": "Changed a supplier's certification",
	"lot_qc_decided":                 "Made a quality decision on a lot",
	"production_planned":             "Planned a production run",
	"production_started":             "Started a production run",
	"production_completed":           "Completed a production run",
	"production_signed":              "Signed a production run",
	"invoice_cancelled":              "Cancelled an invoice",
	"bill_cancelled":                 "Cancelled a bill",
	"products_imported":              "Imported products",
	"reference_list_imported":        "Imported a reference list",
}

// words is an action in words (its name when it has none).
func words(action string) string {
	if w, ok := actionWords[action]; ok {
		return w
	}
	return action
}

// auditEntry is a record as a row of the page.
type auditEntry struct {
	audit.Listed
	What, On string
}

// actionChoice is an option of the action filter.
type actionChoice struct{ Value, Label string }

// auditView is the audit page's own data.
type auditView struct {
	Entries []auditEntry
	Actions []actionChoice
	// Filtered is true when an action or actor is chosen.
	Filtered bool
	// Newer and Older link to the first page and the next older page
	// ("" when there is none).
	Newer, Older string
}

// onWhat names what a record is about: the key, then its particulars.
func onWhat(l audit.Listed) string {
	var parts []string
	if l.KeyID != nil {
		k := "key " + strconv.Itoa(*l.KeyID)
		if l.Env != nil {
			k += " (" + *l.Env + ")"
		}
		parts = append(parts, k)
	}
	keys := make([]string, 0, len(l.Detail))
	for k := range l.Detail {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, strings.ReplaceAll(k, "_", " ")+": "+plain(l.Detail[k]))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "; ")
}

// plain writes a value of a record's details as people read it: a list
// joined with commas ("—" when empty), a group of named values in
// parentheses, none for an absent value, yes or no, whole numbers without
// a decimal point.
func plain(v any) string {
	switch x := v.(type) {
	case nil:
		return "none"
	case string:
		if x == "" {
			return "none"
		}
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		if len(x) == 0 {
			// An empty list says nothing of its own (an endpoint's
			// empty list of event types is every type).
			return "—"
		}
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return strings.Join(out, ", ")
	case []string:
		if len(x) == 0 {
			return "none"
		}
		return strings.Join(x, ", ")
	case map[string]any:
		if len(x) == 0 {
			return "none"
		}
		keys := slices.Sorted(maps.Keys(x))
		out := make([]string, len(keys))
		for i, k := range keys {
			e := plain(x[k])
			if _, group := x[k].(map[string]any); group {
				e = "(" + e + ")"
			}
			out[i] = strings.ReplaceAll(k, "_", " ") + " " + e
		}
		return strings.Join(out, ", ")
	}
	return fmt.Sprint(v)
}

func (s *Server) auditHistory(w http.ResponseWriter, r *http.Request, c *caller) {
	q := r.URL.Query()
	f := newForm(q)
	filter := audit.Filter{Action: f.Get("action"), Actor: f.Get("actor")}
	if b, err := strconv.Atoi(f.Get("before")); err == nil && b > 0 {
		filter.Before = b
	}
	v := auditView{Filtered: filter.Action != "" || filter.Actor != ""}
	for _, a := range audit.Actions() {
		v.Actions = append(v.Actions, actionChoice{Value: a, Label: words(a)})
	}
	list, next, err := audit.Recent(c.ctx, s.o.Client, c.orgID(), filter)
	if errors.Is(err, audit.ErrUnknownAction) {
		f.Fail("action", "Choose an action from the list.")
		auditTemplate.render(s, w, r, c, http.StatusBadRequest, "Audit history", f, v)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	for _, l := range list {
		v.Entries = append(v.Entries, auditEntry{Listed: l, What: words(l.Action), On: onWhat(l)})
	}
	link := func(before int) string {
		p := url.Values{}
		if filter.Action != "" {
			p.Set("action", filter.Action)
		}
		if filter.Actor != "" {
			p.Set("actor", filter.Actor)
		}
		if before > 0 {
			p.Set("before", strconv.Itoa(before))
		}
		if len(p) == 0 {
			return Prefix + "audit"
		}
		return Prefix + "audit?" + p.Encode()
	}
	if next != 0 {
		v.Older = link(next)
	}
	if filter.Before != 0 {
		v.Newer = link(0)
	}
	auditTemplate.render(s, w, r, c, http.StatusOK, "Audit history", f, v)
}

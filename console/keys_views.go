// What the keys pages show: their data types and the rows built from auth's
// keys.

package console

import (
	"slices"
	"strings"
	"time"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/policy"
)

// keyEnvironments are the two accounts of an organization, in the order the
// keys page shows them.
var keyEnvironments = []struct {
	Env   policy.Environment
	Label string
	About string
}{
	{policy.Live, "Live", "Live keys act on the organization's real data."},
	{policy.Test, "Test", "Test keys act on the test account only: try things there without touching real data."},
}

// keysView is the keys page: one section per environment.
type keysView struct {
	Envs     []envKeys
	CanWrite bool
	// SeesCosts offers the preset and the scope that read costs.
	SeesCosts bool
	Max       int
	MaxName   int
	Groups    []scopeGroup
	// Orphan is set when the form sent back is for neither environment, so
	// its error shows at the top of the page.
	Orphan bool
}

// envKeys is one environment's section: its keys and its create form.
type envKeys struct {
	Env, Label, About string
	// Occupied is how many keys count against Max (see auth.Occupied).
	Occupied int
	Full     bool
	// Current are keys that work (active, or in a rotation's grace period);
	// Past those that no longer do.
	Current, Past []keyRow
	// Form is this environment's create form (the submitted one after an
	// error there, else empty); Preset is its chosen preset.
	Form   *form
	Preset string
}

// keyRow is one key as the page shows it.
type keyRow struct {
	ID         int
	Name       string
	Display    string
	Env        string
	Scopes     string
	CreatedAt  time.Time
	CreatedBy  string
	LastUsedAt *time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	// Status and Badge are the key's state in words and its badge class.
	Status, Badge string
	// Grace is set for a rotated key that still works (until ExpiresAt).
	Grace bool
	// ReplacedBy is the display of the key that replaced this one.
	ReplacedBy string
	Rotatable  bool
	Revocable  bool
	// AdminsOnly marks a working key that reads costs and prices, which the
	// person may not rotate.
	AdminsOnly bool
}

// scopeGroup is one resource's scopes among the create form's checkboxes.
type scopeGroup struct {
	Resource string
	Scopes   []scopeChoice
}

// scopeChoice is one checkbox.
type scopeChoice struct{ Value, Label string }

// scopeGroups groups every scope of policy.Known by resource, in its order;
// cost:read only for an issuer who may hand it out.
func scopeGroups(by auth.Issuer) []scopeGroup {
	var out []scopeGroup
	for _, sc := range policy.Known() {
		if sc == policy.CostRead && !by.SeesCosts {
			continue
		}
		resource, verb, _ := strings.Cut(string(sc), ":")
		title := strings.ToUpper(resource[:1]) + resource[1:]
		label := map[string]string{"read": "Read", "write": "Write (includes read)"}[verb]
		if sc == policy.CostRead {
			title, label = "Costs and prices", "Read costs and prices"
		}
		if n := len(out); n == 0 || out[n-1].Resource != title {
			out = append(out, scopeGroup{Resource: title})
		}
		g := &out[len(out)-1]
		g.Scopes = append(g.Scopes, scopeChoice{Value: string(sc), Label: label})
	}
	return out
}

// scopeSummary names a key's scopes: a preset's name when they are exactly
// its scopes, else the list.
func scopeSummary(scopes []string) string {
	got := slices.Sorted(slices.Values(scopes))
	for _, p := range []string{presetAll, presetReadAll} {
		ss, _ := policy.ParseScopes(p)
		want := make([]string, len(ss))
		for i, s := range ss {
			want[i] = string(s)
		}
		if slices.Equal(got, want) {
			return p
		}
	}
	return strings.Join(got, ", ")
}

// keyDisplay is how a key is named on the page: prefix…last4.
func keyDisplay(prefix, last4 string) string { return prefix + "…" + last4 }

// keyRows turns keys into the page's rows at now, as by may act on them.
func keyRows(keys []auth.Listed, now time.Time, by auth.Issuer) map[int]keyRow {
	byID := make(map[int]auth.Listed, len(keys))
	for _, k := range keys {
		byID[k.ID] = k
	}
	out := make(map[int]keyRow, len(keys))
	for _, k := range keys {
		row := keyRow{
			ID: k.ID, Name: k.Name, Display: keyDisplay(k.Prefix, k.Last4), Env: k.Env,
			Scopes: scopeSummary(k.Scopes), CreatedAt: k.CreatedAt, CreatedBy: k.CreatedBy,
			LastUsedAt: k.LastUsedAt, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt,
		}
		if k.ReplacedBy != nil {
			if r, ok := byID[*k.ReplacedBy]; ok {
				row.ReplacedBy = keyDisplay(r.Prefix, r.Last4)
			}
		}
		switch {
		case k.RevokedAt != nil:
			row.Status, row.Badge = "Revoked", "bad"
		case !k.Active(now) && k.ReplacedBy != nil:
			row.Status, row.Badge = "Rotated, stopped working", "bad"
		case !k.Active(now):
			row.Status, row.Badge = "Expired", "bad"
		case k.ExpiresAt != nil:
			row.Status, row.Badge, row.Grace, row.Revocable = "Rotated", "warn", true, true
		default:
			row.Status, row.Badge, row.Rotatable, row.Revocable = "Active", "ok", true, true
		}
		if row.Rotatable && !by.SeesCosts && slices.Contains(k.Scopes, string(policy.CostRead)) {
			row.Rotatable, row.AdminsOnly = false, true
		}
		out[k.ID] = row
	}
	return out
}

// keyResult is the page that shows a new key once.
type keyResult struct {
	Key     string
	Display string
	Name    string
	Env     string
	Scopes  string
	Curl    string
	// Old is the rotated key, for a rotation.
	Old *keyRow
}

// keyPageView is a page about one key: rotating or revoking it.
type keyPageView struct {
	Key keyRow
	// Graces are the rotation's choices, Grace the chosen one.
	Graces []graceChoice
	Grace  string
}

// graceChoice is one grace period a rotation may choose.
type graceChoice struct{ Value, Label string }

// graceChoices are auth.Graces in words.
var graceChoices = []graceChoice{
	{"none", "None: the old key stops working now"},
	{"1h", "1 hour"},
	{"24h", "24 hours"},
	{"7d", "7 days"},
}

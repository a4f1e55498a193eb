package console

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/platform/missing"
	"larder.dev/larder/policy"
)

// keyRoutes are the organization's API keys: everyone signed in sees them
// (never a secret), admins and developers create, rotate and revoke them;
// a key that reads costs and prices is created and rotated by an admin only
// (auth.Issuer).
func (s *Server) keyRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/keys", Nav: "Keys", Summary: "list the organization's API keys, live and test (name, last four characters, scopes, who created them, last use, expiry, revocation; never the key itself)", serve: s.keys},
		{Method: "POST", Path: "/console/keys", Roles: Writers, Summary: "create an API key for the live or test account with chosen scopes (at most 50 active per environment); the key is shown once", serve: s.createKey},
		{Method: "GET", Path: "/console/keys/{id}/rotate", Roles: Writers, Summary: "the form to rotate one of the organization's keys", serve: s.rotateKeyForm},
		{Method: "POST", Path: "/console/keys/{id}/rotate", Roles: Writers, Summary: "rotate one of the organization's keys: a new key with the same scopes, shown once; the old one works for the chosen grace period (none, 1 hour, 24 hours, 7 days)", serve: s.rotateKey},
		{Method: "GET", Path: "/console/keys/{id}/revoke", Roles: Writers, Summary: "the confirmation to revoke one of the organization's keys", serve: s.revokeKeyForm},
		{Method: "POST", Path: "/console/keys/{id}/revoke", Roles: Writers, Summary: "revoke one of the organization's keys at once (confirmed by a checkbox); apps using it stop working", serve: s.revokeKey},
	}
}

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

// presets are the named scope sets a key may be created with, and the
// custom choice of checkboxes.
const (
	presetReadAll = forms.PresetReadAll
	presetAll     = forms.PresetAll
)

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

// issuer is the signed-in person as the issuer of keys: only a role that
// reads costs hands out a key that reads them.
func (c *caller) issuer() auth.Issuer {
	return auth.Issuer{SeesCosts: c.Me.Person.Role.SeesCosts()}
}

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

// keys shows the keys page.
func (s *Server) keys(w http.ResponseWriter, r *http.Request, c *caller) {
	s.keysPage(w, r, c, http.StatusOK, "", nil)
}

// keysPage renders the keys page; f is the create form of environment env
// after an error there.
func (s *Server) keysPage(w http.ResponseWriter, r *http.Request, c *caller, status int, env string, f *form) {
	keys, err := auth.ListKeys(c.ctx, s.o.Client, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	now := s.o.Now()
	all := keyRows(keys, now, c.issuer())
	v := keysView{CanWrite: slices.Contains(Writers, c.Me.Person.Role), SeesCosts: c.issuer().SeesCosts, Max: auth.MaxActiveKeys, MaxName: auth.MaxNameLength, Groups: scopeGroups(c.issuer())}
	for _, e := range keyEnvironments {
		sec := envKeys{Env: string(e.Env), Label: e.Label, About: e.About, Form: newForm(nil), Preset: presetReadAll}
		sec.Occupied = auth.Occupied(keys, e.Env, now)
		sec.Full = sec.Occupied >= auth.MaxActiveKeys
		if f != nil && env == string(e.Env) {
			sec.Form = f
			if p := f.Get("preset"); p != "" {
				sec.Preset = p
			}
		}
		for _, k := range keys {
			if k.Env != string(e.Env) {
				continue
			}
			if row := all[k.ID]; row.Rotatable || row.AdminsOnly || row.Grace {
				sec.Current = append(sec.Current, row)
			} else {
				sec.Past = append(sec.Past, row)
			}
		}
		v.Envs = append(v.Envs, sec)
	}
	// The page's own form error is one no section can show: a form for
	// neither environment.
	var page *form
	if f != nil && env != string(policy.Live) && env != string(policy.Test) {
		page = f
	}
	keysTemplate.render(s, w, r, c, status, "API keys", page, v)
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

// curlExample is a request with key to this server's /v1/organization, at
// the API's configured origin.
func (s *Server) curlExample(key string) string {
	return fmt.Sprintf("curl -H \"Authorization: Bearer %s\" %s/v1/organization", key, s.o.APIURL)
}

// createKey creates a key with the form's name, environment and scopes.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	in, errs := forms.ParseNewKey(f.values)
	env := in.Env
	f.add(errs)
	if !f.OK() {
		s.keysPage(w, r, c, http.StatusBadRequest, string(env), f)
		return
	}
	k, err := auth.CreateKey(c.ctx, s.o.Client, c.orgID(), c.issuer(), env, in.Scopes, in.Name)
	switch {
	case errors.Is(err, auth.ErrCostScope):
		s.costsRefused(w, r, c)
		return
	case errors.Is(err, auth.ErrKeyLimit):
		f.Fail("", fmt.Sprintf("The %s environment already has %d active keys, the most it may hold. Revoke a key you no longer use, then create this one.", env, auth.MaxActiveKeys))
		s.keysPage(w, r, c, http.StatusBadRequest, string(env), f)
		return
	case errors.Is(err, auth.ErrNameTooLong):
		f.Fail("name", fmt.Sprintf("Use at most %d characters.", auth.MaxNameLength))
		s.keysPage(w, r, c, http.StatusBadRequest, string(env), f)
		return
	case err != nil:
		s.fail(w, r, c, err)
		return
	}
	keycreatedTemplate.render(s, w, r, c, http.StatusOK, "Your new key", nil, keyResult{
		Key: k.Key, Display: keyDisplay(k.Record.Prefix, k.Record.Last4), Name: k.Record.Name,
		Env: string(env), Scopes: scopeSummary(k.Record.Scopes), Curl: s.curlExample(k.Key),
	})
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

// findKey is key id of the caller's organization as a row; another
// organization's key, or no key, is missing.
func (s *Server) findKey(r *http.Request, c *caller) (keyRow, error) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id <= 0 {
		return keyRow{}, missing.Errorf("key %q does not exist", r.PathValue("id"))
	}
	keys, err := auth.ListKeys(c.ctx, s.o.Client, c.orgID())
	if err != nil {
		return keyRow{}, err
	}
	row, ok := keyRows(keys, s.o.Now(), c.issuer())[id]
	if !ok {
		return keyRow{}, missing.Errorf("key %d does not exist", id)
	}
	return row, nil
}

// keyPage renders the rotate or revoke page of a key.
func (s *Server) keyPage(w http.ResponseWriter, r *http.Request, c *caller, status int, page pageOf[keyPageView], title string, f *form) {
	k, err := s.findKey(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if f == nil {
		f = newForm(nil)
	}
	grace := f.Get("grace")
	if grace == "" {
		grace = "24h"
	}
	page.render(s, w, r, c, status, fmt.Sprintf(title, k.Display), f, keyPageView{Key: k, Graces: graceChoices, Grace: grace})
}

func (s *Server) rotateKeyForm(w http.ResponseWriter, r *http.Request, c *caller) {
	s.keyPage(w, r, c, http.StatusOK, keyrotateTemplate, "Rotate %s", nil)
}

func (s *Server) revokeKeyForm(w http.ResponseWriter, r *http.Request, c *caller) {
	s.keyPage(w, r, c, http.StatusOK, keyrevokeTemplate, "Revoke %s", nil)
}

// rotateKey replaces a key; the new one is shown once.
func (s *Server) rotateKey(w http.ResponseWriter, r *http.Request, c *caller) {
	k, err := s.findKey(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	f := parseForm(w, r)
	grace, errs := forms.ParseKeyRotation(f.values)
	if f.OK() {
		f.add(errs)
	}
	if !f.OK() {
		s.keyPage(w, r, c, http.StatusBadRequest, keyrotateTemplate, "Rotate %s", f)
		return
	}
	rot, err := auth.RotateKey(c.ctx, s.o.Client, c.orgID(), c.issuer(), k.ID, grace, s.o.Now())
	switch {
	case errors.Is(err, auth.ErrCostScope):
		s.costsRefused(w, r, c)
		return
	case errors.Is(err, auth.ErrKeyState):
		f.Fail("", refusalText(err.Error()))
		s.keyPage(w, r, c, http.StatusBadRequest, keyrotateTemplate, "Rotate %s", f)
		return
	case err != nil:
		s.fail(w, r, c, err)
		return
	}
	old := k
	old.ExpiresAt = rot.Old.ExpiresAt
	old.Grace = grace > 0
	keycreatedTemplate.render(s, w, r, c, http.StatusOK, "Key rotated", nil, keyResult{
		Key: rot.Key, Display: keyDisplay(rot.New.Prefix, rot.New.Last4), Name: rot.New.Name,
		Env: k.Env, Scopes: scopeSummary(rot.New.Scopes), Curl: s.curlExample(rot.Key), Old: &old,
	})
}

// revokeKey revokes a key once the person has confirmed it.
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, c *caller) {
	k, err := s.findKey(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	f := parseForm(w, r)
	if f.OK() {
		f.add(forms.ParseKeyRevocation(f.values))
	}
	if !f.OK() {
		s.keyPage(w, r, c, http.StatusBadRequest, keyrevokeTemplate, "Revoke %s", f)
		return
	}
	_, err = auth.RevokeKey(c.ctx, s.o.Client, c.orgID(), k.ID, s.o.Now())
	switch {
	case errors.Is(err, auth.ErrKeyState):
		f.Fail("", refusalText(err.Error()))
		s.keyPage(w, r, c, http.StatusBadRequest, keyrevokeTemplate, "Revoke %s", f)
		return
	case err != nil:
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, Prefix+"keys", fmt.Sprintf("Key %s is revoked: it no longer works.", k.Display))
}

// costsRefused answers 403 to a person who may not read costs asking for a
// key that reads them.
func (s *Server) costsRefused(w http.ResponseWriter, r *http.Request, c *caller) {
	s.showError(w, r, c, http.StatusForbidden, "Not allowed", "Only an admin creates or rotates a key that reads costs and prices (cost:read, or the preset \"all\"). Nothing was created or rotated.")
}

// refusalText makes an error message a sentence for a page.
func refusalText(msg string) string {
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

// The keys pages' handlers: the list, creating, rotating and revoking a key.

package console

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/policy"
)

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
	// The keys of the environment the console shows (the switch shows
	// the other's), or of the one whose create form failed.
	shown := c.env
	if f != nil && (env == string(policy.Live) || env == string(policy.Test)) {
		shown = env
	}
	for _, e := range keyEnvironments {
		if string(e.Env) != shown {
			continue
		}
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
	// The page's form is the one sent back, for the error summary; its
	// form error shows at the top when no section shows it (a form for
	// neither environment).
	if f != nil {
		v.Orphan = env != string(policy.Live) && env != string(policy.Test)
		f.anchor("name", env+"-name")
		f.anchor("preset", env+"-preset")
		f.anchor("scope", env+"-scope")
	}
	keysTemplate.render(s, w, r, c, status, "API keys", f, v)
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

// findKey is key id of the caller's organization as a row; another
// organization's key, or no key, is missing.
func (s *Server) findKey(r *http.Request, c *caller) (keyRow, error) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id <= 0 {
		return keyRow{}, policy.Missingf("key %q does not exist", r.PathValue("id"))
	}
	keys, err := auth.ListKeys(c.ctx, s.o.Client, c.orgID())
	if err != nil {
		return keyRow{}, err
	}
	row, ok := keyRows(keys, s.o.Now(), c.issuer())[id]
	if !ok {
		return keyRow{}, policy.Missingf("key %d does not exist", id)
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

// revokeKey revokes a key; its page, which the person read first, is the
// one confirmation.
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, c *caller) {
	k, err := s.findKey(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	f := parseForm(w, r)
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
	s.redirect(w, r, c, Prefix+"keys?env="+k.Env, fmt.Sprintf("Key %s is revoked: it no longer works.", k.Display))
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

// The keys pages' routes; keys_views.go builds what they show,
// keys_handlers.go answers them.

package console

import (
	"larder.dev/larder/console/forms"
	"larder.dev/larder/internal/identity/auth"
)

// keyRoutes are the organization's API keys: everyone signed in sees them
// (never a secret), admins and developers create, rotate and revoke them;
// a key that reads costs and prices is created and rotated by an admin only
// (auth.Issuer).
func (s *Server) keyRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/keys", Nav: "Keys", Summary: "list the organization's API keys of the environment the console shows, live or test (name, last four characters, scopes, who created them, last use, expiry, revocation; never the key itself)", serve: s.keys},
		{Method: "POST", Path: "/console/keys", Roles: Writers, Summary: "create an API key for the live or test account with chosen scopes (at most 50 active per environment); the key is shown once", serve: s.createKey},
		{Method: "GET", Path: "/console/keys/{id}/rotate", Roles: Writers, Summary: "the form to rotate one of the organization's keys", serve: s.rotateKeyForm},
		{Method: "POST", Path: "/console/keys/{id}/rotate", Roles: Writers, Summary: "rotate one of the organization's keys: a new key with the same scopes, shown once; the old one works for the chosen grace period (none, 1 hour, 24 hours, 7 days)", serve: s.rotateKey},
		{Method: "GET", Path: "/console/keys/{id}/revoke", Roles: Writers, Summary: "the confirmation to revoke one of the organization's keys", serve: s.revokeKeyForm},
		{Method: "POST", Path: "/console/keys/{id}/revoke", Roles: Writers, Summary: "revoke one of the organization's keys at once, sent from its confirmation page; apps using it stop working", serve: s.revokeKey},
	}
}

// presets are the named scope sets a key may be created with, and the
// custom choice of checkboxes.
const (
	presetReadAll = forms.PresetReadAll
	presetAll     = forms.PresetAll
)

// issuer is the signed-in person as the issuer of keys: only a role that
// reads costs hands out a key that reads them.
func (c *caller) issuer() auth.Issuer {
	return auth.Issuer{SeesCosts: c.Me.Person.Role.SeesCosts()}
}

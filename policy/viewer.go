// Package policy decides who may read and write what. It holds the Viewer (the
// caller attached to every request context), the scopes, and the privacy rules
// the schemas compose into their policies: one concern per file, each rule a
// small constructor stating its decision.
package policy

import (
	"context"
	"slices"
)

// Source says what caused a change; it is copied into webhook events.
type Source string

// The sources of a change.
const (
	SourceAPI    Source = "api"
	SourceApp    Source = "app"
	SourceSystem Source = "system"
)

// Environment of an account.
type Environment string

// The two environments of an organization.
const (
	Live Environment = "live"
	Test Environment = "test"
)

// Viewer is the caller of an operation: an API key of one account, an app action
// on one account, or the system.
type Viewer struct {
	// AccountID is the tenant; 0 only for the system viewer, unless it is
	// narrowed to one account (SystemWithin).
	AccountID int
	// OrganizationID owns the account.
	OrganizationID int
	// OrganizationName, Plan and Currency describe the organization.
	OrganizationName string
	Plan             string
	Currency         string
	// Environment of the account.
	Environment Environment
	// KeyID is the API key's id (API callers only).
	KeyID int
	// Scopes are the effective scopes (granted plus implied).
	Scopes Scopes
	// Source says what the caller is.
	Source Source
	// RequestID is the id of the API request (API callers only).
	RequestID string
	// UserID is the person acting in the web application (app viewers
	// made by AppUser only).
	UserID int
	// system bypasses tenancy; only System() sets it.
	system bool
}

// IsSystem reports whether v is the system viewer.
func (v *Viewer) IsSystem() bool { return v != nil && v.system }

// Can reports whether v holds scope s (the system viewer holds every scope).
func (v *Viewer) Can(s Scope) bool {
	if v == nil {
		return false
	}
	return v.system || v.Scopes.Has(s)
}

// SeesCost reports whether cost fields are shown to v.
func SeesCost(ctx context.Context) bool { return FromContext(ctx).Can(CostRead) }

type viewerKey struct{}

// NewContext returns ctx carrying v.
func NewContext(ctx context.Context, v *Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// FromContext returns the viewer of ctx, or nil.
func FromContext(ctx context.Context) *Viewer {
	v, _ := ctx.Value(viewerKey{}).(*Viewer)
	return v
}

// System returns ctx carrying the system viewer: the one explicit bypass of
// tenancy, for seeding shared rows, workers and administrative commands.
func System(ctx context.Context) context.Context {
	return NewContext(ctx, &Viewer{system: true, Source: SourceSystem, Scopes: allScopes})
}

// SystemWithin returns ctx whose system viewer is narrowed to one account:
// it reads the tenant tables' rows of that account and the shared rows, each
// statement naming the account as the tenant filter's do, and the
// system-only tables as the system viewer does (Tenant, allowSystem); it
// writes as the system viewer. A ctx without the system viewer, or an account
// of 0, is returned as it is.
func SystemWithin(ctx context.Context, accountID int) context.Context {
	v := FromContext(ctx)
	if !v.IsSystem() || accountID == 0 {
		return ctx
	}
	w := *v
	w.AccountID = accountID
	return NewContext(ctx, &w)
}

// App returns ctx carrying a viewer acting for one account from the web
// application side (the admin CLI): every scope, tenancy still enforced.
func App(ctx context.Context, accountID int, env Environment) context.Context {
	return NewContext(ctx, &Viewer{AccountID: accountID, Environment: env, Source: SourceApp, Scopes: allScopes})
}

// AppUser is App for a person acting in the web application: the changes
// they make carry their user id (the events' user_id).
func AppUser(ctx context.Context, accountID int, env Environment, userID int) context.Context {
	return NewContext(ctx, &Viewer{AccountID: accountID, Environment: env, Source: SourceApp, Scopes: allScopes, UserID: userID})
}

// ScopeList returns the viewer's effective scopes, sorted.
func (v *Viewer) ScopeList() []string {
	out := make([]string, 0, len(v.Scopes))
	for s := range v.Scopes {
		out = append(out, string(s))
	}
	slices.Sort(out)
	return out
}

// SeeingCost returns ctx whose viewer is the caller's with cost:read added,
// for workflows that compute from costs the caller may not see (a bill's
// weighted average): what they answer is still redacted for the caller.
func SeeingCost(ctx context.Context) context.Context {
	v := FromContext(ctx)
	if v == nil || v.Can(CostRead) {
		return ctx
	}
	c := *v
	c.Scopes = make(Scopes, len(v.Scopes)+1)
	for s := range v.Scopes {
		c.Scopes[s] = true
	}
	c.Scopes[CostRead] = true
	return NewContext(ctx, &c)
}

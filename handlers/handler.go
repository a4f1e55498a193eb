// Package handlers serves the API: the ogen Handler (generated CRUD from
// package restapi, plus one hand-written file per resource with behaviour beyond
// CRUD), the security handler, the middleware and the one error mapping.
//
// Layering: handlers is the HTTP layer, above store and the database drivers.
// It imports no driver: the error mapping asks package dberror what a
// database error means (a unique value taken, "not now"), and a test asserts
// that no file here imports lib/pq or modernc.org/sqlite.
package handlers

import (
	"context"
	"log/slog"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/openapi/oas"
	"larder.dev/larder/policy"
)

// Handler implements every operation of the API.
type Handler struct {
	*restapi.Handlers
	client    *ent.Client
	log       *slog.Logger
	rateLimit int
	// snapshot gives the reads of a context one view of the database
	// (store.Store.Snapshot), for answers read in several statements.
	snapshot func(context.Context) (context.Context, func())
}

var _ oas.Handler = (*Handler)(nil)

// GetOrganization returns the key's account information (no scope needed).
func (h *Handler) GetOrganization(ctx context.Context) (*oas.OrganizationData, error) {
	v := policy.FromContext(ctx)
	return &oas.OrganizationData{Data: oas.Organization{
		ID:              v.OrganizationID,
		Name:            v.OrganizationName,
		Environment:     oas.Environment(v.Environment),
		AccountID:       v.AccountID,
		Plan:            v.Plan,
		Scopes:          v.ScopeList(),
		RateLimitPerMin: h.rateLimit,
		Currency:        v.Currency,
	}}, nil
}

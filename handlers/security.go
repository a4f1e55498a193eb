package handlers

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/openapi/oas"
	"larder.dev/larder/policy"
)

// security is ogen's SecurityHandler: it attaches the viewer the middleware
// authenticated, after checking the plan and the operation's scope.
type security struct{}

// HandleBearerAuth implements oas.SecurityHandler.
func (security) HandleBearerAuth(ctx context.Context, op oas.OperationName, _ oas.BearerAuth) (context.Context, error) {
	v := authenticated(ctx)
	if v == nil {
		return ctx, auth.ErrInvalidKey
	}
	if v.Plan != tenancy.Entitled {
		return ctx, problem.New(problem.NotEntitled, "The organization's plan does not include the API; the %s plan does.", tenancy.Entitled)
	}
	scope, ok := restapi.Scopes[op]
	if !ok { // a generator bug, never the caller's fault
		return ctx, internal
	}
	if scope != "" && !v.Can(policy.Scope(scope)) {
		return ctx, problem.New(problem.InsufficientScope, "This operation needs the %s scope.", scope)
	}
	if err := knownParams(op, query(ctx)); err != nil {
		return ctx, err
	}
	return policy.NewContext(ctx, v), nil
}

// knownParams refuses query parameters the operation does not define, so a
// mistyped filter is a 400 rather than an unfiltered answer. It runs after the
// key is checked: a key sent as ?api_key= is still a 401.
func knownParams(op string, q url.Values) error {
	allowed := restapi.QueryParams[op]
	var unknown []string
	for name := range q {
		if !slices.Contains(allowed, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	fields := make([]problem.FieldError, len(unknown))
	for i, name := range unknown {
		msg := "is not a parameter of this operation"
		if len(allowed) > 0 {
			msg += " (accepted: " + strings.Join(allowed, ", ") + ")"
		}
		fields[i] = problem.FieldError{Field: name, Message: msg}
	}
	return problem.InvalidFields(fields...)
}

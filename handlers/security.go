package handlers

import (
	"context"
	"fmt"

	"larder.dev/larder/auth"
	"larder.dev/larder/ent/rest"
	"larder.dev/larder/openapi/oas"
	"larder.dev/larder/policy"
	"larder.dev/larder/problem"
	"larder.dev/larder/tenancy"
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
	scope, ok := rest.Scopes[op]
	if !ok {
		return ctx, fmt.Errorf("operation %s has no entry in the scope table", op)
	}
	if scope != "" && !v.Can(policy.Scope(scope)) {
		return ctx, problem.New(problem.InsufficientScope, "This operation needs the %s scope.", scope)
	}
	return policy.NewContext(ctx, v), nil
}

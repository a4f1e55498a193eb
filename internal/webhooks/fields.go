package webhooks

import (
	"context"
	"slices"

	"larder.dev/larder/ent"
)

// Catalogue lists the event types an endpoint may choose to receive, sorted:
// the event catalogue, without ping (which reaches every endpoint). A form
// offers these; EventTypes accepts exactly them.
func Catalogue() []string {
	return slices.DeleteFunc(ent.EventTypes(), func(t string) bool { return t == PingType })
}

// CheckURL checks an endpoint URL as Create and Update do (scheme, host,
// public addresses unless AllowPrivate), so that a form can show the
// problem next to the URL before anything is written.
func (r *Registry) CheckURL(ctx context.Context, rawURL string) error { return r.check(ctx, rawURL) }

// CheckEmail checks the owner's e-mail address of an endpoint as Create and
// Update do; empty is allowed (no one is told when it is disabled).
func CheckEmail(email string) error { return checkEmail(email) }

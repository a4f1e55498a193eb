// The webhook pages' routes and shared bounds; webhooks_views.go builds what
// they show, webhooks_pages.go and webhooks_actions.go answer them.

package console

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/policy"
)

// webhookRoutes are the webhook endpoints of the organization and each
// endpoint's delivery log.
func (s *Server) webhookRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/webhooks", Nav: "Webhooks", Summary: "the organization's webhook endpoints of the environment the console shows, live or test, with their event types and health (never a signing secret)", serve: s.webhooks},
		{Method: "POST", Path: "/console/webhooks", Roles: Writers, Summary: "register a webhook endpoint (public HTTPS addresses only); its signing secret is shown once in the answer", serve: s.createWebhook},
		{Method: "GET", Path: "/console/webhooks/{id}", Summary: "one endpoint: its settings, health and delivery log, with the signed bodies sent and the start of each answer (never the signing secret)", serve: s.webhook},
		{Method: "POST", Path: "/console/webhooks/{id}", Roles: Writers, Summary: "change an endpoint's URL, description, owner e-mail address or event types", serve: s.updateWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/disable", Roles: Writers, Summary: "stop deliveries to an endpoint (nothing is deleted; pending deliveries wait)", serve: s.disableWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/enable", Roles: Writers, Summary: "resume deliveries to an endpoint, pending ones first", serve: s.enableWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/rotate-secret", Roles: Writers, Summary: "give an endpoint a new signing secret, shown once; the old one also signs for the grace period chosen (at most 7 days)", serve: s.rotateWebhook},
		{Method: "GET", Path: "/console/webhooks/{id}/delete", Roles: Writers, Summary: "the confirmation to delete an endpoint: what goes, and the button that deletes it; changes nothing", serve: s.confirmDeleteWebhookPage},
		{Method: "POST", Path: "/console/webhooks/{id}/delete", Roles: Writers, Summary: "delete an endpoint with its delivery log (sent from its confirmation page)", serve: s.deleteWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/ping", Roles: Writers, Summary: "queue a signed test event (ping) to an endpoint for the dispatcher and show its answer", serve: s.pingWebhook},
		{Method: "POST", Path: "/console/webhooks/{id}/resend-failed", Roles: Writers, Summary: "queue again every failed delivery of an endpoint since a time, for the dispatcher to send", serve: s.resendFailed},
		{Method: "POST", Path: "/console/webhooks/{id}/deliveries/{delivery}/resend", Roles: Writers, Summary: "post one delivery of an endpoint again now (same event id and body, a fresh signature)", serve: s.resendDelivery},
	}
}

// logPage is the deliveries one page of the log shows.
const logPage = 25

// defaultPingWait is how long the test button waits for the dispatcher.
const defaultPingWait = 10 * time.Second

// graces are the grace periods a rotation offers, in the order shown.
var graces = forms.Graces

// defaultGrace is the grace preselected: a day to deploy the new secret.
const defaultGrace = forms.DefaultGrace

// canWrite reports whether the signed-in person may change endpoints.
func canWrite(c *caller) bool { return slices.Contains(Writers, c.Me.Person.Role) }

// endpointID is the endpoint the path names; a malformed id does not exist.
func endpointID(r *http.Request) (int, error) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id <= 0 {
		return 0, policy.Missingf("webhook endpoint %q does not exist", r.PathValue("id"))
	}
	return id, nil
}

// endpointPath is the page of endpoint id.
func endpointPath(id int) string { return Prefix + "webhooks/" + strconv.Itoa(id) }

// sinceLayout is the value of a datetime-local field, read as UTC.
const sinceLayout = forms.SinceLayout

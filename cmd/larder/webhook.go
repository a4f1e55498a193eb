package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/webhooks"
)

func init() {
	commands = append(commands,
		command{"webhook create", "webhook create --org ID --env live|test --url U [--email E] [--description D] [--events TYPES]  register an endpoint (TYPES: comma-separated event types it receives; default every type); its whsec_ secret is shown once", webhookCreate},
		command{"webhook list", "webhook list --org ID  list endpoints, never their secrets", webhookList},
		command{"webhook update", "webhook update --endpoint ID [--org ID] [--url U] [--email E] [--description D] [--events TYPES|all]  change an endpoint", webhookUpdate},
		command{"webhook disable", "webhook disable --endpoint ID [--org ID]  stop deliveries (nothing is deleted)", webhookDisable},
		command{"webhook enable", "webhook enable --endpoint ID [--org ID]  resume deliveries, pending ones first", webhookEnable},
		command{"webhook delete", "webhook delete --endpoint ID [--org ID]  remove an endpoint and its delivery log", webhookDelete},
		command{"webhook rotate-secret", "webhook rotate-secret --endpoint ID [--org ID] [--grace 24h]  new secret; the old one also signs until the grace ends", webhookRotate},
		command{"webhook deliveries", "webhook deliveries --endpoint ID [--org ID] [--outcome succeeded|failed|pending] [--type T] [--event evt_…] [--before ID] [--limit N]  the delivery log, newest first", webhookDeliveries},
		command{"webhook resend", "webhook resend --delivery ID [--org ID] | --endpoint ID --failed-since TIME  post a delivery again now, whatever its state; or queue every failed delivery of an endpoint created since TIME (RFC 3339)", webhookResend},
		command{"webhook ping", "webhook ping --endpoint ID [--org ID] [--wait 30s]  have the server's dispatcher send a signed ping event now; fails unless the endpoint answers 2xx", webhookPing},
		command{"webhook listen", "webhook listen --endpoint ID [--org ID]  print deliveries as they are attempted, until interrupted", webhookListen},
		command{"event list", "event list --org ID --env live|test [--type T] [--resource TYPE[:ID]] [--before evt_…] [--limit N]  the account's events, newest first, with the endpoints that received each", eventList},
		command{"webhook worker", "webhook worker  run the webhook dispatcher alone (as in serve)", webhookWorker},
	)
}

func (e *env) registry(st *store.Store) *webhooks.Registry {
	return &webhooks.Registry{Client: st.Client, AllowPrivate: e.cfg.WebhookAllowPrivate, Keys: e.keys}
}

// dispatcher returns a dispatcher over st configured from the flags.
func (e *env) dispatcher(st *store.Store, onAttempt func(ok, abandoned bool)) (*webhooks.Dispatcher, error) {
	n, err := webhooks.NewNotifier(e.cfg.SMTPURL, e.log)
	if err != nil {
		return nil, err
	}
	return webhooks.New(st, webhooks.Options{
		RetryInterval: e.cfg.WebhookRetryInterval,
		DisableAfter:  e.cfg.WebhookDisableAfter,
		PollInterval:  e.cfg.WebhookPollInterval,
		AllowPrivate:  e.cfg.WebhookAllowPrivate,
		Notifier:      n,
		Log:           e.log,
		OnAttempt:     onAttempt,
		Keys:          e.keys,
	}), nil
}

// endpointJSON is an endpoint as the CLI prints it: never its secret.
func endpointJSON(ep *ent.WebhookEndpoint, env string) map[string]any {
	m := map[string]any{
		"id":          ep.ID,
		"account_id":  ep.AccountID,
		"url":         ep.URL,
		"email":       ep.Email,
		"description": ep.Description,
		"event_types": eventTypesJSON(ep.EventTypes),
		"enabled":     ep.Enabled,
		"created_at":  ep.CreatedAt,
	}
	if env != "" {
		m["env"] = env
	}
	if ep.DisabledReason != nil {
		m["disabled_reason"] = string(*ep.DisabledReason)
		m["disabled_at"] = ep.DisabledAt
	}
	if ep.FailingSince != nil {
		m["failing_since"] = ep.FailingSince
	}
	if ep.PreviousSecretExpiresAt != nil {
		m["previous_secret_expires_at"] = ep.PreviousSecretExpiresAt
	}
	return m
}

// eventTypesJSON is the event types an endpoint receives as printed: an
// array, empty for every type.
func eventTypesJSON(types []string) []string {
	if types == nil {
		return []string{}
	}
	return types
}

// eventTypesText is the event types an endpoint receives as a list shows
// them.
func eventTypesText(types []string) string {
	if len(types) == 0 {
		return "all"
	}
	return strings.Join(types, ",")
}

// parseEvents reads an --events value: comma-separated event types, or all
// (every type, as no types).
func parseEvents(v string) ([]string, error) {
	if strings.TrimSpace(v) == "all" {
		return []string{}, nil
	}
	types := []string{}
	for _, t := range strings.Split(v, ",") {
		if t = strings.TrimSpace(t); t != "" {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("--events needs event types, or all")
	}
	return types, nil
}

func webhookCreate(ctx context.Context, e *env, args []string) error {
	c := e.command("webhook create", needs{opts: []config.Options{config.Webhooks, config.Admin}, org: forOrgEnv, required: []string{"url"}, store: true})
	u := c.String("url", "", "HTTPS URL receiving the events (required)")
	email := c.String("email", "", "the owner's e-mail, told when the endpoint is disabled for failing")
	desc := c.String("description", "", "a label")
	events := c.String("events", "", "comma-separated event types the endpoint receives (default: every type; a ping always reaches it)")
	var types []string
	return c.run(ctx, args, func() (err error) {
		if *events != "" {
			types, err = parseEvents(*events)
		}
		return err
	}, func(ctx context.Context, st *store.Store) error {
		ep, err := e.registry(st).Create(audit.WithActor(ctx, e.cfg.Actor), c.org, c.env, *u, *email, *desc, types)
		if err != nil {
			return err
		}
		out := endpointJSON(ep, string(c.env))
		out["secret"] = ep.Secret
		return e.print(out, fmt.Sprintf("webhook endpoint %d (%s) %s\nsigning secret: %s\nThis is the only time the secret is shown; store it now.",
			ep.ID, c.env, ep.URL, ep.Secret))
	})
}

func webhookList(ctx context.Context, e *env, args []string) error {
	c := e.command("webhook list", needs{opts: []config.Options{config.Webhooks}, org: forOrg, store: true})
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		r := e.registry(st)
		eps, err := r.List(ctx, c.org)
		if err != nil {
			return err
		}
		health, err := r.Health(ctx, c.org)
		if err != nil {
			return err
		}
		list := make([]map[string]any, len(eps))
		for i, ep := range eps {
			list[i] = endpointJSON(ep, string(ep.Edges.Account.Environment))
			h := health[ep.ID]
			list[i]["health"] = map[string]any{"state": h.State, "last_success_at": h.LastSuccessAt}
		}
		if e.json {
			return e.print(map[string]any{"endpoints": list}, "")
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tENV\tURL\tENABLED\tHEALTH\tLAST SUCCESS\tEVENTS\tEMAIL\tDESCRIPTION")
		for _, ep := range eps {
			state := "yes"
			if !ep.Enabled {
				state = "no (" + string(*ep.DisabledReason) + ")"
			}
			h := health[ep.ID]
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ep.ID, ep.Edges.Account.Environment, ep.URL, state, h.State,
				when(h.LastSuccessAt), eventTypesText(ep.EventTypes), ep.Email, ep.Description)
		}
		return tw.Flush()
	})
}

// endpoint is the webhook endpoint a command acts on, by --endpoint; without
// --org, the command acts for the endpoint's own organization, since the CLI
// may act on any organization.
var endpoint = record{flag: "endpoint", usage: "endpoint id (required)", what: "endpoint", org: webhooks.EndpointOrganization}

// endpointCommand runs a one-endpoint command and prints the endpoint.
func endpointCommand(ctx context.Context, e *env, args []string, name string,
	extra func(flagSet) endpointAction) error {
	c := e.command(name, needs{opts: []config.Options{config.Webhooks, config.Admin}, org: forRecord, record: endpoint})
	act := extra(c)
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		ep, human, err := act(audit.WithActor(ctx, e.cfg.Actor), e.registry(st), c.org, c.id)
		if err != nil {
			return err
		}
		if ep == nil {
			return e.print(map[string]any{"id": c.id, "deleted": true}, human)
		}
		return e.print(endpointJSON(ep, ""), human)
	})
}

// endpointAction acts on endpoint id of organization orgID, as the actor of
// ctx, and returns the endpoint (nil when deleted) and what to tell a person.
type endpointAction = func(ctx context.Context, r *webhooks.Registry, orgID, id int) (*ent.WebhookEndpoint, string, error)

// flagSet is what an endpoint command adds its flags to.
type flagSet = interface {
	String(name, value, usage string) *string
}

func webhookUpdate(ctx context.Context, e *env, args []string) error {
	return endpointCommand(ctx, e, args, "webhook update", func(fs flagSet) endpointAction {
		u := fs.String("url", "", "new URL")
		email := fs.String("email", "", "new owner e-mail")
		desc := fs.String("description", "", "new label")
		events := fs.String("events", "", "comma-separated event types the endpoint receives, or all for every type")
		return func(ctx context.Context, r *webhooks.Registry, orgID, id int) (*ent.WebhookEndpoint, string, error) {
			var c webhooks.Change
			if *u != "" {
				c.URL = u
			}
			if *email != "" {
				c.Email = email
			}
			if *desc != "" {
				c.Description = desc
			}
			if *events != "" {
				types, err := parseEvents(*events)
				if err != nil {
					return nil, "", err
				}
				c.EventTypes = &types
			}
			if c == (webhooks.Change{}) {
				return nil, "", fmt.Errorf("webhook update needs --url, --email, --description or --events")
			}
			ep, err := r.Update(ctx, orgID, id, c)
			if err != nil {
				return nil, "", err
			}
			return ep, fmt.Sprintf("webhook endpoint %d updated: %s", ep.ID, ep.URL), nil
		}
	})
}

func webhookDisable(ctx context.Context, e *env, args []string) error {
	return endpointCommand(ctx, e, args, "webhook disable", func(flagSet) endpointAction {
		return func(ctx context.Context, r *webhooks.Registry, orgID, id int) (*ent.WebhookEndpoint, string, error) {
			ep, err := r.Disable(ctx, orgID, id)
			if err != nil {
				return nil, "", err
			}
			return ep, fmt.Sprintf("webhook endpoint %d disabled; nothing was deleted", ep.ID), nil
		}
	})
}

func webhookEnable(ctx context.Context, e *env, args []string) error {
	return endpointCommand(ctx, e, args, "webhook enable", func(flagSet) endpointAction {
		return func(ctx context.Context, r *webhooks.Registry, orgID, id int) (*ent.WebhookEndpoint, string, error) {
			ep, err := r.Enable(ctx, orgID, id)
			if err != nil {
				return nil, "", err
			}
			return ep, fmt.Sprintf("webhook endpoint %d enabled; pending deliveries resume", ep.ID), nil
		}
	})
}

func webhookDelete(ctx context.Context, e *env, args []string) error {
	return endpointCommand(ctx, e, args, "webhook delete", func(flagSet) endpointAction {
		return func(ctx context.Context, r *webhooks.Registry, orgID, id int) (*ent.WebhookEndpoint, string, error) {
			return nil, fmt.Sprintf("webhook endpoint %d deleted with its delivery log", id), r.Delete(ctx, orgID, id)
		}
	})
}

func webhookRotate(ctx context.Context, e *env, args []string) error {
	c := e.command("webhook rotate-secret", needs{opts: []config.Options{config.Webhooks, config.Admin}, org: forRecord, record: endpoint})
	grace := c.Duration("grace", 24*time.Hour, "how long the old secret keeps signing too (0: stop at once)")
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		ep, err := e.registry(st).RotateSecret(audit.WithActor(ctx, e.cfg.Actor), c.org, c.id, *grace)
		if err != nil {
			return err
		}
		out := endpointJSON(ep, "")
		out["secret"] = ep.Secret
		return e.print(out, fmt.Sprintf("webhook endpoint %d has a new signing secret: %s\nThis is the only time it is shown. The old secret also signs until %s.",
			ep.ID, ep.Secret, when(ep.PreviousSecretExpiresAt)))
	})
}

// attemptJSON is one attempt of the log.
func attemptJSON(a *ent.WebhookAttempt) map[string]any {
	m := map[string]any{
		"id":              a.ID,
		"trigger":         string(a.Trigger),
		"attempted_at":    a.AttemptedAt,
		"request_headers": a.RequestHeaders,
		"request_body":    a.RequestBody,
		"response_body":   a.ResponseBody,
		"duration_ms":     a.DurationMs,
		"success":         a.Success,
	}
	if a.ResponseStatus != nil {
		m["response_status"] = *a.ResponseStatus
	}
	if a.Error != nil {
		m["error"] = *a.Error
	}
	return m
}

func outcome(a *ent.WebhookAttempt) string {
	switch {
	case a.Error != nil:
		return "error: " + *a.Error
	case a.ResponseStatus != nil:
		return fmt.Sprintf("HTTP %d", *a.ResponseStatus)
	}
	return "-"
}

func webhookDeliveries(ctx context.Context, e *env, args []string) error {
	c := e.command("webhook deliveries", needs{opts: []config.Options{config.Webhooks}, org: forRecord, record: endpoint})
	evt := c.String("event", "", "only this event (evt_…)")
	outcomeName := c.String("outcome", "", "only deliveries that succeeded, failed (attempted, never a 2xx) or are pending (not attempted yet)")
	typ := c.String("type", "", "only events of this type")
	before := c.Int("before", 0, "only deliveries older than this delivery id (the last of the previous page)")
	limit := c.Int("limit", webhooks.DefaultPage, fmt.Sprintf("most recent deliveries shown (at most %d)", webhooks.MaxPage))
	var f webhooks.DeliveryFilter
	return c.run(ctx, args, func() (err error) {
		if *limit < 1 || *limit > webhooks.MaxPage {
			return fmt.Errorf("--limit must be 1 to %d", webhooks.MaxPage)
		}
		f = webhooks.DeliveryFilter{EventID: *evt, Type: *typ, Before: *before, Limit: *limit}
		if *outcomeName != "" {
			f.Outcome, err = webhooks.ParseOutcome(*outcomeName)
		}
		return err
	}, func(ctx context.Context, st *store.Store) error {
		ds, err := e.registry(st).Deliveries(ctx, c.org, c.id, f)
		if err != nil {
			return err
		}
		if e.json {
			list := make([]map[string]any, len(ds))
			for i, d := range ds {
				atts := make([]map[string]any, len(d.Attempts))
				for j, a := range d.Attempts {
					atts[j] = attemptJSON(a)
				}
				list[i] = map[string]any{
					"id": d.ID, "event_id": d.Event.EventID, "type": d.Event.Type, "status": string(d.Status),
					"outcome": string(d.Outcome), "attempt_count": d.AttemptCount, "next_attempt_at": d.NextAttemptAt,
					"created_at": d.CreatedAt, "finished_at": d.FinishedAt, "attempts": atts,
				}
			}
			return e.print(map[string]any{"deliveries": list}, "")
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DELIVERY\tEVENT\tTYPE\tOUTCOME\tATTEMPTS\tLAST\tNEXT")
		for _, d := range ds {
			last := "-"
			if n := len(d.Attempts); n > 0 {
				last = outcome(d.Attempts[n-1])
			}
			next := "-"
			if d.Status == "pending" {
				next = d.NextAttemptAt.UTC().Format("2006-01-02 15:04")
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", d.ID, d.Event.EventID, d.Event.Type, d.Outcome, len(d.Attempts), last, next)
		}
		return tw.Flush()
	})
}

// webhookResend posts one delivery again now (--delivery), or queues every
// failed delivery of an endpoint since a time (--endpoint, --failed-since)
// for the server's dispatcher.
func webhookResend(ctx context.Context, e *env, args []string) error {
	c := e.command("webhook resend", needs{opts: []config.Options{config.Webhooks, config.Admin}, store: true})
	delID := c.Int("delivery", 0, "the delivery to post again now")
	epID := c.Int("endpoint", 0, "the endpoint whose failed deliveries are queued again (with --failed-since)")
	since := c.String("failed-since", "", "queue the failed deliveries created at or after this time (RFC 3339)")
	org := orgFlag(c, "delivery or endpoint")
	var from time.Time
	return c.run(ctx, args, func() (err error) {
		switch {
		case *delID != 0 && (*epID != 0 || *since != ""):
			return fmt.Errorf("webhook resend takes --delivery, or --endpoint with --failed-since, not both")
		case *delID == 0 && (*epID == 0 || *since == ""):
			return fmt.Errorf("webhook resend needs --delivery, or --endpoint with --failed-since")
		}
		if *since != "" {
			if from, err = time.Parse(time.RFC3339, *since); err != nil {
				return fmt.Errorf("--failed-since must be an RFC 3339 time (2006-01-02T15:04:05Z): %w", err)
			}
		}
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		ctx = audit.WithActor(ctx, e.cfg.Actor)
		if *epID != 0 {
			orgID := *org
			if orgID == 0 {
				var err error
				if orgID, err = webhooks.EndpointOrganization(ctx, st.Client, *epID); err != nil {
					return err
				}
			}
			n, err := e.registry(st).ResendFailed(ctx, orgID, *epID, from)
			if err != nil {
				return err
			}
			return e.print(map[string]any{"endpoint_id": *epID, "failed_since": from.UTC(), "queued": n},
				fmt.Sprintf("%d failed deliveries of endpoint %d queued for the dispatcher", n, *epID))
		}
		orgID := *org
		if orgID == 0 {
			var err error
			if orgID, err = webhooks.DeliveryOrganization(ctx, st.Client, *delID); err != nil {
				return err
			}
		}
		d, err := e.dispatcher(st, nil)
		if err != nil {
			return err
		}
		a, err := d.Resend(ctx, orgID, *delID)
		if err != nil {
			return err
		}
		out := attemptJSON(a)
		out["delivery_id"] = *delID
		return e.print(out, fmt.Sprintf("delivery %d resent: %s", *delID, outcome(a)))
	})
}

// eventList prints the events of an organization's account, newest first,
// with where each was delivered.
func eventList(ctx context.Context, e *env, args []string) error {
	c := e.command("event list", needs{org: forOrgEnv, store: true})
	typ := c.String("type", "", "only events of this type")
	resource := c.String("resource", "", "only events about records of this type, or about one record (TYPE:ID)")
	before := c.String("before", "", "only events older than this one (evt_…, the last of the previous page)")
	limit := c.Int("limit", webhooks.DefaultPage, fmt.Sprintf("most recent events shown (at most %d)", webhooks.MaxPage))
	return c.run(ctx, args, func() error {
		if *limit < 1 || *limit > webhooks.MaxPage {
			return fmt.Errorf("--limit must be 1 to %d", webhooks.MaxPage)
		}
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		f := webhooks.EventFilter{Type: *typ, Before: *before, Limit: *limit}
		f.ResourceType, f.ResourceID, _ = strings.Cut(*resource, ":")
		rows, err := webhooks.Events(ctx, st.Client, c.org, c.env, f)
		if err != nil {
			return err
		}
		if e.json {
			list := make([]map[string]any, len(rows))
			for i, r := range rows {
				recv := make([]map[string]any, len(r.Receivers))
				for j, rc := range r.Receivers {
					recv[j] = map[string]any{"endpoint_id": rc.EndpointID, "url": rc.URL, "delivery_id": rc.DeliveryID,
						"outcome": string(rc.Outcome), "attempts": rc.Attempts, "last_attempt_at": rc.LastAttemptAt}
				}
				list[i] = map[string]any{"event_id": r.EventID, "type": r.Type, "resource_type": r.ResourceType,
					"resource_id": r.ResourceID, "created_at": r.CreatedAt, "envelope": r.Envelope, "receivers": recv}
			}
			return e.print(map[string]any{"events": list}, "")
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "EVENT\tCREATED\tTYPE\tRESOURCE\tRECEIVERS")
		for _, r := range rows {
			recv := "-"
			if len(r.Receivers) > 0 {
				parts := make([]string, len(r.Receivers))
				for j, rc := range r.Receivers {
					parts[j] = fmt.Sprintf("%d:%s", rc.EndpointID, rc.Outcome)
				}
				recv = strings.Join(parts, " ")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s:%d\t%s\n", r.EventID, r.CreatedAt.UTC().Format(time.RFC3339), r.Type, r.ResourceType, r.ResourceID, recv)
		}
		return tw.Flush()
	})
}

// webhookPing queues a ping for the dispatcher of the server (serve or
// webhook worker), which sends it with the server's settings, and waits for
// its outcome: a ping that failed, or that nobody sent within --wait, is an
// error.
func webhookPing(ctx context.Context, e *env, args []string) error {
	c := e.command("webhook ping", needs{opts: []config.Options{config.Webhooks}, org: forRecord, record: endpoint})
	wait := c.Duration("wait", 30*time.Second, "how long to wait for the server's dispatcher to send the ping and the endpoint to answer")
	return c.run(ctx, args, func() error {
		if *wait <= 0 {
			return fmt.Errorf("--wait must be positive")
		}
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		r := e.registry(st)
		ev, del, err := r.Ping(ctx, c.org, c.id)
		if err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, *wait)
		defer cancel()
		a, err := r.WaitPing(wctx, c.org, del.ID, 100*time.Millisecond)
		if err != nil {
			if e.json {
				status := "sending" // claimed, not answered in time
				if errors.Is(err, webhooks.ErrPingNotSent) {
					status = "not_sent"
				}
				_ = e.print(map[string]any{"event_id": ev.EventID, "delivery_id": del.ID, "success": false, "status": status}, "")
			}
			return fmt.Errorf("ping %s of endpoint %d: %w", ev.EventID, c.id, err)
		}
		status := "failed"
		if a.Success {
			status = "succeeded"
		}
		out := map[string]any{"event_id": ev.EventID, "delivery_id": del.ID, "success": a.Success, "status": status, "attempt": attemptJSON(a)}
		if a.ResponseStatus != nil {
			out["response_status"] = *a.ResponseStatus
		}
		if err := e.print(out, fmt.Sprintf("ping %s: %s", ev.EventID, outcome(a))); err != nil {
			return err
		}
		if !a.Success {
			return fmt.Errorf("ping %s of endpoint %d failed: %s", ev.EventID, c.id, outcome(a))
		}
		return nil
	})
}

func webhookListen(ctx context.Context, e *env, args []string) error {
	c := e.command("webhook listen", needs{opts: []config.Options{config.Webhooks}, org: forRecord, record: endpoint})
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		if _, err := e.registry(st).Get(ctx, c.org, c.id); err != nil {
			return err
		}
		if !e.json {
			fmt.Fprintf(e.stdout, "listening to endpoint %d; interrupt to stop\n", c.id)
		}
		return webhooks.Listen(ctx, st.Client, c.org, c.id, e.cfg.WebhookPollInterval, func(a webhooks.Attempt) error {
			if e.json {
				m := attemptJSON(a.WebhookAttempt)
				m["delivery_id"], m["event_id"], m["type"] = a.DeliveryID, a.EventID, a.Type
				return e.print(m, "")
			}
			_, err := fmt.Fprintf(e.stdout, "%s  %-8s %s %s delivery %d: %s (%d ms)\n%s\n",
				a.AttemptedAt.UTC().Format(time.RFC3339), a.Trigger, a.EventID, a.Type, a.DeliveryID, outcome(a.WebhookAttempt), a.DurationMs,
				strings.TrimSpace(a.RequestBody))
			return err
		})
	})
}

func webhookWorker(ctx context.Context, e *env, args []string) error {
	c := e.command("webhook worker", needs{opts: []config.Options{config.Webhooks, {"db-max-conns"}}, store: true})
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		d, err := e.dispatcher(st, nil)
		if err != nil {
			return err
		}
		stopRetention := startRetention(ctx, e, webhookRetention(st))
		defer stopRetention()
		if !e.json {
			fmt.Fprintln(e.stdout, "webhook dispatcher running; interrupt to stop")
		}
		d.Run(ctx)
		return nil
	})
}

// startWebhooks runs the dispatcher of serve on a small pool of its own, so it
// never takes connections API requests need; it stops with ctx. It returns
// that pool (nil with --webhooks=false), on which serve also prunes the
// webhook log; stop closes it.
func startWebhooks(ctx context.Context, e *env, onAttempt func(ok, abandoned bool)) (pool *store.Store, stop func(), err error) {
	if !e.cfg.Webhooks {
		e.log.Info("webhook dispatcher off (--webhooks=false); run `larder webhook worker` elsewhere")
		return nil, func() {}, nil
	}
	st, err := store.Open(ctx, e.cfg.Database, store.Options{MaxConns: 4, Statements: 0, Snapshots: restapi.Snapshots{}})
	if err != nil {
		return nil, nil, err
	}
	d, err := e.dispatcher(st, onAttempt)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	dctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(dctx)
	}()
	return st, func() {
		cancel()
		<-done
		st.Close()
	}, nil
}

package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/policy"
)

func keyCreate(ctx context.Context, e *env, args []string) error {
	c := e.command("key create", needs{opts: []config.Options{config.Admin}, org: forOrgEnv, required: []string{"scopes"}, store: true})
	scopesFlag := c.String("scopes", "", "comma-separated scopes, or read-all, or all (required)")
	name := c.String("name", "", "a label for the key")
	var scopes []policy.Scope
	return c.run(ctx, args, func() (err error) {
		scopes, err = policy.ParseScopes(*scopesFlag)
		return err
	}, func(ctx context.Context, st *store.Store) error {
		k, err := auth.CreateKey(audit.WithActor(ctx, e.cfg.Actor), st.Client, c.org, auth.Holder, c.env, scopes, *name)
		if err != nil {
			return err
		}
		return e.print(map[string]any{
			"id":     k.Record.ID,
			"key":    k.Key,
			"env":    string(c.env),
			"scopes": k.Record.Scopes,
			"prefix": k.Record.Prefix,
			"last4":  k.Record.Last4,
		}, fmt.Sprintf("key %d (%s, scopes %s)\n%s\nThis is the only time the key is shown; store it now.",
			k.Record.ID, c.env, strings.Join(k.Record.Scopes, ","), k.Key))
	})
}

// keyRecord is the key a command names by --key; usage is the flag's help.
func keyRecord(usage string) record {
	return record{flag: "key", usage: usage, what: "key", org: auth.KeyOrganization}
}

func keyRotate(ctx context.Context, e *env, args []string) error {
	c := e.command("key rotate", needs{opts: []config.Options{config.Admin}, org: forRecord, record: keyRecord("id of the key to rotate (required)"), required: []string{"grace"}})
	graceFlag := c.String("grace", "", "how long the old key keeps working: none, 1h, 24h or 7d (required)")
	var grace time.Duration
	return c.run(ctx, args, func() (err error) {
		grace, err = auth.ParseGrace(*graceFlag)
		return err
	}, func(ctx context.Context, st *store.Store) error {
		r, err := auth.RotateKey(audit.WithActor(ctx, e.cfg.Actor), st.Client, c.org, auth.Holder, c.id, grace, time.Now())
		if err != nil {
			return err
		}
		expires := r.Old.ExpiresAt.UTC()
		until := "stopped working now"
		if grace > 0 {
			until = "works until " + expires.Format(time.RFC3339) + "; its responses carry a Sunset header until then"
		}
		return e.print(map[string]any{
			"id":                 r.New.ID,
			"key":                r.Key,
			"replaces":           r.Old.ID,
			"old_key_expires_at": expires,
			"grace":              *graceFlag,
			"name":               r.New.Name,
			"env":                string(r.Old.Edges.Account.Environment),
			"scopes":             r.New.Scopes,
			"prefix":             r.New.Prefix,
			"last4":              r.New.Last4,
		}, fmt.Sprintf("key %d replaces key %d (same name and scopes); key %d %s\n%s\nThis is the only time the key is shown; store it now.",
			r.New.ID, r.Old.ID, r.Old.ID, until, r.Key))
	})
}

func keyRevoke(ctx context.Context, e *env, args []string) error {
	c := e.command("key revoke", needs{opts: []config.Options{config.Admin}, org: forRecord, record: keyRecord("id of the key to revoke (required)")})
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		k, err := auth.RevokeKey(audit.WithActor(ctx, e.cfg.Actor), st.Client, c.org, c.id, time.Now())
		if err != nil {
			return err
		}
		return e.print(map[string]any{"id": k.ID, "revoked_at": k.RevokedAt.UTC()},
			fmt.Sprintf("key %d (%s…%s) is revoked; it no longer works", k.ID, k.Prefix, k.Last4))
	})
}

func keyList(ctx context.Context, e *env, args []string) error {
	c := e.command("key list", needs{org: forOrg, store: true})
	history := c.Bool("history", false, "also show the organization's history of key and plan changes")
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		keys, err := auth.ListKeys(ctx, st.Client, c.org)
		if err != nil {
			return err
		}
		var events []audit.Listed
		if *history {
			if events, err = audit.History(ctx, st.Client, c.org); err != nil {
				return err
			}
		}
		if e.json {
			out := map[string]any{"keys": keys}
			if *history {
				out["history"] = events
			}
			return e.print(out, "")
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tENV\tKEY\tSCOPES\tCREATED\tLAST USED\tEXPIRES\tREVOKED\tREPLACES\tREPLACED BY")
		for _, k := range keys {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s…%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Env, k.Prefix, k.Last4,
				strings.Join(k.Scopes, ","), k.CreatedAt.Format("2006-01-02 15:04"), when(k.LastUsedAt), when(k.ExpiresAt), when(k.RevokedAt),
				ref(k.Replaces), ref(k.ReplacedBy))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if !*history {
			return nil
		}
		fmt.Fprintln(e.stdout)
		tw = tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "WHEN\tACTOR\tACTION\tKEY\tENV\tDETAIL")
		for _, h := range events {
			env := "-"
			if h.Env != nil {
				env = *h.Env
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", h.At.UTC().Format(time.RFC3339), h.Actor, h.Action, ref(h.KeyID), env, detail(h.Detail))
		}
		return tw.Flush()
	})
}

// when formats an optional time for a table.
func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// ref formats an optional key id for a table.
func ref(id *int) string {
	if id == nil {
		return "-"
	}
	return strconv.Itoa(*id)
}

// detail formats a history record's particulars as sorted key=value pairs.
func detail(d map[string]any) string {
	parts := make([]string, 0, len(d))
	for k, v := range d {
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

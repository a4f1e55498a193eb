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
	fs, err := e.flags("key create", config.Admin)
	if err != nil {
		return err
	}
	org := fs.Int("org", 0, "organization id (required)")
	envName := fs.String("env", "", "live or test (required)")
	scopesFlag := fs.String("scopes", "", "comma-separated scopes, or read-all, or all (required)")
	name := fs.String("name", "", "a label for the key")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *org == 0 || *envName == "" || *scopesFlag == "" {
		return fmt.Errorf("key create needs --org, --env and --scopes")
	}
	environment := policy.Environment(*envName)
	if environment != policy.Live && environment != policy.Test {
		return fmt.Errorf("--env must be live or test, not %q", *envName)
	}
	scopes, err := policy.ParseScopes(*scopesFlag)
	if err != nil {
		return err
	}
	st, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	k, err := auth.CreateKey(audit.WithActor(ctx, e.cfg.Actor), st.Client, *org, auth.Holder, environment, scopes, *name)
	if err != nil {
		return err
	}
	return e.print(map[string]any{
		"id":     k.Record.ID,
		"key":    k.Key,
		"env":    string(environment),
		"scopes": k.Record.Scopes,
		"prefix": k.Record.Prefix,
		"last4":  k.Record.Last4,
	}, fmt.Sprintf("key %d (%s, scopes %s)\n%s\nThis is the only time the key is shown; store it now.",
		k.Record.ID, environment, strings.Join(k.Record.Scopes, ","), k.Key))
}

func keyRotate(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("key rotate", config.Admin)
	if err != nil {
		return err
	}
	id := fs.Int("key", 0, "id of the key to rotate (required)")
	org := orgFlag(fs, "key")
	graceFlag := fs.String("grace", "", "how long the old key keeps working: none, 1h, 24h or 7d (required)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *id == 0 || *graceFlag == "" {
		return fmt.Errorf("key rotate needs --key and --grace")
	}
	grace, err := auth.ParseGrace(*graceFlag)
	if err != nil {
		return err
	}
	st, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	orgID, err := keyOrg(ctx, st, *org, *id)
	if err != nil {
		return err
	}
	r, err := auth.RotateKey(audit.WithActor(ctx, e.cfg.Actor), st.Client, orgID, auth.Holder, *id, grace, time.Now())
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
}

// keyOrg is the organization a command acts for on key id: org when given
// (the key must then belong to it), else the key's own, since the CLI may act
// on any organization.
func keyOrg(ctx context.Context, st *store.Store, org, id int) (int, error) {
	if org != 0 {
		return org, nil
	}
	return auth.KeyOrganization(ctx, st.Client, id)
}

func keyRevoke(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("key revoke", config.Admin)
	if err != nil {
		return err
	}
	id := fs.Int("key", 0, "id of the key to revoke (required)")
	org := orgFlag(fs, "key")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *id == 0 {
		return fmt.Errorf("key revoke needs --key")
	}
	st, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	orgID, err := keyOrg(ctx, st, *org, *id)
	if err != nil {
		return err
	}
	k, err := auth.RevokeKey(audit.WithActor(ctx, e.cfg.Actor), st.Client, orgID, *id, time.Now())
	if err != nil {
		return err
	}
	return e.print(map[string]any{"id": k.ID, "revoked_at": k.RevokedAt.UTC()},
		fmt.Sprintf("key %d (%s…%s) is revoked; it no longer works", k.ID, k.Prefix, k.Last4))
}

func keyList(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("key list")
	if err != nil {
		return err
	}
	org := fs.Int("org", 0, "organization id (required)")
	history := fs.Bool("history", false, "also show the organization's history of key and plan changes")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *org == 0 {
		return fmt.Errorf("key list needs --org")
	}
	st, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := auth.ListKeys(ctx, st.Client, *org)
	if err != nil {
		return err
	}
	var events []audit.Listed
	if *history {
		if events, err = audit.History(ctx, st.Client, *org); err != nil {
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

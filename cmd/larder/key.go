package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"larder.dev/larder/auth"
	"larder.dev/larder/policy"
)

func keyCreate(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("key create")
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
	k, err := auth.CreateKey(ctx, st.Client, *org, environment, scopes, *name)
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

func keyList(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("key list")
	if err != nil {
		return err
	}
	org := fs.Int("org", 0, "organization id (required)")
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
	if e.json {
		return e.print(map[string]any{"keys": keys}, "")
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tENV\tKEY\tSCOPES\tCREATED\tLAST USED\tEXPIRES\tREVOKED")
	for _, k := range keys {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s…%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Env, k.Prefix, k.Last4,
			strings.Join(k.Scopes, ","), k.CreatedAt.Format("2006-01-02 15:04"), when(k.LastUsedAt), when(k.ExpiresAt), when(k.RevokedAt))
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

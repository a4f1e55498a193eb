package main

import (
	"context"
	"fmt"

	"larder.dev/larder/audit"
	"larder.dev/larder/config"
	"larder.dev/larder/seed"
	"larder.dev/larder/tenancy"
)

func orgCreate(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("org create")
	if err != nil {
		return err
	}
	name := fs.String("name", "", "organization name (required)")
	plan := fs.String("plan", tenancy.Entitled, "plan: enterprise, professional, starter or lapsed")
	currency := fs.String("currency", "CAD", "ISO 4217 currency")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *name == "" {
		return fmt.Errorf("org create needs --name")
	}
	st, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	org, err := tenancy.Create(ctx, st.Client, *name, *plan, *currency, seed.TestAccount)
	if err != nil {
		return err
	}
	return e.print(map[string]any{
		"id":       org.Org.ID,
		"name":     org.Org.Name,
		"plan":     string(org.Org.Plan),
		"currency": org.Org.Currency,
		"accounts": map[string]any{
			"live": map[string]any{"id": org.Live.ID},
			"test": map[string]any{"id": org.Test.ID},
		},
	}, fmt.Sprintf("organization %d %q (plan %s): live account %d, test account %d (seeded)",
		org.Org.ID, org.Org.Name, org.Org.Plan, org.Live.ID, org.Test.ID))
}

func orgSetPlan(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("org set-plan", config.Admin)
	if err != nil {
		return err
	}
	id := fs.Int("org", 0, "organization id (required)")
	plan := fs.String("plan", "", "plan: enterprise, professional, starter or lapsed (required)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *id == 0 || *plan == "" {
		return fmt.Errorf("org set-plan needs --org and --plan")
	}
	st, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	org, err := tenancy.SetPlan(audit.WithActor(ctx, e.cfg.Actor), st.Client, *id, *plan)
	if err != nil {
		return err
	}
	return e.print(map[string]any{"id": org.ID, "plan": string(org.Plan)},
		fmt.Sprintf("organization %d is now on the %s plan", org.ID, org.Plan))
}

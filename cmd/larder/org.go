package main

import (
	"context"
	"fmt"
	"strconv"

	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/testaccount"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
)

func orgCreate(ctx context.Context, e *env, args []string) error {
	c := e.command("org create", needs{required: []string{"name"}, store: true})
	name := c.String("name", "", "organization name (required)")
	plan := c.String("plan", tenancy.Entitled, "plan: enterprise, professional, starter or lapsed")
	currency := c.String("currency", "CAD", "ISO 4217 currency")
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
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
	})
}

func orgSetPlan(ctx context.Context, e *env, args []string) error {
	c := e.command("org set-plan", needs{opts: []config.Options{config.Admin}, org: forOrg, required: []string{"plan"}, store: true})
	plan := c.String("plan", "", "plan: enterprise, professional, starter or lapsed (required)")
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		org, err := tenancy.SetPlan(audit.WithActor(ctx, e.cfg.Actor), st.Client, c.org, *plan)
		if err != nil {
			return err
		}
		return e.print(map[string]any{"id": org.ID, "plan": string(org.Plan)},
			fmt.Sprintf("organization %d is now on the %s plan", org.ID, org.Plan))
	})
}

// orgSettings changes an organization's purchasing settings.
func orgSettings(ctx context.Context, e *env, args []string) error {
	c := e.command("org settings", needs{opts: []config.Options{config.Admin}, org: forOrg, store: true})
	block := c.String("block-unapproved-suppliers", "", "true: refuse purchase orders for SUSPENDED or REJECTED suppliers (409 SUPPLIER_BLOCKED)")
	manual := c.String("manual-costing", "", "true: bills do not recalculate product costs")
	second := c.String("require-second-factor", "", "true: everyone signs in to the console with a one-time code as well as the password")
	var s tenancy.Settings
	var requireSecond *bool
	return c.run(ctx, args, func() error {
		for _, x := range []struct {
			flag string
			v    string
			dst  **bool
		}{{"--block-unapproved-suppliers", *block, &s.BlockUnapprovedSuppliers}, {"--manual-costing", *manual, &s.ManualCosting}} {
			if x.v == "" {
				continue
			}
			b, err := strconv.ParseBool(x.v)
			if err != nil {
				return fmt.Errorf("%s must be true or false, not %q", x.flag, x.v)
			}
			*x.dst = &b
		}
		if *second != "" {
			b, err := strconv.ParseBool(*second)
			if err != nil {
				return fmt.Errorf("--require-second-factor must be true or false, not %q", *second)
			}
			requireSecond = &b
		}
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		actx := audit.WithActor(ctx, e.cfg.Actor)
		org, err := tenancy.SetSettings(actx, st.Client, c.org, s)
		if err != nil {
			return err
		}
		required := org.RequireSecondFactor
		if requireSecond != nil {
			svc := people.New(st.Client, people.Options{})
			if err := svc.RequireSecondFactor(actx, c.org, *requireSecond); err != nil {
				return err
			}
			required = *requireSecond
		}
		return e.print(map[string]any{"id": org.ID, "block_unapproved_suppliers": org.BlockUnapprovedSuppliers, "manual_costing": org.ManualCosting, "require_second_factor": required},
			fmt.Sprintf("organization %d: block_unapproved_suppliers=%t manual_costing=%t require_second_factor=%t", org.ID, org.BlockUnapprovedSuppliers, org.ManualCosting, required))
	})
}

// orgResetTest replaces the business data of an organization's test account
// with a fresh seed (testaccount.ResetTest).
func orgResetTest(ctx context.Context, e *env, args []string) error {
	c := e.command("org reset-test", needs{opts: []config.Options{config.Admin}, org: forOrg, store: true})
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		r, err := testaccount.ResetTest(audit.WithActor(ctx, e.cfg.Actor), st.Client, c.org)
		if err != nil {
			return err
		}
		return e.print(map[string]any{"id": r.OrganizationID, "account_id": r.AccountID, "deleted": r.Deleted, "created": r.Created},
			fmt.Sprintf("organization %d: test account %d reset to its seed (%d rows deleted, %d created)", r.OrganizationID, r.AccountID, r.Deleted, r.Created))
	})
}

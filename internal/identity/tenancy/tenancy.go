// Package tenancy creates organizations, each with its live and test account,
// and changes their plans. It acts as the system: these are web-application
// actions, never API operations.
package tenancy

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/account"
	"larder.dev/larder/ent/organization"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/policy"
)

// Plans are the plans an organization can have; only enterprise has the API.
var Plans = []string{"enterprise", "professional", "starter", "lapsed"}

// Entitled is the plan that includes the API.
const Entitled = "enterprise"

// Organization is a new organization and its two accounts.
type Organization struct {
	Org  *ent.Organization
	Live *ent.Account
	Test *ent.Account
}

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// Setup is more work on a new organization, in its creating transaction
// (seeding the test account).
type Setup func(ctx context.Context, tx *ent.Tx, o *Organization) error

// Create makes an organization with a live and a test account and runs the
// setups, all in one transaction: a failure leaves nothing behind.
func Create(ctx context.Context, c *ent.Client, name, plan, currency string, setups ...Setup) (*Organization, error) {
	// System viewer: organizations and accounts are system-only; a new organization has no account to act as yet.
	if name == "" {
		return nil, fmt.Errorf("an organization needs a name")
	}
	if err := validPlan(plan); err != nil {
		return nil, err
	}
	if !currencyCode.MatchString(currency) {
		return nil, fmt.Errorf("currency %q: use an ISO 4217 code such as CAD", currency)
	}
	ctx = policy.System(ctx)
	var out Organization
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		out = Organization{} // filled afresh if the transaction runs again
		org, err := tx.Organization.Create().
			SetName(name).
			SetPlan(organization.Plan(plan)).
			SetCurrency(currency).
			Save(ctx)
		if err != nil {
			return err
		}
		out.Org = org
		if out.Live, err = tx.Account.Create().SetOrganizationID(org.ID).SetEnvironment(account.EnvironmentLive).Save(ctx); err != nil {
			return err
		}
		if out.Test, err = tx.Account.Create().SetOrganizationID(org.ID).SetEnvironment(account.EnvironmentTest).Save(ctx); err != nil {
			return err
		}
		for _, setup := range setups {
			if err := setup(ctx, tx, &out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("create organization: %w", err)
	}
	return &out, nil
}

// SetPlan changes an organization's plan and records the change for the actor
// of ctx (audit.WithActor), in one transaction. It takes effect on the next
// request of every key of both accounts, since each request reads the plan
// with its key.
func SetPlan(ctx context.Context, c *ent.Client, orgID int, plan string) (*ent.Organization, error) {
	// System viewer: plans are kept on organizations, which are system-only.
	if err := validPlan(plan); err != nil {
		return nil, err
	}
	ctx = policy.System(ctx)
	var out *ent.Organization
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		// Writing the row first locks it, so concurrent changes record the
		// plan each one really replaced.
		err := tx.Organization.UpdateOneID(orgID).Exec(ctx)
		if ent.IsNotFound(err) {
			return fmt.Errorf("organization %d does not exist", orgID)
		}
		if err != nil {
			return err
		}
		before, err := tx.Organization.Get(ctx, orgID)
		if err != nil {
			return err
		}
		if out, err = tx.Organization.UpdateOneID(orgID).SetPlan(organization.Plan(plan)).Save(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.PlanChanged, At: time.Now(),
			Detail: map[string]any{"from": string(before.Plan), "to": plan},
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Account returns the env account of an organization.
func Account(ctx context.Context, c *ent.Client, orgID int, env policy.Environment) (*ent.Account, error) {
	// System viewer: an app command finds the account it acts for before it has an account context.
	a, err := c.Account.Query().
		Where(account.OrganizationID(orgID), account.EnvironmentEQ(account.Environment(env))).
		Only(policy.System(ctx))
	if ent.IsNotFound(err) {
		return nil, fmt.Errorf("organization %d does not exist", orgID)
	}
	return a, err
}

// Reader returns ctx carrying a viewer that reads the env account of the
// organization orgID for a person of the organization signed in to the
// console: the read scope of every module, cost:read only when costs, no
// write scope. Tenancy is enforced as for any account's viewer, so what it
// reads is that account's rows alone.
func Reader(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, costs bool) (context.Context, error) {
	if env != policy.Live && env != policy.Test {
		return nil, fmt.Errorf("environment must be live or test, not %q", env)
	}
	a, err := Account(ctx, c, orgID, env)
	if err != nil {
		return nil, err
	}
	var scopes []policy.Scope
	for _, m := range policy.Modules {
		scopes = append(scopes, policy.Read(m))
	}
	if costs {
		scopes = append(scopes, policy.CostRead)
	}
	return policy.NewContext(ctx, &policy.Viewer{
		AccountID: a.ID, OrganizationID: orgID, Environment: env,
		Scopes: policy.Effective(scopes), Source: policy.SourceApp,
	}), nil
}

// Actor returns ctx carrying a viewer that acts in the env account of the
// organization orgID for the person userID signed in to the console: an app
// viewer (every scope, tenancy enforced) whose changes carry the person's
// user id in their events (policy.AppUser). What it reads and changes is
// that account's rows alone.
func Actor(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, userID int) (context.Context, error) {
	if env != policy.Live && env != policy.Test {
		return nil, fmt.Errorf("environment must be live or test, not %q", env)
	}
	a, err := Account(ctx, c, orgID, env)
	if err != nil {
		return nil, err
	}
	v := *policy.FromContext(policy.AppUser(ctx, a.ID, env, userID))
	v.OrganizationID = orgID
	return policy.NewContext(ctx, &v), nil
}

// OrganizationOf is the organization of the viewer's account (its currency
// and purchasing settings). It reads as the system: an account reads its own
// organization, which no tenant policy admits.
func OrganizationOf(ctx context.Context, c *ent.Client) (*ent.Organization, error) {
	// System viewer: an account reads its own organization (currency, settings), which is system-only.
	v := policy.FromContext(ctx)
	if v == nil || v.AccountID == 0 {
		return nil, fmt.Errorf("organization: no account in context")
	}
	org, err := c.Account.Query().Where(account.ID(v.AccountID)).QueryOrganization().Only(policy.System(ctx))
	if err != nil {
		return nil, fmt.Errorf("organization of account %d: %w", v.AccountID, err)
	}
	return org, nil
}

// CurrencyOf is the currency of the viewer's organization. An API caller's
// key lookup read it at the start of the request, as it read the plan, so a
// document priced in that request costs no statement more; an app or other
// viewer without it reads the organization. Both give the same answer: an
// organization's currency is set when it is created (Create) and never
// changes.
func CurrencyOf(ctx context.Context, c *ent.Client) (string, error) {
	if v := policy.FromContext(ctx); v != nil && v.Currency != "" {
		return v.Currency, nil
	}
	org, err := OrganizationOf(ctx, c)
	if err != nil {
		return "", err
	}
	return org.Currency, nil
}

// Currency reports whether s is written as an ISO 4217 code (three capital
// letters).
func Currency(s string) bool { return currencyCode.MatchString(s) }

func validPlan(plan string) error {
	if !slices.Contains(Plans, plan) {
		return fmt.Errorf("plan %q: use one of %v", plan, Plans)
	}
	return nil
}

// Settings are an organization's purchasing settings; a nil field is left
// unchanged.
type Settings struct {
	BlockUnapprovedSuppliers *bool
	ManualCosting            *bool
}

// SetSettings changes an organization's settings and records the change in
// the audit history, in one transaction, and returns the organization as it
// then stands. Settings the organization has already change and record
// nothing; no setting at all just reads them.
func SetSettings(ctx context.Context, c *ent.Client, orgID int, s Settings) (*ent.Organization, error) {
	// System viewer: settings are kept on organizations, which are system-only.
	ctx = policy.System(ctx)
	if s.BlockUnapprovedSuppliers == nil && s.ManualCosting == nil {
		org, err := c.Organization.Get(ctx, orgID)
		if ent.IsNotFound(err) {
			return nil, fmt.Errorf("organization %d does not exist", orgID)
		}
		return org, err
	}
	var out *ent.Organization
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		err := tx.Organization.UpdateOneID(orgID).Exec(ctx) // locks the row
		if ent.IsNotFound(err) {
			return fmt.Errorf("organization %d does not exist", orgID)
		}
		if err != nil {
			return err
		}
		before, err := tx.Organization.Get(ctx, orgID)
		if err != nil {
			return err
		}
		detail := map[string]any{}
		u := tx.Organization.UpdateOneID(orgID)
		if v := s.BlockUnapprovedSuppliers; v != nil && *v != before.BlockUnapprovedSuppliers {
			u.SetBlockUnapprovedSuppliers(*v)
			detail["block_unapproved_suppliers"] = map[string]bool{"from": before.BlockUnapprovedSuppliers, "to": *v}
		}
		if v := s.ManualCosting; v != nil && *v != before.ManualCosting {
			u.SetManualCosting(*v)
			detail["manual_costing"] = map[string]bool{"from": before.ManualCosting, "to": *v}
		}
		if len(detail) == 0 {
			out = before // as asked already: nothing to change or record
			return nil
		}
		if out, err = u.Save(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{OrganizationID: orgID, Action: audit.SettingsChanged, At: time.Now(), Detail: detail})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

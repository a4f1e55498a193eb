package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
)

func init() {
	commands = append(commands,
		command{"user invite", "user invite --org ID --email E --role admin|developer|operator|viewer  add a person; prints their one-time console link (24 h)", userInvite},
		command{"user list", "user list --org ID  the people of an organization, never their passwords", userList},
		command{"user set-role", "user set-role --user ID [--org ID] --role R  change a person's role; their sessions end", userSetRole},
		command{"user remove", "user remove --user ID [--org ID]  remove a person, their sessions and links", userRemove},
		command{"user reset-password", "user reset-password --user ID [--org ID]  a one-time link (24 h) to set a new password; earlier unused links stop working", userResetPassword},
		command{"user unlock", "user unlock --user ID [--org ID]  unlock a person's second factor, locked after 10 wrong codes in a row", userUnlock},
	)
}

// consoleFlags are the options of the commands that print console links.
var consoleFlags = []config.Options{config.Admin, config.Console, {"addr"}}

// person is the person a command acts on, by --user; without --org, the
// command acts for the person's own organization, since the CLI may act on
// any organization.
var person = record{flag: "user", usage: "id of the person (required)", what: "person",
	org: func(ctx context.Context, c *ent.Client, id int) (int, error) {
		o, err := people.UserOrganization(ctx, c, id)
		if err != nil {
			return 0, userErr(id, err)
		}
		return o, nil
	}}

// userErr names the person an error is about.
func userErr(id int, err error) error {
	if errors.Is(err, people.ErrNotFound) {
		return fmt.Errorf("user %d does not exist in this organization", id)
	}
	return err
}

// link is the absolute console address of a one-time link.
func (e *env) link(l people.Link) string { return e.cfg.ConsoleBase() + people.LinkPath(l.Token) }

func userInvite(ctx context.Context, e *env, args []string) error {
	c := e.command("user invite", needs{opts: consoleFlags, org: forOrg, required: []string{"email", "role"}, store: true})
	email := c.String("email", "", "the person's e-mail address, their sign-in name (required)")
	roleFlag := c.String("role", "", "admin, developer, operator or viewer (required)")
	var role people.Role
	return c.run(ctx, args, func() (err error) {
		role, err = people.ParseRole(*roleFlag)
		return err
	}, func(ctx context.Context, st *store.Store) error {
		p, l, err := people.New(st.Client, people.Options{}).Invite(audit.WithActor(ctx, e.cfg.Actor), c.org, *email, role)
		if errors.Is(err, people.ErrNotFound) {
			return fmt.Errorf("organization %d does not exist", c.org)
		}
		if err != nil {
			return err
		}
		link := e.link(l)
		return e.print(map[string]any{"id": p.ID, "email": p.Email, "role": string(p.Role), "link": link},
			fmt.Sprintf("user %d (%s, %s) is invited; their one-time link, valid until %s:\n%s",
				p.ID, p.Email, p.Role, l.ExpiresAt.UTC().Format(time.RFC3339), link))
	})
}

func userList(ctx context.Context, e *env, args []string) error {
	c := e.command("user list", needs{org: forOrg, store: true})
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		ps, err := people.New(st.Client, people.Options{}).List(ctx, c.org)
		if errors.Is(err, people.ErrNotFound) {
			return fmt.Errorf("organization %d does not exist", c.org)
		}
		if err != nil {
			return err
		}
		if e.json {
			users := make([]map[string]any, len(ps))
			for i, p := range ps {
				users[i] = map[string]any{
					"id": p.ID, "email": p.Email, "role": string(p.Role), "active": p.Active,
					"second_factor": p.SecondFactor, "created_at": p.CreatedAt.UTC(), "last_sign_in_at": p.LastSignInAt,
				}
			}
			return e.print(map[string]any{"users": users}, "")
		}
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tEMAIL\tROLE\tACTIVE\tSECOND FACTOR\tINVITED\tLAST SIGN-IN")
		for _, p := range ps {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", p.ID, p.Email, p.Role, yesNo(p.Active), yesNo(p.SecondFactor),
				p.CreatedAt.UTC().Format("2006-01-02 15:04"), when(p.LastSignInAt))
		}
		return tw.Flush()
	})
}

// yesNo formats a flag for a table.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// onUser runs a command that acts on one person (--user, and --org when
// given): more adds the command's own flags and returns the check to run on
// them once parsed; act is called with a context naming the actor.
func onUser(ctx context.Context, e *env, name string, opts []config.Options, args []string,
	more func(*flag.FlagSet) func() error, act func(ctx context.Context, svc *people.Service, orgID, id int) error) error {
	c := e.command(name, needs{opts: opts, org: forRecord, record: person})
	var check func() error
	if more != nil {
		check = more(c.FlagSet)
	}
	return c.run(ctx, args, check, func(ctx context.Context, st *store.Store) error {
		if err := act(audit.WithActor(ctx, e.cfg.Actor), people.New(st.Client, people.Options{}), c.org, c.id); err != nil {
			return userErr(c.id, err)
		}
		return nil
	})
}

func userSetRole(ctx context.Context, e *env, args []string) error {
	var role people.Role
	flags := func(fs *flag.FlagSet) func() error {
		r := fs.String("role", "", "admin, developer, operator or viewer (required)")
		return func() error {
			if *r == "" {
				return fmt.Errorf("user set-role needs --role")
			}
			var err error
			role, err = people.ParseRole(*r)
			return err
		}
	}
	return onUser(ctx, e, "user set-role", []config.Options{config.Admin}, args, flags, func(ctx context.Context, svc *people.Service, orgID, id int) error {
		p, err := svc.SetRole(ctx, orgID, id, role)
		if err != nil {
			return err
		}
		return e.print(map[string]any{"id": p.ID, "email": p.Email, "role": string(p.Role)},
			fmt.Sprintf("user %d (%s) is now %s; their sessions have ended", p.ID, p.Email, p.Role))
	})
}

func userRemove(ctx context.Context, e *env, args []string) error {
	return onUser(ctx, e, "user remove", []config.Options{config.Admin}, args, nil, func(ctx context.Context, svc *people.Service, orgID, id int) error {
		p, err := svc.Get(ctx, orgID, id)
		if err != nil {
			return err
		}
		if err := svc.Remove(ctx, orgID, id); err != nil {
			return err
		}
		return e.print(map[string]any{"id": p.ID, "email": p.Email, "removed": true},
			fmt.Sprintf("user %d (%s) is removed; their sessions and links no longer work", p.ID, p.Email))
	})
}

func userResetPassword(ctx context.Context, e *env, args []string) error {
	return onUser(ctx, e, "user reset-password", consoleFlags, args, nil, func(ctx context.Context, svc *people.Service, orgID, id int) error {
		l, err := svc.IssueReset(ctx, orgID, id)
		if err != nil {
			return err
		}
		link := e.link(l)
		return e.print(map[string]any{"id": l.Person.ID, "email": l.Person.Email, "link": link},
			fmt.Sprintf("one-time link for user %d (%s) to set a new password, valid until %s:\n%s",
				l.Person.ID, l.Person.Email, l.ExpiresAt.UTC().Format(time.RFC3339), link))
	})
}

func userUnlock(ctx context.Context, e *env, args []string) error {
	return onUser(ctx, e, "user unlock", []config.Options{config.Admin}, args, nil, func(ctx context.Context, svc *people.Service, orgID, id int) error {
		before, err := svc.Get(ctx, orgID, id)
		if err != nil {
			return err
		}
		p, err := svc.UnlockSecondFactor(ctx, orgID, id)
		if err != nil {
			return err
		}
		text := fmt.Sprintf("user %d (%s) had no wrong codes; nothing changed", p.ID, p.Email)
		if before.FailedCodes > 0 {
			text = fmt.Sprintf("user %d (%s): %d wrong codes cleared; their second factor takes codes again (whoever gave them knew the password: reset it too)", p.ID, p.Email, before.FailedCodes)
		}
		return e.print(map[string]any{"id": p.ID, "email": p.Email, "failed_codes": before.FailedCodes, "second_factor_locked": p.SecondFactorLocked}, text)
	})
}

package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/policy"
)

// needs is what a command needs before its own work: the configuration
// flags it reads, how it takes --org, the flags it requires, and whether the
// database is opened for it.
type needs struct {
	// opts are the configuration flags it reads beyond the common ones.
	opts []config.Options
	// org is how it takes --org (and --env).
	org orgUse
	// record, with org forRecord, is the record it acts on.
	record record
	// required are its own flags that must be given (not zero), in the
	// order its "needs" error names them, after --org and --env when those
	// are required too.
	required []string
	// store opens the database (applying pending migrations) for the work
	// and closes it after; inAccount and forRecord imply it.
	store bool
	// creates lets the store make a new SQLite file (env.creates).
	creates bool
}

// orgUse is how a command takes --org and --env.
type orgUse int

const (
	// noOrg: the command takes no --org, or one of its own.
	noOrg orgUse = iota
	// forOrg: --org names the organization; it is required.
	forOrg
	// forOrgEnv: --org and --env (live or test), both required.
	forOrgEnv
	// inAccount: --org and --env name the account the work runs in, as an
	// app viewer of it. They are checked after the command's own flags,
	// just before the database opens; an organization without the account
	// is an error.
	inAccount
	// forRecord: the record's id flag is required; --org, optional, is the
	// organization the record must belong to, by default its own.
	forRecord
)

// record is the record a forRecord command acts on.
type record struct {
	// flag names its id (key, user, endpoint); usage is the flag's help.
	flag, usage string
	// what names it in --org's help.
	what string
	// org finds the organization of record id when --org is not given.
	org func(ctx context.Context, c *ent.Client, id int) (int, error)
}

// invocation is a command's flag set and what it needs; its own flags are
// added to the embedded flag set before run.
type invocation struct {
	*flag.FlagSet
	e     *env
	name  string
	needs needs
	// err is the configuration's binding error, returned by run.
	err error

	orgFlag, idFlag *int
	envFlag         *string

	// Set by run once the flags are parsed: --org (the record's
	// organization once found, for forRecord), --env, the record's id, and
	// the positional arguments. applied are the migrations the store
	// applied when it opened.
	org     int
	env     policy.Environment
	id      int
	pos     []string
	applied []string
}

// command returns the flag set of the command name with the common flags,
// n's configuration flags and the --org, --env and record flags n takes.
func (e *env) command(name string, n needs) *invocation {
	fs, err := e.flags(name, n.opts...)
	c := &invocation{FlagSet: fs, e: e, name: name, needs: n, err: err}
	switch n.org {
	case forOrg, forOrgEnv, inAccount:
		c.orgFlag = fs.Int("org", 0, "organization id (required)")
	case forRecord:
		c.idFlag = fs.Int(n.record.flag, 0, n.record.usage)
		c.orgFlag = orgFlag(fs, n.record.what)
	}
	if n.org == forOrgEnv || n.org == inAccount {
		c.envFlag = fs.String("env", "", "live or test (required)")
	}
	return c
}

// run parses args and checks the required flags, then calls check (if any)
// for the command's own checks, opens the database and finds the account or
// the record's organization when the command needs them, and calls work
// with the context to work in and the store (nil when not opened), which it
// closes afterwards.
func (c *invocation) run(ctx context.Context, args []string, check func() error, work func(ctx context.Context, st *store.Store) error) error {
	if c.err != nil {
		return c.err
	}
	pos, err := c.e.parse(c.FlagSet, args)
	if err != nil {
		return err
	}
	c.pos = pos
	if c.orgFlag != nil {
		c.org = *c.orgFlag
	}
	if c.envFlag != nil {
		c.env = policy.Environment(*c.envFlag)
	}
	if c.idFlag != nil {
		c.id = *c.idFlag
	}
	var required []string
	switch c.needs.org {
	case forOrg:
		required = []string{"org"}
	case forOrgEnv:
		required = []string{"org", "env"}
	case forRecord:
		required = []string{c.needs.record.flag}
	}
	required = append(required, c.needs.required...)
	for _, name := range required {
		if !c.given(name) {
			return fmt.Errorf("%s needs %s", c.name, flagList(required))
		}
	}
	if c.needs.org == forOrgEnv {
		if c.env, err = parseEnv(*c.envFlag); err != nil {
			return err
		}
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if c.needs.org == inAccount {
		if c.org == 0 || *c.envFlag == "" {
			return fmt.Errorf("%s needs --org and --env", c.name)
		}
		if c.env, err = parseEnv(*c.envFlag); err != nil {
			return err
		}
	}
	if !c.needs.store && c.needs.org != inAccount && c.needs.org != forRecord {
		return work(ctx, nil)
	}
	if c.needs.creates {
		c.e.creates = true
	}
	st, applied, err := c.e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	c.applied = applied
	switch {
	case c.needs.org == inAccount:
		if ctx, err = c.account(ctx, st); err != nil {
			return err
		}
	case c.needs.org == forRecord && c.org == 0 && c.needs.record.org != nil:
		if c.org, err = c.needs.record.org(ctx, st.Client, c.id); err != nil {
			return err
		}
	}
	return work(ctx, st)
}

// account returns ctx with an app viewer of the account --org and --env
// name.
func (c *invocation) account(ctx context.Context, st *store.Store) (context.Context, error) {
	// System viewer: an app command finds the account it acts for before it has an account context.
	acct, err := tenancy.Account(policy.System(ctx), st.Client, c.org, c.env)
	if err != nil {
		return nil, err
	}
	return policy.App(ctx, acct.ID, c.env), nil
}

// given reports whether flag name was given a value other than its zero.
func (c *invocation) given(name string) bool {
	f := c.Lookup(name)
	switch v := f.Value.(flag.Getter).Get().(type) {
	case int:
		return v != 0
	case string:
		return v != ""
	}
	return f.Value.String() != f.DefValue
}

// flagList names flags as "--a", "--a and --b" or "--a, --b and --c".
func flagList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "--" + n
	}
	if len(out) == 1 {
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
}

// orgFlag adds the --org flag of a command naming one record (what) by id.
func orgFlag(fs interface {
	Int(name string, value int, usage string) *int
}, what string) *int {
	return fs.Int("org", 0, "organization the "+what+" must belong to (default: the one it belongs to)")
}

// parseEnv reads an --env value.
func parseEnv(v string) (policy.Environment, error) {
	env := policy.Environment(v)
	if env != policy.Live && env != policy.Test {
		return "", fmt.Errorf("--env must be live or test, not %q", v)
	}
	return env, nil
}

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strconv"
	"strings"
	"testing"

	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// testEnv is the env of a command "thing do" writing to out and errb.
func testEnv() (e *env, out, errb *bytes.Buffer) {
	out, errb = new(bytes.Buffer), new(bytes.Buffer)
	return &env{cfg: config.Defaults(), stdout: out, stderr: errb,
		cmd: &command{name: "thing do", usage: "thing do --org ID  do a thing"}}, out, errb
}

// A command's required flags are refused together, before any check or
// work, with the message and the exit status every command has.
func TestCommandRequiresOrg(t *testing.T) {
	for _, args := range [][]string{nil, {"--name", "x"}, {"--org", "3"}, {"--org", "0", "--name", "x"}} {
		e, _, _ := testEnv()
		c := e.command("thing do", needs{org: forOrg, required: []string{"name"}})
		c.String("name", "", "a name")
		called := false
		err := c.run(context.Background(), append(args, "--database", "sqlite:///nonexistent/larder.db"), func() error {
			called = true
			return nil
		}, func(context.Context, *store.Store) error {
			called = true
			return nil
		})
		if err == nil || err.Error() != "thing do needs --org and --name" || called {
			t.Fatalf("thing do %v: %v (check or work called: %t), want: thing do needs --org and --name", args, err, called)
		}
	}

	// A real command, as main runs it.
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"key", "list"}, &out, &errb)
	var status bytes.Buffer
	if code := exitCode(err, &status); code != 1 || status.String() != "larder: key list needs --org\n" || out.Len() != 0 || errb.Len() != 0 {
		t.Fatalf("larder key list: exit %d, stderr %q, command output %q %q", code, status.String(), out.String(), errb.String())
	}
	err = run(context.Background(), []string{"webhook", "create", "--org", "1", "--env", "staging", "--url", "https://example.com"}, &out, &errb)
	status.Reset()
	if code := exitCode(err, &status); code != 1 || status.String() != "larder: --env must be live or test, not \"staging\"\n" {
		t.Fatalf("larder webhook create --env staging: exit %d, stderr %q", code, status.String())
	}
	status.Reset()
	if code := exitCode(run(context.Background(), []string{"key", "list", "--help"}, &out, &errb), &status); code != 0 || status.Len() != 0 {
		t.Fatalf("larder key list --help: exit %d, stderr %q", code, status.String())
	}
}

// Flags parse before and after positional arguments; a bad value or -h
// stops the command before its work, and the checks run in order.
func TestCommandParsesFlags(t *testing.T) {
	e, _, _ := testEnv()
	c := e.command("thing do", needs{org: forOrgEnv})
	name := c.String("name", "", "a name")
	var checked, worked int
	err := c.run(context.Background(), []string{"a", "--org", "3", "b", "--env", "test", "--name", "x", "--json"}, func() error {
		checked++
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		if checked != 1 || st != nil || policy.FromContext(ctx) != nil {
			t.Errorf("work after %d checks, store %v, viewer %v; want one check, no store, no viewer", checked, st, policy.FromContext(ctx))
		}
		worked++
		return nil
	})
	if err != nil || worked != 1 {
		t.Fatalf("run: %v, work called %d times", err, worked)
	}
	if strings.Join(c.pos, " ") != "a b" || c.org != 3 || c.env != policy.Test || *name != "x" || !e.json {
		t.Fatalf("parsed pos %q, org %d, env %q, name %q, json %t", c.pos, c.org, c.env, *name, e.json)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--org", "x"}, `invalid value "x" for flag -org: parse error`},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--org", "1", "--env", "staging"}, `--env must be live or test, not "staging"`},
		{[]string{"--org", "1", "--env", "live", "--log-format", "xml"}, "configuration: log-format must be text or json"},
	} {
		e, _, errb := testEnv()
		c := e.command("thing do", needs{org: forOrgEnv})
		err := c.run(context.Background(), tc.args, nil, func(context.Context, *store.Store) error {
			t.Errorf("%v: work called", tc.args)
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want one mentioning %q", tc.args, err, tc.want)
		}
		if strings.HasPrefix(tc.args[0], "--bogus") && !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: stderr %q", tc.args, errb.String())
		}
	}

	e, out, _ := testEnv()
	c = e.command("thing do", needs{org: forRecord, record: record{flag: "thing", usage: "id of the thing (required)", what: "thing"}})
	err = c.run(context.Background(), []string{"-h"}, nil, nil)
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "usage: larder thing do --org ID") ||
		!strings.Contains(out.String(), "id of the thing (required)") || !strings.Contains(out.String(), "organization the thing must belong to (default: the one it belongs to)") {
		t.Fatalf("-h: %v\n%s", err, out.String())
	}

	// An account's --org and --env are checked after the command's own
	// flags and checks, before the database opens.
	for _, tc := range []struct {
		args  []string
		check error
		want  string
	}{
		{nil, nil, "thing do needs --id"},
		{[]string{"--id", "1"}, errors.New("bad --size"), "bad --size"},
		{[]string{"--id", "1", "--org", "1"}, nil, "thing do needs --org and --env"},
		{[]string{"--id", "1", "--env", "live"}, nil, "thing do needs --org and --env"},
		{[]string{"--id", "1", "--org", "1", "--env", "prod"}, nil, `--env must be live or test, not "prod"`},
		{[]string{"--id", "1", "--org", "1", "--env", "live", "--database", "sqlite:///nonexistent/larder.db"}, nil, "no database at /nonexistent/larder.db"},
	} {
		e, _, _ := testEnv()
		c := e.command("thing do", needs{org: inAccount, required: []string{"id"}})
		c.Int("id", 0, "id (required)")
		err := c.run(context.Background(), tc.args, func() error { return tc.check }, func(context.Context, *store.Store) error {
			t.Errorf("%v: work called", tc.args)
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want one mentioning %q", tc.args, err, tc.want)
		}
	}
}

// The store is open for the work and closed after it, whatever the work
// returns; the account and the record's organization are found in it.
func TestCommandOpensAndClosesTheStore(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			org := cli(t, db, "org", "create", "--name", "Command Bakery")
			orgID := int(org["id"].(float64))
			test := int(org["accounts"].(map[string]any)["test"].(map[string]any)["id"].(float64))
			key := cli(t, db, "key", "create", "--org", strconv.Itoa(orgID), "--env", "live", "--scopes", "all")
			keyID := strconv.Itoa(int(key["id"].(float64)))

			// do runs a command of n with args and returns the store
			// and the context its work had, and run's error.
			do := func(n needs, fail error, args ...string) (*store.Store, context.Context, *invocation, error) {
				t.Helper()
				e, _, _ := testEnv()
				c := e.command("thing do", n)
				var st *store.Store
				var wctx context.Context
				err := c.run(context.Background(), append(args, "--database", db), nil, func(ctx context.Context, s *store.Store) error {
					st, wctx = s, ctx
					if err := s.DB.PingContext(ctx); err != nil {
						t.Errorf("the store is not open for the work: %v", err)
					}
					return fail
				})
				return st, wctx, c, err
			}
			closed := func(st *store.Store) {
				t.Helper()
				if st == nil {
					t.Fatal("no store given to the work")
				}
				if err := st.DB.Ping(); err == nil || !strings.Contains(err.Error(), "closed") {
					t.Fatalf("the store is still open after the command: %v", err)
				}
			}

			st, _, c, err := do(needs{store: true, creates: false}, nil)
			if err != nil {
				t.Fatal(err)
			}
			closed(st)
			if c.e.creates {
				t.Fatal("a command that makes no database may make one")
			}
			failed := errors.New("the work failed")
			if st, _, _, err = do(needs{org: forOrg, store: true}, failed, "--org", "1"); !errors.Is(err, failed) {
				t.Fatalf("run returned %v, not the work's error", err)
			}
			closed(st)

			st, ctx, _, err := do(needs{org: inAccount}, nil, "--org", strconv.Itoa(orgID), "--env", "test")
			if err != nil {
				t.Fatal(err)
			}
			closed(st)
			if v := policy.FromContext(ctx); v == nil || v.AccountID != test || v.Environment != policy.Test || v.Source != policy.SourceApp {
				t.Fatalf("the work's viewer is %+v, want the app viewer of test account %d", v, test)
			}
			if st, _, _, err = do(needs{org: inAccount}, nil, "--org", "987654", "--env", "live"); err == nil || err.Error() != "organization 987654 does not exist" || st != nil {
				t.Fatalf("an unknown organization: %v (work called: %t)", err, st != nil)
			}

			keyRec := keyRecord("id of the key (required)")
			st, _, c, err = do(needs{org: forRecord, record: keyRec}, nil, "--key", keyID)
			if err != nil || c.org != orgID || c.id != int(key["id"].(float64)) {
				t.Fatalf("the key's organization: %v, org %d id %d; want org %d", err, c.org, c.id, orgID)
			}
			closed(st)
			if _, _, c, err = do(needs{org: forRecord, record: keyRec}, nil, "--key", keyID, "--org", "987654"); err != nil || c.org != 987654 {
				t.Fatalf("--org given: %v, org %d", err, c.org)
			}
		})
	}
}

// A configuration variable that does not parse is the command's error,
// before its flags are parsed.
func TestCommandConfigurationError(t *testing.T) {
	t.Setenv("LARDER_DB_STATEMENTS", "x")
	e, _, _ := testEnv()
	c := e.command("thing do", needs{org: forOrg})
	c.String("name", "", "a name")
	err := c.run(context.Background(), []string{"--org", "1"}, nil, func(context.Context, *store.Store) error {
		t.Error("work called")
		return nil
	})
	if err == nil || err.Error() != `LARDER_DB_STATEMENTS="x": strconv.Atoi: parsing "x": invalid syntax` || c.Parsed() {
		t.Fatalf("%v (flags parsed: %t)", err, c.Parsed())
	}
}

func TestFlagList(t *testing.T) {
	for names, want := range map[string]string{"org": "--org", "org env": "--org and --env", "org env scopes": "--org, --env and --scopes"} {
		if got := flagList(strings.Fields(names)); got != want {
			t.Errorf("flagList(%s) = %q, want %q", names, got, want)
		}
	}
}

// Command larder is Larder: the API server and the admin CLI for what the
// specification puts in the web application (organizations, keys, …).
//
//	larder serve [--addr A] [--demo]
//	larder migrate | migrate diff NAME | migrate hash
//	larder org create --name N [--plan P] [--currency C]
//	larder org set-plan --org ID --plan P
//	larder org reset-test --org ID
//	larder key create --org ID --env live|test --scopes S [--name N]
//	larder product import|export|delete --org ID --env live|test …
//	larder list import|export --org ID --env live|test --list NAME …
//	larder seed --org ID --env test --scale N
//	larder access-report [--json]
//	larder key list --org ID [--history]
//	larder key rotate --key ID --grace none|1h|24h|7d
//	larder key revoke --key ID
//	larder secrets rotate
//	larder requests --org ID --env live|test [filters] | --request-id R | --failed-auth
//
// Every command takes --database (LARDER_DATABASE_URL) and --json.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/fastpath/logbuf"
	"larder.dev/larder/internal/platform/secrets"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/migrate"
)

// command is one CLI command.
type command struct {
	name, usage string
	run         func(ctx context.Context, e *env, args []string) error
}

var commands = []command{
	{"serve", "serve [--addr A] [--demo]  apply migrations and serve the API; --demo on an empty database also prints a test key and the demo admin's one-time console link", serve},
	{"migrate", "migrate  apply pending migrations", migrateApply},
	{"migrate diff", "migrate diff NAME [--dir D] [--dev-database URL]  write the next migration of both dialects", migrateDiff},
	{"migrate hash", "migrate hash [--dir D]  rewrite atlas.sum after a hand-written migration", migrateHash},
	{"migrate distribute", "migrate distribute  on a Citus coordinator, place the migrated tables as the schemas class them: reference, distributed by account_id, local", migrateDistribute},
	{"org create", "org create --name N [--plan P] [--currency C]  create an organization; its test account is seeded", orgCreate},
	{"org set-plan", "org set-plan --org ID --plan P  change a plan: enterprise, professional, starter, lapsed", orgSetPlan},
	{"org settings", "org settings --org ID [--block-unapproved-suppliers true|false] [--manual-costing true|false] [--require-second-factor true|false]  change purchasing and console settings", orgSettings},
	{"org reset-test", "org reset-test --org ID  replace the test account's data with a fresh seed; keys and webhook endpoints stay", orgResetTest},
	{"key create", "key create --org ID --env live|test --scopes S [--name N]  issue a key (S: scopes, read-all or all)", keyCreate},
	{"product import", "product import --org ID --env E [--format jsonl|csv] FILE  upsert products by product_code", productImport},
	{"product export", "product export --org ID --env E [--format jsonl|csv] [--out FILE]  write products in the import format", productExport},
	{"product delete", "product delete --org ID --env E --code C  mark a product deleted", productDelete},
	{"list import", "list import --org ID --env E " + listUsage + " [--format jsonl|csv] FILE  upsert a reference list's rows by code", listImport},
	{"list export", "list export --org ID --env E " + listUsage + " [--format jsonl|csv] [--out FILE]  write a reference list in the import format", listExport},
	{"lot set-qc", "lot set-qc --org ID --env E --lot ID --status S [--note N] [--release-expires T]  record a quality decision on a lot", lotSetQC},
	{"lot trace", "lot trace --org ID --env E --lot ID [--direction backward|forward|both] [--depth N] [--format json|csv]  a lot's trace to suppliers and customers with its recall summary, as GET /v1/product-lots/{lot_id}/trace answers it, or as FSMA 204's sortable spreadsheet", lotTrace},
	{"production create", "production create --org ID --env E --product CODE [--line NAME|ID] [--qty N] [--lot-number L] [--expires T] [--step PRODUCT_CODE:QTY ...]  plan a run", productionCreate},
	{"production start", "production start --org ID --env E --id ID  start a run (IN_PROGRESS)", productionStart},
	{"production complete", "production complete --org ID --env E --id ID [--consume LOT_ID:QTY ...] [--produced N] [--positive-release]  consume components, make the output lot", productionComplete},
	{"production sign", "production sign --org ID --env E --id ID  sign and lock a completed run", productionSign},
	{"supplier approve", "supplier approve --org ID --env E --supplier CODE|ID [--expires DATE]  approve a supplier (supplier.approval_changed)", supplierApproval(supplier.ApprovalStatusAPPROVED)},
	{"supplier suspend", "supplier suspend --org ID --env E --supplier CODE|ID  suspend a supplier's approval", supplierApproval(supplier.ApprovalStatusSUSPENDED)},
	{"supplier reject", "supplier reject --org ID --env E --supplier CODE|ID  reject a supplier", supplierApproval(supplier.ApprovalStatusREJECTED)},
	{"supplier reset", "supplier reset --org ID --env E --supplier CODE|ID  put a supplier back to PENDING", supplierApproval(supplier.ApprovalStatusPENDING)},
	{"supplier certify", "supplier certify --org ID --env E --supplier CODE|ID [--scheme S] [--expires-on DATE]  record a supplier's certification", supplierCertify},
	{"bill cancel", "bill cancel --org ID --env E --id ID  cancel a bill: kept, is_cancelled (bill.cancelled); its stock stays", billCancel},
	{"invoice cancel", "invoice cancel --org ID --env E --id ID  cancel an invoice: kept, is_cancelled (invoice.cancelled); what shipped stays shipped", invoiceCancel},
	{"access-report", "access-report [--json]  who can read or change what: operations and scopes, policies, cost fields, system-viewer uses (docs/ACCESS.md)", accessReport},
	{"seed", "seed --org ID --env test --scale N  add N copies of the test dataset, in bulk (benchmarks)", seedScale},
	{"key list", "key list --org ID [--history]  list keys, never their secrets; --history adds key and plan changes", keyList},
	{"key rotate", "key rotate --key ID [--org ID] --grace none|1h|24h|7d  replace a key; the old one works until the grace ends", keyRotate},
	{"key revoke", "key revoke --key ID [--org ID]  revoke a key, effective on the next request", keyRevoke},
}

// env is what every command shares.
type env struct {
	// cmd is the command running.
	cmd    *command
	cfg    config.Config
	json   bool
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	// logs batches serve's log lines (--log-flush); nil otherwise.
	logs *logbuf.Writer
	// accessLines takes serve's access log lines, formatted by the server
	// itself, when the log is text (handlers.Options.AccessLines).
	accessLines io.Writer
	// creates is whether the command may make a new SQLite file: migrate
	// and serve --demo only (open).
	creates bool
	// keys encrypt webhook signing secrets at rest: those of
	// LARDER_SECRET_KEY and LARDER_SECRET_KEY_OLD, for the commands that
	// read them (none otherwise).
	keys *secrets.Keyring
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if code := exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr); code != 0 {
		os.Exit(code)
	}
}

// exitCode is the exit status of a run that returned err, which it writes
// to stderr unless it is the usage already printed (flag.ErrHelp).
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, "larder:", err)
	}
	return 1
}

// run dispatches args to the longest matching command. Help (--help, -h,
// help) goes to standard output and is not an error; so is --version.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 0:
		usageOf(stderr, "")
		return flag.ErrHelp
	case isHelp(args[0]):
		usageOf(stdout, "")
		return nil
	case args[0] == "--version" || args[0] == "-version" || args[0] == "version":
		_, err := fmt.Fprintln(stdout, version())
		return err
	}
	var match *command
	var rest []string
	for i := range commands {
		words := strings.Fields(commands[i].name)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == commands[i].name {
			if match == nil || len(words) > len(strings.Fields(match.name)) {
				match, rest = &commands[i], args[len(words):]
			}
		}
	}
	if match == nil {
		if group(args[0]) {
			if len(args) > 1 && isHelp(args[1]) {
				usageOf(stdout, args[0]+" ")
				return nil
			}
			usageOf(stderr, args[0]+" ")
			return fmt.Errorf("larder %s needs one of the commands above", args[0])
		}
		usageOf(stderr, "")
		return fmt.Errorf("unknown command %q", strings.Join(args, " "))
	}
	e := &env{cfg: config.Defaults(), stdout: stdout, stderr: stderr, cmd: match}
	err := match.run(ctx, e, rest)
	if e.logs != nil {
		_ = e.logs.Flush()
	}
	if errors.Is(err, flag.ErrHelp) {
		return nil // the command's help was printed
	}
	return err
}

// flags returns a flag set with the common flags and opts bound.
func (e *env) flags(name string, opts ...config.Options) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet("larder "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	e.commandHelp(fs)
	fs.BoolVar(&e.json, "json", false, "print one JSON object on stdout")
	return fs, e.cfg.Bind(fs, append([]config.Options{config.Common}, opts...)...)
}

// parse parses flags that may come before or after positional arguments and
// returns the positionals, then validates the configuration.
func (e *env) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if err := e.cfg.Validate(); err != nil {
		return nil, err
	}
	keys, err := e.cfg.Keyring()
	if err != nil {
		return nil, err
	}
	e.keys = keys
	level := slog.LevelWarn
	if fs.Name() == "larder serve" {
		level = slog.LevelInfo
	}
	out := e.stderr
	serving := fs.Name() == "larder serve"
	batched := e.cfg.FastPath.Has(fastpath.BatchedLog)
	if serving {
		if e.cfg.LogFlush > 0 && batched {
			e.logs = logbuf.New(e.stderr, e.cfg.LogFlush)
			out = e.logs
		} else {
			// The handler and the access log write to it in turn.
			out = &lockedWriter{w: e.stderr}
		}
	}
	var h slog.Handler = slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})
	if e.cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level})
	} else if serving && batched {
		// The access log's lines, formatted by the server as this
		// handler would, go straight to its writer.
		e.accessLines = out
	}
	if e.logs != nil {
		h = logbuf.Handler{Handler: h, W: e.logs}
	}
	e.log = slog.New(h)
	return pos, nil
}

// lockedWriter takes one Write at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// open opens the database, applies pending migrations and the shared rows.
// A SQLite file that does not exist is made by migrate and serve alone
// (both apply the migrations): any other command would leave an empty
// database where the server's was meant (a forgotten --database) and then
// answer that the organization does not exist.
func (e *env) open(ctx context.Context) (*store.Store, []string, error) {
	if path, ok := strings.CutPrefix(e.cfg.Database, "sqlite://"); ok && !e.creates {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("no database at %s: set --database or LARDER_DATABASE_URL to the server's database (postgres://… or sqlite://PATH), or make a new SQLite database with `larder migrate --database sqlite://%s` (or `larder serve`)", path, path)
		}
	}
	st, err := store.Open(ctx, e.cfg.Database, store.Options{MaxConns: e.cfg.MaxConns, Statements: e.cfg.Statements, Snapshots: restapi.Snapshots{}, Fast: e.cfg.FastPath})
	if err != nil {
		return nil, nil, err
	}
	applied, err := migrate.Apply(ctx, st.DB, st.Dialect, func(ctx context.Context) error {
		return seed.Shared(ctx, st.Client)
	})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, applied, nil
}

// print writes v as one JSON object with --json, or the human text otherwise.
func (e *env) print(v any, human string) error {
	if e.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(e.stdout, human)
	return err
}

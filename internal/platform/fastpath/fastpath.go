// Package fastpath names the mechanisms Larder runs for speed alone, and
// holds the switch that turns them off: --fast-path (LARDER_FAST_PATH).
//
// Each mechanism answers exactly as the plain path does (same statuses, same
// bodies, same rules); it only spends less to get there, and most of them
// lean on how another package behaves inside (ent's builders, lib/pq's
// connections, database/sql's calls). With the switch off, Larder runs plain
// ent, lib/pq with its own context handling, and reads a request's key
// before anything else: the reference behaviour to fall back on when an
// upgrade of ent, lib/pq or Go breaks an assumption, until the assumption's
// tripwire test is green again. docs/fast-path.md lists every mechanism with
// what it saves, what it depends on and which test guards it.
package fastpath

import (
	"fmt"
	"os"
	"slices"
	"strings"

	goerrors "github.com/go-faster/errors"
)

// Mechanism is one of the speed mechanisms.
type Mechanism uint32

// The mechanisms the switch turns off, each where it lives.
const (
	// StatementCache keeps the statements queries repeat prepared, per pool
	// (internal/platform/fastpath/stmtcache).
	StatementCache Mechanism = 1 << iota
	// CompiledReads answers a read by id or by known predicates from a
	// statement ent built once for its shape (ent's Read, generated from
	// internal/generators/codegen/templates/compiled.tmpl).
	CompiledReads
	// OwnCancel has the guard of PostgreSQL connections (internal/platform/store/guard.go)
	// send a cut-off call's cancel request itself, with the cancel key it
	// reads as the connection starts (internal/platform/fastpath/pgcancel), and hand lib/pq
	// contexts that never end, so that lib/pq starts no goroutine per call
	// to watch them. Off, lib/pq watches each call's context and cancels it
	// itself. The guard's cut at the socket, which bounds a request against
	// a database that stops answering, stays on either way: it is a rule
	// of the API, not a speed.
	OwnCancel
	// ReservedBudget reads a key and reserves numbers of its account's
	// rate budget in one PostgreSQL statement, and spends the reserved
	// numbers of later requests in memory (auth, leases.Leases).
	ReservedBudget
	// TrustedKeys take a read's key as this process last read it and check it
	// in the request's own statements: auth.Trust, the gate of the HTTP chain
	// (handlers/gate.go), and the check its first rows carry
	// (internal/platform/fastpath/trust). It spends the numbers
	// ReservedBudget reserves, so it needs it.
	TrustedKeys
	// BatchedLog writes the access log's lines in batches, one write per
	// batch (logbuf), each formatted by hand as slog's text handler would
	// (logline).
	BatchedLog
	// UntracedErrors keeps go-faster/errors from recording the caller's
	// frame of every error it makes (ApplyProcess): ogen's parameter
	// decoders make one for each optional query parameter a request leaves
	// out, and drop it, a stack walk each that nothing prints.
	UntracedErrors
	// PooledEncoders has the API's answers encoded in encoders taken from
	// a pool and handed back once written (internal/platform/fastpath/encoders, which
	// the go generate step internal/platform/fastpath/pooled has ogen's
	// code call), instead of a new encoder per answer whose buffer grows
	// by doubling. handlers.New sets it for the process.
	PooledEncoders

	last
)

// names are the mechanisms' names on the command line, in order.
var names = []string{
	"statement-cache",
	"compiled-reads",
	"own-cancel",
	"reserved-budget",
	"trusted-keys",
	"batched-log",
	"untraced-errors",
	"pooled-encoders",
}

// String is the mechanism's name on the command line.
func (m Mechanism) String() string {
	for i, n := range names {
		if m == 1<<i {
			return n
		}
	}
	return fmt.Sprintf("Mechanism(%d)", uint32(m))
}

// Mechanisms are every mechanism, in order.
func Mechanisms() []Mechanism {
	ms := make([]Mechanism, 0, len(names))
	for m := Mechanism(1); m < last; m <<= 1 {
		ms = append(ms, m)
	}
	return ms
}

// Set is which mechanisms are on. Its zero value has every one on: the fast
// path is the default.
type Set struct {
	off Mechanism
}

// All is every mechanism on; Plain is every one off.
var (
	All   = Set{}
	Plain = Set{off: last - 1}
)

// Has reports whether m is on.
func (s Set) Has(m Mechanism) bool { return s.off&m == 0 }

// Without is s with ms off.
func (s Set) Without(ms ...Mechanism) Set {
	for _, m := range ms {
		s.off |= m
	}
	return s.settle()
}

// settle turns off what needs a mechanism that is off.
func (s Set) settle() Set {
	if !s.Has(ReservedBudget) {
		s.off |= TrustedKeys
	}
	return s
}

// String is s as Parse reads it: "true", "false", or "true" followed by the
// mechanisms that are off, each with a minus ("true,-compiled-reads").
func (s Set) String() string {
	switch s {
	case All:
		return "true"
	case Plain:
		return "false"
	}
	parts := []string{"true"}
	for _, m := range Mechanisms() {
		if !s.Has(m) {
			parts = append(parts, "-"+m.String())
		}
	}
	return strings.Join(parts, ",")
}

// Parse reads a --fast-path value: "true" (every mechanism), "false"
// (none), or a comma-separated list of mechanisms' names, each on, or off
// with a leading minus; a list whose first name has a minus starts from
// every mechanism on, any other from none ("-trusted-keys" is every one but
// trusted-keys; "statement-cache,compiled-reads" is those two alone). Turning
// off reserved-budget turns off trusted-keys too, which spends what it
// reserves.
func Parse(v string) (Set, error) {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "true", "1", "on", "yes":
		return All, nil
	case "false", "0", "off", "no":
		return Plain, nil
	case "":
		return All, fmt.Errorf("fast path: empty value; use true, false or a list of %s", strings.Join(names, ", "))
	}
	parts := strings.Split(v, ",")
	s := Plain
	if first := strings.TrimSpace(parts[0]); strings.HasPrefix(first, "-") || strings.EqualFold(first, "true") {
		s = All
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if strings.EqualFold(p, "true") {
			continue
		}
		name, off := strings.CutPrefix(p, "-")
		i := slices.Index(names, strings.ToLower(name))
		if i < 0 {
			return All, fmt.Errorf("fast path: unknown mechanism %q; known: %s", name, strings.Join(names, ", "))
		}
		if off {
			s.off |= 1 << i
		} else {
			s.off &^= 1 << i
		}
	}
	return s.settle(), nil
}

// ApplyProcess sets what s's mechanisms change for the whole process, once,
// as a serving process starts: with UntracedErrors, go-faster/errors
// records no caller frames (its messages are unchanged; only %+v would
// have shown the frames). What it turns off stays off for the process.
func (s Set) ApplyProcess() {
	if s.Has(UntracedErrors) {
		goerrors.DisableTrace()
	}
}

// Env is the variable that sets the switch, as --fast-path does.
const Env = "LARDER_FAST_PATH"

// FromEnv is the switch as LARDER_FAST_PATH sets it: every mechanism on when
// it is unset.
func FromEnv() (Set, error) {
	v, ok := os.LookupEnv(Env)
	if !ok {
		return All, nil
	}
	return Parse(v)
}

package policy

import (
	"fmt"
	"slices"
	"strings"
)

// Scope is a permission an API key holds (spec Authentication 7).
type Scope string

// CostRead shows cost and price fields. It is standalone: nothing implies it.
const CostRead Scope = "cost:read"

// Modules are the API modules, each with a read and a write scope.
var Modules = []string{"catalog", "inventory", "manufacturing", "sales", "purchasing"}

// Read is the read scope of a module.
func Read(module string) Scope { return Scope(module + ":read") }

// Write is the write scope of a module.
func Write(module string) Scope { return Scope(module + ":write") }

// Scopes is a set of scopes.
type Scopes map[Scope]bool

// Has reports whether s is in the set.
func (ss Scopes) Has(s Scope) bool { return ss[s] }

// Effective adds what the granted scopes imply: a write scope implies the read
// scope of its own module, and nothing else (spec Authentication 8).
func Effective(granted []Scope) Scopes {
	out := Scopes{}
	for _, s := range granted {
		out[s] = true
		if module, ok := strings.CutSuffix(string(s), ":write"); ok {
			out[Read(module)] = true
		}
	}
	return out
}

// Known lists every scope a key can hold.
func Known() []Scope {
	var out []Scope
	for _, m := range Modules {
		out = append(out, Read(m), Write(m))
	}
	return append(out, CostRead)
}

// AllScopes is every scope, cost:read included.
func AllScopes() Scopes { return Effective(Known()) }

// allScopes is AllScopes made once for the system and app viewers, which
// share it: System runs for every outbox event and every system read, and
// building the set took about thirty allocations each time. Nothing writes
// a viewer's scopes; SeeingCost copies them before adding cost:read.
var allScopes = AllScopes()

// ParseScopes reads a comma-separated list of scopes or one of the presets
// `read-all` (every :read scope, not cost:read) and `all` (everything).
func ParseScopes(s string) ([]Scope, error) {
	var out []Scope
	add := func(x Scope) {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch part {
		case "":
			continue
		case "all":
			for _, x := range Known() {
				add(x)
			}
		case "read-all":
			for _, m := range Modules {
				add(Read(m))
			}
		default:
			if !slices.Contains(Known(), Scope(part)) {
				return nil, fmt.Errorf("unknown scope %q (known: %s, or the presets read-all and all)", part, joinScopes(Known()))
			}
			add(Scope(part))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scopes given")
	}
	slices.Sort(out)
	return out, nil
}

func joinScopes(ss []Scope) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

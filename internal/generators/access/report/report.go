// Package report is the access report's model and rendering, apart from the
// server it describes, so that `go generate` renders docs/ACCESS.md without
// compiling package ent. The report is assembled from two parts: Schema, what
// changes with ent/schema (the operations and their scopes, the entities and
// their privacy rules), and Server, what the server's own packages hold (the
// scopes' implications, the key and limit rules, the encrypted columns, the
// console). Package access builds both from the compiled server (access.Build);
// entc writes the schema part (internal/generators/access/data/schema.json, by codegen from the
// schema annotations) and internal/generators/access/server the server part
// (internal/generators/access/data/server.json), which internal/generators/access/gen renders.
package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Report is the whole answer.
type Report struct {
	Operations []Operation `json:"operations"`
	Scopes     []Scope     `json:"scopes"`
	Entities   []Entity    `json:"entities"`
	Rules      []Rule      `json:"rules"`
	CostFields []CostField `json:"cost_fields"`
	System     []Site      `json:"bypasses"`
	Keys       []string    `json:"keys_and_limits"`
	AtRest     []AtRest    `json:"encrypted_at_rest"`
	Console    []Page      `json:"console"`
}

// Page is one route of the console and the roles that may use it.
type Page struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Roles may use it; "anyone" for the pages without a session.
	Roles   []string `json:"roles"`
	Summary string   `json:"summary"`
}

// AtRest is a column stored encrypted when LARDER_SECRET_KEY is set, and in
// plain text without it.
type AtRest struct {
	Entity string `json:"entity"`
	Table  string `json:"table"`
	Column string `json:"column"`
	Holds  string `json:"holds"`
}

// Operation is one path and method of the API and the scope it needs.
type Operation struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	ID     string `json:"operation_id"`
	// Scope is the scope the operation needs; "" for none (any valid key,
	// or no key at all for the description).
	Scope string `json:"scope"`
	// GrantedBy are the scopes a key may hold to call it.
	GrantedBy []string `json:"granted_by"`
	// NoKey is true for the operations served without a key.
	NoKey bool `json:"no_key,omitempty"`
}

// Scope is one scope a key can hold, what it implies and what it grants.
type Scope struct {
	Scope      string   `json:"scope"`
	Implies    []string `json:"implies"`
	Operations []string `json:"operations"` // "METHOD /path"
}

// Entity is one schema: where the API serves it and its policy's rules.
type Entity struct {
	Name       string   `json:"name"`
	Table      string   `json:"table"`
	Path       string   `json:"path,omitempty"`
	Module     string   `json:"module,omitempty"`
	Ops        []string `json:"operations,omitempty"`
	Query      []string `json:"query_rules"`
	Mutation   []string `json:"mutation_rules"`
	Kind       string   `json:"kind"` // tenant, shared, system-only
	ReadOnly   bool     `json:"read_only_api"`
	LockedBy   []string `json:"locked_by,omitempty"`
	CostFields []string `json:"cost_fields,omitempty"`
}

// Rule names a privacy rule and says what it does.
type Rule struct {
	Name string `json:"name"`
	Does string `json:"does"`
}

// CostField is a field shown only to keys holding cost:read.
type CostField struct {
	Entity string `json:"entity"`
	Field  string `json:"field"`
	// ServedIn says where the API shows it: the resource, or the lines of
	// one.
	ServedIn  string `json:"served_in"`
	Redaction string `json:"redaction"`
}

// Site is a function that goes around the privacy policies.
type Site struct {
	// Kind is "system viewer" (it makes a system-viewer context) or
	// "direct SQL" (it runs SQL through database/sql).
	Kind     string `json:"kind"`
	File     string `json:"file"`
	Function string `json:"function"`
	Why      string `json:"why"`
}

// Schema is the part of the report that changes with ent/schema.
type Schema struct {
	Operations []SchemaOperation `json:"operations"`
	Entities   []SchemaEntity    `json:"entities"`
}

// SchemaOperation is an operation of the published API description with its
// row of the scope table.
type SchemaOperation struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	ID     string `json:"operation_id"`
	Scope  string `json:"scope"`
	// Unscoped is true when the scope table has no row for it.
	Unscoped bool `json:"unscoped,omitempty"`
}

// SchemaEntity is what the report reads of one schema: its annotations and
// its privacy policy's rules, in the order they run. A rule whose Does is
// empty is not a policy.Rule, and its Name is its Go type.
type SchemaEntity struct {
	Name     string   `json:"name"`
	Table    string   `json:"table"`
	Path     string   `json:"path,omitempty"`
	Module   string   `json:"module,omitempty"`
	Ops      []string `json:"operations,omitempty"`
	Costs    []string `json:"costs,omitempty"`
	Locks    []string `json:"locks,omitempty"`
	Policy   bool     `json:"policy"`
	Query    []Rule   `json:"query_rules"`
	Mutation []Rule   `json:"mutation_rules"`
}

// Server is the part of the report that the server's own packages hold; it
// does not change with ent/schema.
type Server struct {
	// Scopes are the scopes a key can hold (policy.Known), in order, each
	// with the scopes it grants (policy.Effective), itself included.
	Scopes []KnownScope `json:"scopes"`
	// NoKey are the operations served without an API key (by the server's
	// own mux, outside the scope table).
	NoKey   []string `json:"no_key"`
	Keys    []string `json:"keys_and_limits"`
	AtRest  []AtRest `json:"encrypted_at_rest"`
	Console []Page   `json:"console"`
}

// KnownScope is a scope and the scopes a key holding it has.
type KnownScope struct {
	Scope     string   `json:"scope"`
	Effective []string `json:"effective"`
}

// Operations lists the operations of an API description (doc, its JSON)
// with their rows of the scope table, which is keyed by the operation's
// name: its operationId with the first letter upper-cased.
func Operations(doc []byte, scopes map[string]string) ([]SchemaOperation, error) {
	var d struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("access: the API description: %w", err)
	}
	var out []SchemaOperation
	for path, methods := range d.Paths {
		for method, op := range methods {
			switch method {
			case "get", "post", "put", "patch", "delete":
			default:
				continue
			}
			scope, ok := scopes[strings.ToUpper(op.OperationID[:1])+op.OperationID[1:]]
			out = append(out, SchemaOperation{Method: strings.ToUpper(method), Path: "/v1" + path, ID: op.OperationID, Scope: scope, Unscoped: !ok})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return methodOrder(a.Method) < methodOrder(b.Method)
	})
	return out, nil
}

func methodOrder(m string) int { return strings.Index("GET POST PATCH PUT DELETE", m) }

// Assemble makes the report of the two parts and the system viewer's uses;
// an operation without a scope row, or a rule without a name, is an error
// (generation fails on it).
func Assemble(s Schema, srv Server, sites []Site) (*Report, error) {
	r := &Report{System: sites, Keys: srv.Keys, AtRest: srv.AtRest, Console: srv.Console}
	for _, so := range s.Operations {
		noKey := slices.Contains(srv.NoKey, so.ID)
		if so.Unscoped && !noKey {
			return nil, fmt.Errorf("access: operation %s (%s %s) has no row in the scope table", so.ID, so.Method, so.Path)
		}
		o := Operation{Method: so.Method, Path: so.Path, ID: so.ID, Scope: so.Scope, NoKey: noKey}
		if so.Scope == "" {
			o.GrantedBy = []string{"any"}
		} else {
			for _, k := range srv.Scopes {
				if slices.Contains(k.Effective, so.Scope) {
					o.GrantedBy = append(o.GrantedBy, k.Scope)
				}
			}
		}
		r.Operations = append(r.Operations, o)
	}
	for _, k := range srv.Scopes {
		sc := Scope{Scope: k.Scope, Implies: []string{}, Operations: []string{}}
		for _, x := range k.Effective {
			if x != k.Scope {
				sc.Implies = append(sc.Implies, x)
			}
		}
		slices.Sort(sc.Implies)
		for _, o := range r.Operations {
			if slices.Contains(o.GrantedBy, k.Scope) {
				sc.Operations = append(sc.Operations, o.Method+" "+o.Path)
			}
		}
		r.Scopes = append(r.Scopes, sc)
	}
	if err := r.entities(s.Entities); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Report) entities(es []SchemaEntity) error {
	rules := map[string]string{}
	names := func(schema string, rs []Rule) ([]string, error) {
		var out []string
		for _, rule := range rs {
			if rule.Does == "" {
				return nil, fmt.Errorf("access: schema %s: rule %s is not a policy.Rule, so the report cannot name it", schema, rule.Name)
			}
			rules[rule.Name] = rule.Does
			out = append(out, rule.Name)
		}
		return out, nil
	}
	for _, a := range es {
		e := Entity{Name: a.Name, Table: a.Table, Module: a.Module, LockedBy: a.Locks, CostFields: a.Costs}
		for _, o := range a.Ops {
			if !slices.Contains(e.Ops, o) {
				e.Ops = append(e.Ops, o)
			}
		}
		if a.Path != "" {
			e.Path = r.collection(a.Path)
			e.ReadOnly = !slices.ContainsFunc(e.Ops, func(o string) bool { return o != "list" && o != "read" })
		}
		if !a.Policy {
			return fmt.Errorf("access: schema %s has no privacy policy", a.Name)
		}
		var err error
		if e.Query, err = names(a.Name, a.Query); err != nil {
			return err
		}
		if e.Mutation, err = names(a.Name, a.Mutation); err != nil {
			return err
		}
		switch {
		case !slices.ContainsFunc(e.Query, func(n string) bool { return strings.HasPrefix(n, "tenant filter") }):
			e.Kind = "system-only"
		case slices.Contains(e.Query, "tenant filter + shared rows"):
			e.Kind = "shared"
		default:
			e.Kind = "tenant"
		}
		r.Entities = append(r.Entities, e)
		for _, f := range a.Costs {
			r.CostFields = append(r.CostFields, CostField{Entity: a.Name, Field: f, ServedIn: r.servedIn(a, es), Redaction: redaction})
		}
	}
	for name, does := range rules {
		r.Rules = append(r.Rules, Rule{Name: name, Does: does})
	}
	sort.Slice(r.Rules, func(i, j int) bool { return r.Rules[i].Name < r.Rules[j].Name })
	return nil
}

// collection is the served path of a resource's collection: /v1/<path>, or
// nested under its parent's item (/v1/sales-orders/{sales_order_id}/shipments).
func (r *Report) collection(path string) string {
	for _, o := range r.Operations {
		if strings.HasSuffix(o.Path, "/"+path) {
			return o.Path
		}
	}
	return "/v1/" + path
}

// redaction is how every cost field is withheld.
const redaction = "null in single, list and write responses unless the key holds cost:read " +
	"(ent.RedactCost, generated, applied to every result before it is converted); never in webhook snapshots"

// servedIn says where the API shows an entity's fields: at its own path, or
// inside the documents whose lines it is.
func (r *Report) servedIn(a SchemaEntity, es []SchemaEntity) string {
	if a.Path != "" {
		return r.collection(a.Path)
	}
	for _, o := range es {
		if o.Path != "" && strings.TrimSuffix(a.Name, "Line") == o.Name {
			return "lines of " + r.collection(o.Path)
		}
	}
	return "not served"
}

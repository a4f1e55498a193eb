// Package access answers a security reviewer's questions — who can read or
// change what? — from what the server runs, never from a restatement: the
// operations and their scopes from the served API description and the
// generated scope table, each schema's privacy rules from the policies
// ent/runtime wires (policy.Rule names them), the cost fields and read-only
// rows from the schema annotations (ent.Access), the uses of the system
// viewer found in the source (sites_gen.go, written by `go generate`), and
// the columns encrypted at rest from the package that encrypts them.
//
// docs/ACCESS.md is this report rendered by `go generate ./...`;
// `larder access-report [--json]` prints it from the running binary.
package access

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	entprivacy "entgo.io/ent/privacy"

	"larder.dev/larder/apidocs"
	"larder.dev/larder/auth"
	"larder.dev/larder/config"
	"larder.dev/larder/console"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/privacy"
	_ "larder.dev/larder/ent/runtime" // the policies the report reads
	"larder.dev/larder/handlers"
	"larder.dev/larder/metrics"
	"larder.dev/larder/openapi"
	"larder.dev/larder/people"
	"larder.dev/larder/policy"
	"larder.dev/larder/restapi"
	"larder.dev/larder/webhooks"
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

// Build assembles the report; an operation without a scope row, or a rule
// without a name, is an error (generation fails on it).
func Build() (*Report, error) {
	r := &Report{System: Sites}
	if err := r.operations(); err != nil {
		return nil, err
	}
	r.scopes()
	if err := r.entities(); err != nil {
		return nil, err
	}
	r.Keys = keys()
	for _, c := range append(slices.Clone(webhooks.Encrypted), people.Encrypted...) {
		r.AtRest = append(r.AtRest, AtRest(c))
	}
	for _, rt := range console.Routes() {
		pg := Page{Method: rt.Method, Path: strings.TrimSuffix(rt.Path, "{$}"), Summary: rt.Summary}
		switch {
		case rt.Public:
			pg.Roles = []string{"anyone"}
		default:
			for _, role := range people.Roles {
				if rt.Allows(role) {
					pg.Roles = append(pg.Roles, string(role))
				}
			}
		}
		r.Console = append(r.Console, pg)
	}
	return r, nil
}

// noKey are the operations served without an API key (by the server's own
// mux, outside the scope table).
var noKey = map[string]bool{"getOpenAPI": true}

func (r *Report) operations() error {
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		return fmt.Errorf("access: the API description: %w", err)
	}
	for path, methods := range doc.Paths {
		for method, op := range methods {
			switch method {
			case "get", "post", "put", "patch", "delete":
			default:
				continue
			}
			scope, ok := restapi.Scopes[strings.ToUpper(op.OperationID[:1])+op.OperationID[1:]]
			if !ok && !noKey[op.OperationID] {
				return fmt.Errorf("access: operation %s (%s %s) has no row in the scope table", op.OperationID, strings.ToUpper(method), path)
			}
			o := Operation{Method: strings.ToUpper(method), Path: "/v1" + path, ID: op.OperationID, Scope: scope, NoKey: noKey[op.OperationID]}
			for _, s := range policy.Known() {
				if scope == "" || policy.Effective([]policy.Scope{s}).Has(policy.Scope(scope)) {
					o.GrantedBy = append(o.GrantedBy, string(s))
				}
			}
			if scope == "" {
				o.GrantedBy = []string{"any"}
			}
			r.Operations = append(r.Operations, o)
		}
	}
	sort.Slice(r.Operations, func(i, j int) bool {
		a, b := r.Operations[i], r.Operations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return methodOrder(a.Method) < methodOrder(b.Method)
	})
	return nil
}

func methodOrder(m string) int { return strings.Index("GET POST PATCH PUT DELETE", m) }

func (r *Report) scopes() {
	for _, s := range policy.Known() {
		sc := Scope{Scope: string(s), Implies: []string{}, Operations: []string{}}
		for x := range policy.Effective([]policy.Scope{s}) {
			if x != s {
				sc.Implies = append(sc.Implies, string(x))
			}
		}
		slices.Sort(sc.Implies)
		for _, o := range r.Operations {
			if slices.Contains(o.GrantedBy, string(s)) {
				sc.Operations = append(sc.Operations, o.Method+" "+o.Path)
			}
		}
		r.Scopes = append(r.Scopes, sc)
	}
}

func (r *Report) entities() error {
	rules := map[string]string{}
	for _, a := range ent.Access {
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
		if a.Policy == nil {
			return fmt.Errorf("access: schema %s has no privacy policy", a.Name)
		}
		for _, p := range policies(a.Policy()) {
			pol, ok := p.(privacy.Policy)
			if !ok {
				return fmt.Errorf("access: schema %s: policy %T is not a privacy.Policy", a.Name, p)
			}
			for _, q := range pol.Query {
				name, err := ruleName(a.Name, q, rules)
				if err != nil {
					return err
				}
				e.Query = append(e.Query, name)
			}
			for _, m := range pol.Mutation {
				name, err := ruleName(a.Name, m, rules)
				if err != nil {
					return err
				}
				e.Mutation = append(e.Mutation, name)
			}
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
			r.CostFields = append(r.CostFields, CostField{Entity: a.Name, Field: f, ServedIn: servedIn(a, r), Redaction: redaction})
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
func servedIn(a ent.SchemaAccess, r *Report) string {
	if a.Path != "" {
		return r.collection(a.Path)
	}
	for _, o := range ent.Access {
		if o.Path != "" && strings.TrimSuffix(a.Name, "Line") == o.Name {
			return "lines of " + r.collection(o.Path)
		}
	}
	return "not served"
}

func policies(p ent.Policy) []ent.Policy {
	if ps, ok := p.(entprivacy.Policies); ok {
		return ps
	}
	return []ent.Policy{p}
}

func ruleName(schema string, rule any, seen map[string]string) (string, error) {
	name, does, ok := policy.Describe(rule)
	if !ok {
		return "", fmt.Errorf("access: schema %s: rule %s is not a policy.Rule, so the report cannot name it", schema, name)
	}
	seen[name] = does
	return name, nil
}

// keys states the key and limit rules, with the values and names the code
// holds (the server's defaults, auth's constants).
func keys() []string {
	d := config.Defaults()
	graces := make([]string, len(auth.Graces))
	for i, g := range auth.Graces {
		graces[i] = g.Name
	}
	return []string{
		"Keys are stored as their SHA-256 hash only (auth.Hash); the secret is shown once, at creation or rotation, and never again (listings show the prefix and last four characters).",
		fmt.Sprintf("A key is `Authorization: Bearer %s…` or `%s…`; no other mechanism exists. It reaches one account: the live or the test account of its organization.",
			auth.Prefix(policy.Live), auth.Prefix(policy.Test)),
		"Scopes: a write scope implies its own module's read scope and nothing else; cost:read is standalone (nothing implies it, it implies nothing).",
		fmt.Sprintf("Rate limit: %d requests per minute per account by default (--rate-limit), live and test counted apart, shared by every server on the database; 429 with Retry-After beyond it.", d.RateLimit),
		fmt.Sprintf("Failed authentication: %d invalid keys per minute per client address by default (--auth-fail-limit) before 429.", d.AuthFailLimit),
		fmt.Sprintf("Rotation (`larder key rotate --grace %s`): a new key with the same name and scopes; the old key works until the grace ends (none: not at all).", strings.Join(graces, "|")),
		"Revocation (`larder key revoke`) and plan changes take effect on the very next request of every server process.",
		"On PostgreSQL a GET with a key its server process has read before is read as that key allows, and its key checked in the same statement as the answer's first rows (or read after an answer without rows); the answer is sent only if the key still reads exactly as it did, and is otherwise thrown away and the request authenticated again (auth.Authenticator.Trust and Confirm; the check in the answer's statement is auth.Check.Holds, SQL that reads the key, its account and organization by the key's hash).",
		fmt.Sprintf("At most %d active keys per organization and environment (auth.MaxActiveKeys).", auth.MaxActiveKeys),
		fmt.Sprintf("Outside the API, without a key and outside the rate limits, serving no account data: GET %s and %s (health), %s and its assets (the docs page), and GET / and /v1, which redirect to %s.",
			handlers.LivePath, handlers.ReadyPath, apidocs.Path, apidocs.Path),
		fmt.Sprintf("Prometheus metrics (GET %s: traffic and backlog counts across every account, no account data) are served on their own address, %s unless --metrics-addr moves it (off: nowhere), never on the API's address unless --metrics-token is set; then only to requests bearing that token (Authorization: Bearer TOKEN), compared in constant time.",
			metrics.Path, config.DefaultMetricsAddr),
	}
}

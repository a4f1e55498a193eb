// Package access answers a security reviewer's questions — who can read or
// change what? — from what the server runs, never from a restatement: the
// operations and their scopes from the served API description and the
// generated scope table, each schema's privacy rules from the policies
// ent/runtime wires (policy.Rule names them), the cost fields and read-only
// rows from the schema annotations (ent.Access), the uses of the system
// viewer found in the source (sites_gen.go, written by `go generate`), and
// the columns encrypted at rest from the package that encrypts them.
//
// docs/ACCESS.md is this report rendered by `go generate ./...` from the
// same two parts written as data (package report says how);
// `larder access-report [--json]` prints it from the running binary, and its
// test fails when the two differ.
package access

import (
	"fmt"
	"slices"
	"strings"

	"larder.dev/larder/console"
	"larder.dev/larder/ent"
	_ "larder.dev/larder/ent/runtime" // the policies the report reads
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/generators/access/report"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/apidocs"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/metrics"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/openapi"
	"larder.dev/larder/policy"
)

// The report's types are package report's.
type (
	Report    = report.Report
	Page      = report.Page
	AtRest    = report.AtRest
	Operation = report.Operation
	Scope     = report.Scope
	Entity    = report.Entity
	Rule      = report.Rule
	CostField = report.CostField
	Site      = report.Site
)

// FindSites lists the functions that go around the privacy policies
// (report.FindSites).
func FindSites(root string) ([]Site, error) { return report.FindSites(root) }

// Build assembles the report from the compiled server; an operation without
// a scope row, or a rule without a name, is an error.
func Build() (*Report, error) {
	s, err := SchemaPart()
	if err != nil {
		return nil, err
	}
	return report.Assemble(*s, ServerPart(), Sites)
}

// SchemaPart is the part of the report that changes with ent/schema, from
// the served API description, the generated scope table, ent.Access and the
// policies ent/runtime wires.
func SchemaPart() (*report.Schema, error) {
	ops, err := report.Operations(openapi.Document, restapi.Scopes)
	if err != nil {
		return nil, err
	}
	s := &report.Schema{Operations: ops}
	for _, a := range ent.Access {
		e := report.SchemaEntity{Name: a.Name, Table: a.Table, Path: a.Path, Module: a.Module, Ops: a.Ops, Costs: a.Costs, Locks: a.Locks}
		if a.Policy != nil {
			d := policy.DescribePolicy(a.Policy())
			e.Policy = true
			for _, n := range d.Query {
				e.Query = append(e.Query, report.Rule(n))
			}
			for _, n := range d.Mutation {
				e.Mutation = append(e.Mutation, report.Rule(n))
			}
		}
		s.Entities = append(s.Entities, e)
	}
	return s, nil
}

// noKey are the operations served without an API key (by the server's own
// mux, outside the scope table).
var noKey = []string{"getOpenAPI"}

// ServerPart is the part of the report that the server's packages hold and
// that does not change with ent/schema.
func ServerPart() report.Server {
	srv := report.Server{NoKey: noKey, Keys: keys()}
	for _, s := range policy.Known() {
		k := report.KnownScope{Scope: string(s)}
		for x := range policy.Effective([]policy.Scope{s}) {
			k.Effective = append(k.Effective, string(x))
		}
		slices.Sort(k.Effective)
		srv.Scopes = append(srv.Scopes, k)
	}
	for _, c := range append(slices.Clone(webhooks.Encrypted), people.Encrypted...) {
		srv.AtRest = append(srv.AtRest, AtRest(c))
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
		srv.Console = append(srv.Console, pg)
	}
	return srv
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

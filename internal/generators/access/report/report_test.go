package report

import (
	"slices"
	"strings"
	"testing"
)

func parts() (Schema, Server) {
	s := Schema{
		Operations: []SchemaOperation{
			{Method: "GET", Path: "/v1/products", ID: "listProducts", Scope: "catalog:read"},
			{Method: "POST", Path: "/v1/products", ID: "createProduct", Scope: "catalog:write"},
			{Method: "GET", Path: "/v1/openapi.json", ID: "getOpenAPI", Unscoped: true},
		},
		Entities: []SchemaEntity{
			{Name: "Product", Table: "products", Path: "products", Module: "catalog", Ops: []string{"list", "create", "list"}, Costs: []string{"cost"}, Policy: true,
				Query:    []Rule{{Name: "system allow", Does: "The system viewer passes."}, {Name: "tenant filter", Does: "Own rows."}},
				Mutation: []Rule{{Name: "system allow", Does: "The system viewer passes."}}},
			{Name: "Account", Table: "accounts", Policy: true, Query: []Rule{{Name: "system allow", Does: "The system viewer passes."}}},
		},
	}
	srv := Server{
		Scopes: []KnownScope{{Scope: "catalog:read", Effective: []string{"catalog:read"}}, {Scope: "catalog:write", Effective: []string{"catalog:read", "catalog:write"}}},
		NoKey:  []string{"getOpenAPI"},
	}
	return s, srv
}

// The report joins the schema part's operations to the server part's scopes:
// who may call what, what a scope implies, and what each entity is.
func TestAssembleJoinsTheParts(t *testing.T) {
	s, srv := parts()
	r, err := Assemble(s, srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	granted := map[string][]string{}
	for _, o := range r.Operations {
		granted[o.ID] = o.GrantedBy
	}
	if g := granted["listProducts"]; !slices.Equal(g, []string{"catalog:read", "catalog:write"}) {
		t.Errorf("listProducts granted by %v", g)
	}
	if g := granted["createProduct"]; !slices.Equal(g, []string{"catalog:write"}) {
		t.Errorf("createProduct granted by %v", g)
	}
	if !r.Operations[2].NoKey || !slices.Equal(r.Operations[2].GrantedBy, []string{"any"}) {
		t.Errorf("the description: %+v", r.Operations[2])
	}
	if w := r.Scopes[1]; !slices.Equal(w.Implies, []string{"catalog:read"}) || len(w.Operations) != 2 {
		t.Errorf("catalog:write: %+v", w)
	}
	p, a := r.Entities[0], r.Entities[1]
	if p.Kind != "tenant" || p.Path != "/v1/products" || p.ReadOnly || !slices.Equal(p.Ops, []string{"list", "create"}) {
		t.Errorf("Product: %+v", p)
	}
	if a.Kind != "system-only" {
		t.Errorf("Account: %+v", a)
	}
	if len(r.Rules) != 2 || r.Rules[0].Name != "system allow" || len(r.CostFields) != 1 || r.CostFields[0].ServedIn != "/v1/products" {
		t.Errorf("rules %+v, cost fields %+v", r.Rules, r.CostFields)
	}
}

// An operation outside the scope table, unless served without a key, and a
// rule without its sentence fail the report.
func TestAssembleRefuses(t *testing.T) {
	s, srv := parts()
	srv.NoKey = nil
	if _, err := Assemble(s, srv, nil); err == nil || !strings.Contains(err.Error(), "getOpenAPI") {
		t.Errorf("unscoped operation: %v", err)
	}
	s, srv = parts()
	s.Entities[1].Query = append(s.Entities[1].Query, Rule{Name: "privacy.QueryRuleFunc"})
	if _, err := Assemble(s, srv, nil); err == nil || !strings.Contains(err.Error(), "privacy.QueryRuleFunc") {
		t.Errorf("unnamed rule: %v", err)
	}
	s, srv = parts()
	s.Entities[1].Policy = false
	if _, err := Assemble(s, srv, nil); err == nil {
		t.Error("a schema without a policy was accepted")
	}
}

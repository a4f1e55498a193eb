// The suppliers pages' routes, filter choices and links; suppliers_views.go
// holds what they show, suppliers_handlers.go answers them.

package console

import (
	"net/url"
	"strconv"
	"time"

	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/policy"
)

// supplierRoutes are the suppliers of an environment, those whose approval
// or certification ends soon, and a supplier's page with the operators'
// approval and certification decisions.
func (s *Server) supplierRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/suppliers", Nav: "Suppliers", Summary: "read the suppliers of one environment (live or test), found by part of the company or code and by approval status, sorted as the API sorts them, and the approvals and certifications that end in the next 30 days, soonest first; changes nothing", serve: s.suppliers},
		{Method: "GET", Path: "/console/suppliers/{id}", Summary: "read one of the organization's suppliers: its approval status and expiry, its certification scheme and expiry; changes nothing", serve: s.supplier},
		{Method: "POST", Path: "/console/suppliers/{id}/approval", Roles: Operators, Summary: "approve a supplier (with an optional expiry), suspend it, reject it or reset it to PENDING, as the `larder supplier` commands approve, suspend, reject and reset do; records supplier_approval_changed and emits supplier.approval_changed naming the person", serve: s.supplierApproval},
		{Method: "POST", Path: "/console/suppliers/{id}/certification", Roles: Operators, Summary: "record a supplier's certification scheme and its expiry, as `larder supplier certify` does; records supplier_certification_changed and emits supplier.updated naming the person", serve: s.supplierCertification},
	}
}

// suppliersPage is the suppliers a page shows.
const suppliersPage = 50

// expiringWindow is how far ahead the list looks for approvals and
// certifications that end.
const expiringWindow = 30 * 24 * time.Hour

// approvalStatuses are the status filter's choices.
var approvalStatuses = []choice{
	{"", "Any status"},
	{string(supplier.ApprovalStatusAPPROVED), "Approved"},
	{string(supplier.ApprovalStatusPENDING), "Pending"},
	{string(supplier.ApprovalStatusSUSPENDED), "Suspended"},
	{string(supplier.ApprovalStatusREJECTED), "Rejected"},
}

// supplierSorts are the sort field's choices: the API's sort values.
var supplierSorts = []choice{
	{"company:asc", "Company, A to Z"},
	{"company:desc", "Company, Z to A"},
	{"supplier_code:asc", "Code, A to Z"},
	{"supplier_code:desc", "Code, Z to A"},
	{"created_at:desc", "Newest first"},
	{"created_at:asc", "Oldest first"},
	{"updated_at:desc", "Recently changed first"},
	{"id:asc", "Id"},
}

// certificationSchemes are the certification form's choices.
var certificationSchemes = []choice{
	{"", "Not recorded"},
	{"SQF", "SQF"}, {"BRC", "BRC"}, {"GFSI", "GFSI"}, {"SSC22000", "FSSC 22000 (SSC22000)"}, {"IFS", "IFS"},
	{"GLOBALGAP", "GLOBALG.A.P. (GLOBALGAP)"}, {"PRIMUS", "PrimusGFS (PRIMUS)"}, {"GFSCANADA", "CanadaGAP / GFS Canada (GFSCANADA)"},
	{"GAP", "GAP"}, {"OTHER", "Other"}, {"NONE", "None held"},
}

// supplierFilters are the list's fields, in the order its links carry them.
var supplierFilters = []string{"search", "status", "sort"}

// documentPath is the page of the invoice or bill id in env (kind
// "invoices" or "bills").
func documentPath(kind string, id int, env string) string {
	return Prefix + kind + "/" + strconv.Itoa(id) + "?" + url.Values{"env": {env}}.Encode()
}

// supplierPath is the page of supplier id in env.
func supplierPath(id int, env string) string {
	return Prefix + "suppliers/" + strconv.Itoa(id) + "?" + url.Values{"env": {env}}.Encode()
}

// suppliersLink is the list with f's filters from offset.
func suppliersLink(env string, f *form, offset int) string {
	u := url.Values{"env": {env}}
	for _, k := range supplierFilters {
		if x := f.Get(k); x != "" {
			u.Set(k, x)
		}
	}
	if offset > 0 {
		u.Set("offset", strconv.Itoa(offset))
	}
	return Prefix + "suppliers?" + u.Encode()
}

// pageEnv reads the env field: live (the default) or test; ok false for
// anything else.
func pageEnv(v string) (string, bool) {
	switch v {
	case "", string(policy.Live):
		return string(policy.Live), true
	case string(policy.Test):
		return v, true
	}
	return string(policy.Live), false
}

// The suppliers pages' handlers: the filtered list, one supplier, and its
// approval and certification decisions.

package console

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/modules/purchasing"
	apiproblem "larder.dev/larder/internal/platform/problem"
)

func (s *Server) suppliers(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	env, ok := pageEnv(f.Get("env"))
	if !ok {
		f.Fail("", "Choose the live or the test environment.")
	}
	v := suppliersView{Env: env, Statuses: approvalStatuses, Sorts: supplierSorts}
	filter := purchasing.SupplierFilter{Search: f.Get("search"), Status: supplier.ApprovalStatus(f.Get("status")), Limit: suppliersPage + 1}
	if len(filter.Search) > 100 {
		f.Fail("search", "Enter at most 100 characters of the company or code.")
	}
	if filter.Status != "" && supplier.ApprovalStatusValidator(filter.Status) != nil {
		f.Fail("status", "Choose a status from the list.")
	}
	if x := f.Get("sort"); x != "" {
		known := false
		for _, o := range supplierSorts {
			known = known || o.Value == x
		}
		field, dir, _ := strings.Cut(x, ":")
		if !known {
			f.Fail("sort", "Choose an order from the list.")
		}
		filter.Sort, filter.Desc = field, dir == "desc"
	}
	if x := f.Get("offset"); x != "" {
		n, err := strconv.Atoi(x)
		if err != nil || n < 0 || n > 10000 {
			f.Fail("", "This page's link is damaged; start again from the first suppliers.")
		}
		filter.Offset = n
	}
	v.Filtered = filter.Search != "" || filter.Status != ""
	v.First = suppliersLink(env, f, 0)
	if !f.OK() {
		suppliersTemplate.render(s, w, r, c, http.StatusBadRequest, "Suppliers", f, v)
		return
	}
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	now := s.o.Now()
	rows, err := purchasing.ListSuppliers(ctx, s.o.Client, filter, now)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if len(rows) > suppliersPage {
		rows = rows[:suppliersPage]
		v.Next = suppliersLink(env, f, filter.Offset+suppliersPage)
	}
	if filter.Offset > 0 {
		v.Prev = suppliersLink(env, f, max(0, filter.Offset-suppliersPage))
	}
	v.From, v.To = filter.Offset+1, filter.Offset+len(rows)
	for _, x := range rows {
		v.Rows = append(v.Rows, supplierRow{Supplier: x, Link: supplierPath(x.ID, env), Standing: approvalLine(x), CertExpired: certExpired(x, now)})
	}
	exp, err := purchasing.ExpiringSuppliers(ctx, s.o.Client, now, expiringWindow)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	for _, e := range exp {
		row := expiringRow{Expiry: e, Link: supplierPath(e.Supplier.ID, env), What: "Approval",
			Days: int(e.Ends.Sub(now.UTC().Truncate(24*time.Hour)).Hours() / 24)}
		if e.Certification {
			row.What = "Certification " + string(*e.Supplier.CertificationScheme)
		}
		v.Expiring = append(v.Expiring, row)
	}
	suppliersTemplate.render(s, w, r, c, http.StatusOK, "Suppliers", f, v)
}

// supplierRequest reads a supplier route's id and environment (the query's
// env on a page, the form's on an action); ok false: 404.
func supplierRequest(r *http.Request, envValue string) (id int, env string, ok bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	env, envOK := pageEnv(strings.TrimSpace(envValue))
	return id, env, err == nil && id > 0 && envOK
}

func (s *Server) supplier(w http.ResponseWriter, r *http.Request, c *caller) {
	id, env, ok := supplierRequest(r, r.URL.Query().Get("env"))
	if !ok {
		s.notFound(w, r)
		return
	}
	s.showSupplier(w, r, c, http.StatusOK, id, env, nil, nil)
}

// showSupplier renders supplier id's page with status, the approval and
// certification forms as sent (nil: as the supplier stands).
func (s *Server) showSupplier(w http.ResponseWriter, r *http.Request, c *caller, status, id int, env string, approval, certification *form) {
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	sup, err := s.o.Client.Supplier.Get(ctx, id)
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if approval == nil {
		approval = newForm(nil)
	}
	if certification == nil {
		certification = newForm(url.Values{})
		if sup.CertificationScheme != nil {
			certification.values.Set("scheme", string(*sup.CertificationScheme))
		}
		if d := sup.CertificationExpiresOn; d != nil {
			certification.values.Set("expires_on", d.UTC().Format(time.DateOnly))
		}
	}
	v := supplierView{Env: env, Supplier: sup, Standing: approvalLine(sup), CertExpired: certExpired(sup, s.o.Now()), Back: Prefix + "suppliers?" + url.Values{"env": {env}}.Encode(),
		Act: Route{Roles: Operators}.Allows(c.Me.Person.Role), Schemes: certificationSchemes, Approval: approval, Certification: certification}
	title := "Supplier " + orDash(sup.SupplierCode)
	if sup.Company != nil {
		title += " · " + *sup.Company
	}
	supplierTemplate.render(s, w, r, c, status, title, nil, v)
}

// approvalNames are the approval form's decisions: the CLI's command names.
var approvalNames = forms.ApprovalNames

func (s *Server) supplierApproval(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	id, env, ok := supplierRequest(r, f.Get("env"))
	if !ok {
		s.notFound(w, r)
		return
	}
	a, errs := forms.ParseApproval(f.values, s.o.Now())
	f.add(errs)
	if !f.OK() {
		s.showSupplier(w, r, c, http.StatusBadRequest, id, env, f, nil)
		return
	}
	err := s.act(c, env, func(ctx context.Context, tx *ent.Tx) (audit.Entry, error) {
		before, err := tx.Supplier.Get(ctx, id)
		if err != nil {
			return audit.Entry{}, err
		}
		after, err := purchasing.SetApproval(ctx, tx, id, a)
		if err != nil {
			return audit.Entry{}, err
		}
		return audit.Entry{Action: audit.SupplierApprovalChanged, Detail: map[string]any{
			"supplier_id": after.ID, "supplier_code": orNil(after.SupplierCode),
			"from": string(before.ApprovalStatus), "to": string(after.ApprovalStatus),
			"approval_expiry": timeOrNil(after.ApprovalExpiry, time.RFC3339),
		}}, nil
	})
	s.supplierAnswer(w, r, c, err, id, env, f, nil, "The supplier is "+approvalNames[a.Status]+".")
}

func (s *Server) supplierCertification(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	id, env, ok := supplierRequest(r, f.Get("env"))
	if !ok {
		s.notFound(w, r)
		return
	}
	cert, errs := forms.ParseCertification(f.values)
	f.add(errs)
	if !f.OK() {
		s.showSupplier(w, r, c, http.StatusBadRequest, id, env, nil, f)
		return
	}
	err := s.act(c, env, func(ctx context.Context, tx *ent.Tx) (audit.Entry, error) {
		before, err := tx.Supplier.Get(ctx, id)
		if err != nil {
			return audit.Entry{}, err
		}
		after, err := purchasing.SetCertification(ctx, tx, id, cert)
		if err != nil {
			return audit.Entry{}, err
		}
		return audit.Entry{Action: audit.SupplierCertificationChanged, Detail: map[string]any{
			"supplier_id": after.ID, "supplier_code": orNil(after.SupplierCode),
			"from": schemeOrNil(before.CertificationScheme), "to": schemeOrNil(after.CertificationScheme),
			"from_expires_on": timeOrNil(before.CertificationExpiresOn, time.DateOnly),
			"expires_on":      timeOrNil(after.CertificationExpiresOn, time.DateOnly),
		}}, nil
	})
	s.supplierAnswer(w, r, c, err, id, env, nil, f, "The supplier's certification is recorded.")
}

// supplierAnswer answers a decision on supplier id: the supplier's page
// again with the refusal beside the form that made it (approval or
// certification), 404 for a supplier of no account of the person's, or
// back to the page with done.
func (s *Server) supplierAnswer(w http.ResponseWriter, r *http.Request, c *caller, err error, id int, env string, approval, certification *form, done string) {
	f := approval
	if f == nil {
		f = certification
	}
	switch {
	case refused(err, f):
		s.showSupplier(w, r, c, statusOf(err), id, env, approval, certification)
	case ent.IsNotFound(err):
		s.notFound(w, r)
	case err != nil:
		s.fail(w, r, c, err)
	default:
		s.redirect(w, r, c, supplierPath(id, env), done)
	}
}

// refused reports whether err is a refusal of the workflow (a problem with
// a 4xx status), putting its message beside its field of f, or as the
// form's error.
func refused(err error, f *form) bool {
	p, ok := apiproblem.As(err)
	if !ok || p.Status() >= 500 {
		return false
	}
	if len(p.Fields) == 0 {
		f.Fail("", p.Detail)
	}
	for _, x := range p.Fields {
		name := map[string]string{"approval_expiry": "expires", "certification_scheme": "scheme", "certification_expires_on": "expires_on"}[x.Field]
		msg := x.Message
		if x.Field != "" && !strings.HasPrefix(msg, "The ") {
			msg = x.Field + " " + msg
		}
		f.Fail(name, msg)
	}
	return true
}

// statusOf is the HTTP status of a refusal.
func statusOf(err error) int {
	if p, ok := apiproblem.As(err); ok {
		return p.Status()
	}
	return http.StatusInternalServerError
}

// timeOrNil is t in layout (UTC), nil for none.
func timeOrNil(t *time.Time, layout string) any {
	if t == nil {
		return nil
	}
	return t.UTC().Format(layout)
}

// schemeOrNil is a certification scheme, nil for not recorded.
func schemeOrNil(s *supplier.CertificationScheme) any {
	if s == nil {
		return nil
	}
	return string(*s)
}

// orNil is *s, nil for none.
func orNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

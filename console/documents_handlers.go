// The invoices' and bills' handlers: the filtered list, one document, and
// cancelling it.

package console

import (
	"context"

	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/audit"
	apiproblem "larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
)

// envOf reads the env of a query: live when absent, ok false when neither.
func envOf(f *form) (string, bool) {
	switch env := f.Get("env"); env {
	case "", string(policy.Live):
		return string(policy.Live), true
	case string(policy.Test):
		return env, true
	}
	return string(policy.Live), false
}

// dateField reads a date field (YYYY-MM-DD) into f's errors.
func dateField(f *form, name string) *time.Time {
	x := f.Get(name)
	if x == "" {
		return nil
	}
	t, err := time.Parse(time.DateOnly, x)
	if err != nil {
		f.Fail(name, "Enter a date as YYYY-MM-DD, such as 2026-11-06.")
		return nil
	}
	return &t
}

func (s *Server) documents(k *docKind) func(http.ResponseWriter, *http.Request, *caller) {
	title := "Invoices"
	if k == bills {
		title = "Bills"
	}
	return func(w http.ResponseWriter, r *http.Request, c *caller) {
		f := newForm(r.URL.Query())
		v := docsView{Kind: k, States: docStates, Sorts: docSorts}
		var ok bool
		if v.Env, ok = envOf(f); !ok {
			f.Fail("", "Choose the live or the test environment.")
		}
		filter := docFilter{Party: f.Get("party"), Limit: docsPage + 1}
		if len(filter.Party) > 200 {
			f.Fail("party", fmt.Sprintf("Enter at most 200 characters of the %s's name.", k.Party))
		}
		if x := f.Get("number"); x != "" {
			n, err := strconv.Atoi(x)
			if err != nil || n <= 0 {
				f.Fail("number", fmt.Sprintf("Enter the %s's number, a whole number such as 1001.", k.One))
			}
			filter.Number = n
		}
		filter.From, filter.To = dateField(f, "from"), dateField(f, "to")
		if filter.From != nil && filter.To != nil && filter.To.Before(*filter.From) {
			f.Fail("to", "The last day comes on or after the first.")
		}
		switch f.Get("state") {
		case "":
		case "open":
			filter.Cancelled = new(bool)
		case "cancelled":
			yes := true
			filter.Cancelled = &yes
		default:
			f.Fail("state", "Choose all, not cancelled or cancelled.")
		}
		switch f.Get("sort") {
		case "":
		case "oldest":
			filter.Oldest = true
		default:
			f.Fail("sort", "Choose newest or oldest first.")
		}
		page := 1
		if x := f.Get("page"); x != "" {
			n, err := strconv.Atoi(x)
			if err != nil || n < 1 || n > 100000 {
				f.Fail("", "This page's link is damaged; start again from the first page.")
			} else {
				page = n
			}
		}
		filter.Offset = (page - 1) * docsPage
		v.Filtered = filter.Party != "" || filter.Number != 0 || filter.From != nil || filter.To != nil || filter.Cancelled != nil
		v.Paged = page > 1
		v.First = k.link(v.Env, f, 1)
		if !f.OK() {
			documentsTemplate.render(s, w, r, c, http.StatusBadRequest, title, f, v)
			return
		}
		ctx, err := s.reading(c, v.Env)
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		rows, err := k.list(ctx, s.o.Client, filter)
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		if len(rows) > docsPage {
			rows = rows[:docsPage]
			v.Next = k.link(v.Env, f, page+1)
		}
		if page > 1 {
			v.Prev = k.link(v.Env, f, page-1)
		}
		for i := range rows {
			rows[i].Link = k.path(rows[i].ID, v.Env, "")
		}
		v.Rows, v.Costs = rows, policy.SeesCost(ctx)
		documentsTemplate.render(s, w, r, c, http.StatusOK, title, f, v)
	}
}

// docRequest reads a document's path and env, loads it and answers 404
// when either is not one of the organization's.
func (s *Server) docRequest(w http.ResponseWriter, r *http.Request, c *caller, k *docKind) (*docPageView, bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	env, ok := envOf(newForm(r.URL.Query()))
	if err != nil || id <= 0 || !ok {
		s.notFound(w, r)
		return nil, false
	}
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return nil, false
	}
	d, err := k.get(ctx, s.o.Client, id)
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return nil, false
	}
	if err != nil {
		s.fail(w, r, c, err)
		return nil, false
	}
	v := &docPageView{Kind: k, Env: env, Doc: d, Costs: policy.SeesCost(ctx), Back: Prefix + k.Name + "?" + url.Values{"env": {env}}.Encode()}
	for i, l := range d.Lines {
		if l.LotID != 0 {
			d.Lines[i].LotLink = lotPath(l.LotID, env, "", 0)
			v.Lots++
		}
	}
	if !d.Cancelled && (Route{Roles: Operators}).Allows(c.Me.Person.Role) {
		v.Cancel = k.path(id, env, "/cancel")
	}
	return v, true
}

func (s *Server) document(k *docKind) func(http.ResponseWriter, *http.Request, *caller) {
	return func(w http.ResponseWriter, r *http.Request, c *caller) {
		v, ok := s.docRequest(w, r, c, k)
		if !ok {
			return
		}
		documentTemplate.render(s, w, r, c, http.StatusOK, docTitle(k, v.Doc), nil, v)
	}
}

func (s *Server) cancelPage(k *docKind) func(http.ResponseWriter, *http.Request, *caller) {
	return func(w http.ResponseWriter, r *http.Request, c *caller) {
		v, ok := s.docRequest(w, r, c, k)
		if !ok {
			return
		}
		v.Confirm = true
		f := newForm(nil)
		status := http.StatusOK
		if v.Doc.Cancelled {
			f.Fail("", fmt.Sprintf("This %s is cancelled already; there is nothing to cancel.", k.One))
			status = http.StatusConflict
		}
		documentTemplate.render(s, w, r, c, status, "Cancel "+strings.ToLower(docTitle(k, v.Doc)), f, v)
	}
}

func (s *Server) cancel(k *docKind) func(http.ResponseWriter, *http.Request, *caller) {
	return func(w http.ResponseWriter, r *http.Request, c *caller) {
		f := parseForm(w, r)
		v, ok := s.docRequest(w, r, c, k)
		if !ok {
			return
		}
		title := "Cancel " + strings.ToLower(docTitle(k, v.Doc))
		v.Confirm = true
		if !f.OK() {
			documentTemplate.render(s, w, r, c, http.StatusBadRequest, title, f, v)
			return
		}
		id := v.Doc.ID
		err := s.act(c, v.Env, func(actx context.Context, tx *ent.Tx) (audit.Entry, error) {
			number, err := k.cancel(actx, tx, id)
			if err != nil {
				return audit.Entry{}, err
			}
			detail := map[string]any{"id": id, "number": number, "is_cancelled": true,
				"cancelled_at": time.Now().UTC().Format(time.DateOnly)}
			if k == bills {
				detail["lots_kept"] = v.Lots
			}
			return audit.Entry{Action: k.action, Detail: detail}, nil
		})
		if ent.IsNotFound(err) {
			s.notFound(w, r)
			return
		}
		if p, isProblem := apiproblem.As(err); isProblem {
			f.Fail("", p.Detail)
			documentTemplate.render(s, w, r, c, p.Status(), title, f, v)
			return
		}
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		s.redirect(w, r, c, k.path(id, v.Env, ""), fmt.Sprintf("%s is cancelled.", docTitle(k, v.Doc)))
	}
}

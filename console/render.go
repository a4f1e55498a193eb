package console

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/policy"
)

// page is one page's template: the layout with the page's "content".
type page struct{ t *template.Template }

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	// dict builds the argument of a partial template from pairs; the keys
	// a partial reads but the caller left out are empty.
	"dict": func(pairs ...any) (map[string]any, error) {
		m := map[string]any{"Type": "", "Hint": "", "Auto": "", "Required": false, "Inputmode": ""}
		if len(pairs)%2 != 0 {
			return nil, errors.New("dict: odd number of arguments")
		}
		for i := 0; i < len(pairs); i += 2 {
			k, ok := pairs[i].(string)
			if !ok {
				return nil, fmt.Errorf("dict: key %v is not a string", pairs[i])
			}
			m[k] = pairs[i+1]
		}
		return m, nil
	},
	"asset": func(name string) string { return assetPath + name + "?v=" + assetVersion },
	// time shows an instant in UTC to the minute, as the CLI prints it.
	"time": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			return stamp(v)
		case *time.Time:
			if v == nil {
				return "—"
			}
			return stamp(*v)
		}
		return ""
	},
	// seconds shows an instant in UTC to the second (the request log's
	// times, where several requests share a minute).
	"seconds": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	// clock is seconds for a column whose heading names the zone.
	"clock": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") },
	"join":  strings.Join,
	// The lot pages' words: a date, a lot's number, a product or place by
	// code and name, a quantity in its unit, an optional text.
	"day":     day,
	"lotname": lotName,
	"named":   productName,
	"qty":     quantity,
	"grouped": grouped,
	// in is a quantity in a unit named by base or display (quantity).
	"in": func(q decimal.Decimal, unit string) string { return quantity(q, &unit) },
	// base and display name a product's base and display units, "" for
	// none (unitName).
	"base":    func(p *ent.Product) string { return productUnit(p, false) },
	"display": func(p *ent.Product) string { return productUnit(p, true) },
	"place":   placeName,
	"ordash":  orDash,
	// A row's number as people count, from its index.
	"inc": func(i int) int { return i + 1 },
	// An is "An" or "A", the article a sentence starts with before word.
	"An": func(word string) string { return capitalArticle(word) },
	// Whether a production run may complete.
	"completable": canComplete,
}

// stamp formats t for a page.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// parsePages parses every page with the layout.
func parsePages() (map[string]*page, error) {
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*page{}
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFiles, n)
		if err != nil {
			return nil, fmt.Errorf("console page %s: %w", base, err)
		}
		pages[base] = &page{t: t}
	}
	return pages, nil
}

// view is what a page's template reads: the layout's fields and D, the
// page's own data.
type view[D any] struct {
	Title string
	// Me is the signed-in person (nil on the sign-in pages).
	Me *people.Current
	// Shell is the navigation and the environment around the page.
	Shell shell
	Flash string
	// Form holds the values and errors of the page's form.
	Form *form
	// Data is the page's own.
	Data D
}

// pageOf is template name, rendered with a view of D.
type pageOf[D any] struct{ name string }

// pageTypes is the view type each template is rendered with, for the test
// that checks every template's fields against it.
var pageTypes = map[string]reflect.Type{}

// newPage declares that template name is rendered with a view of D.
func newPage[D any](name string) pageOf[D] {
	if _, dup := pageTypes[name]; dup {
		panic("console: page " + name + " declared twice")
	}
	pageTypes[name] = reflect.TypeFor[view[D]]()
	return pageOf[D]{name: name}
}

// render answers with the page, its title, form and data.
func (p pageOf[D]) render(s *Server, w http.ResponseWriter, r *http.Request, c *caller, status int, title string, f *form, data D) {
	if f == nil {
		f = newForm(nil)
	}
	v := view[D]{Title: title, Me: c.Me, Shell: s.shellOf(c), Form: f, Data: data}
	if r.Method == http.MethodGet {
		v.Flash = s.flash(w, r, c)
	}
	s.write(w, r, c, status, p.name, v)
}

// write answers with page name executed on v. The page is rendered whole
// before anything is written, so a template error is a clean 500.
func (s *Server) write(w http.ResponseWriter, r *http.Request, c *caller, status int, name string, v any) {
	p, ok := s.pages[name]
	if !ok {
		s.fail(w, r, c, fmt.Errorf("console: no page %q", name))
		return
	}
	var buf bytes.Buffer
	if err := p.t.ExecuteTemplate(&buf, "layout", v); err != nil {
		s.log.Error("console: render", "page", name, "error", err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorView is the error page's data: what went wrong, in a sentence.
type errorView struct{ Message string }

// errorTemplate tells a person what went wrong.
var errorTemplate = newPage[errorView]("error")

// showError answers with the error page.
func (s *Server) showError(w http.ResponseWriter, r *http.Request, c *caller, status int, title, msg string) {
	errorTemplate.render(s, w, r, c, status, title, nil, errorView{Message: msg})
}

// notFound answers 404: an unknown page, or a record that does not exist for
// the person's organization (another organization's looks the same).
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	c := &caller{ctx: r.Context()}
	s.showError(w, r, c, http.StatusNotFound, "Not found", "There is no such page or record here.")
}

// forbidden answers 403: the person's role may not use the page.
func (s *Server) forbidden(w http.ResponseWriter, r *http.Request, c *caller) {
	s.showError(w, r, c, http.StatusForbidden, "Not allowed", fmt.Sprintf("Your role (%s) may not use this page; an admin of your organization can change your role.", c.Me.Person.Role))
}

// crossOrigin answers 403 to a state-changing request from another site.
func (s *Server) crossOrigin(w http.ResponseWriter, r *http.Request) {
	c := &caller{ctx: r.Context()}
	s.showError(w, r, c, http.StatusForbidden, "Refused", "This request came from another site, so it was refused. Open the console and try again from there.")
}

// fail answers an error a page did not expect: 404 for a record that does
// not exist for the caller, 500 (logged, not shown) otherwise.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, c *caller, err error) {
	if policy.IsMissing(err) || errors.Is(err, people.ErrNotFound) {
		s.showError(w, r, c, http.StatusNotFound, "Not found", "There is no such page or record here.")
		return
	}
	s.log.Error("console: request failed", "method", r.Method, "path", r.URL.Path, "error", err)
	s.showError(w, r, c, http.StatusInternalServerError, "Something went wrong", "The request could not be completed; nothing was changed. Try again, and tell whoever runs this server if it goes on.")
}

// form is a submitted form: its values, and the errors shown next to its
// fields ("" for the whole form).
type form struct {
	values url.Values
	errors map[string]string
	// order is the fields in the order their errors were found; anchors
	// are the ids of fields whose input is not "f-" and the field's name.
	order   []string
	anchors map[string]string
	// fields are the fields' places in the form as sent (those not sent,
	// such as a group of boxes left unticked, come after).
	fields map[string]int
}

// newForm wraps values (nil for an empty form).
func newForm(values url.Values) *form {
	if values == nil {
		values = url.Values{}
	}
	return &form{values: values, errors: map[string]string{}}
}

// parseForm reads the request's form (bounded: the console's forms are small).
func parseForm(w http.ResponseWriter, r *http.Request) *form {
	r.Body = http.MaxBytesReader(w, r.Body, MaxForm)
	var raw []byte
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		var err error
		if raw, err = io.ReadAll(r.Body); err != nil {
			f := newForm(nil)
			f.Fail("", "The form could not be read; send it again.")
			return f
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
	}
	if err := r.ParseForm(); err != nil {
		f := newForm(nil)
		f.Fail("", "The form could not be read; send it again.")
		return f
	}
	f := newForm(r.PostForm)
	f.fields = fieldOrder(string(raw))
	return f
}

// fieldOrder numbers the fields of an encoded form in the order sent, which
// is the page's order: the error summary lists their errors so.
func fieldOrder(raw string) map[string]int {
	order := map[string]int{}
	for part := range strings.SplitSeq(raw, "&") {
		name, _, _ := strings.Cut(part, "=")
		if name, err := url.QueryUnescape(name); err == nil {
			if _, seen := order[name]; !seen {
				order[name] = len(order)
			}
		}
	}
	return order
}

// Get is a field's value, trimmed.
func (f *form) Get(name string) string { return strings.TrimSpace(f.values.Get(name)) }

// Raw is a field's value as sent (passwords).
func (f *form) Raw(name string) string { return f.values.Get(name) }

// List is every value of a field (checkboxes).
func (f *form) List(name string) []string { return f.values[name] }

// Has reports whether a checkbox field has value v.
func (f *form) Has(name, v string) bool {
	for _, x := range f.values[name] {
		if x == v {
			return true
		}
	}
	return false
}

// Error is the error shown next to a field.
func (f *form) Error(name string) string { return f.errors[name] }

// Fail sets the error of a field (the first one stays).
func (f *form) Fail(name, msg string) {
	if _, ok := f.errors[name]; !ok {
		f.errors[name] = msg
		f.order = append(f.order, name)
	}
}

// problem is one line of a page's error summary: a field's error and the
// link to its input.
type fieldProblem struct{ Message, Href string }

// Problems are the form's field errors in the order they were found, each
// linking to its field's input (the summary at the top of a page).
func (f *form) Problems() []fieldProblem {
	var out []fieldProblem
	names := slices.Clone(f.order)
	slices.SortStableFunc(names, func(a, b string) int { return f.place(a) - f.place(b) })
	for _, name := range names {
		if name == "" {
			continue
		}
		id, ok := f.anchors[name]
		if !ok {
			id = "f-" + name
		}
		out = append(out, fieldProblem{Message: f.errors[name], Href: "#" + id})
	}
	return out
}

// place is where field name was in the form as sent, after every field
// when it was not.
func (f *form) place(name string) int {
	if i, ok := f.fields[name]; ok {
		return i
	}
	return len(f.fields)
}

// anchor names the id of the input a field's error links to, for a field
// whose input is not "f-" and its name (a group of boxes, a form shown
// twice on a page).
func (f *form) anchor(name, id string) {
	if f.anchors == nil {
		f.anchors = map[string]string{}
	}
	f.anchors[name] = id
}

// OK reports whether the form has no error.
func (f *form) OK() bool { return len(f.errors) == 0 }

// add sets the errors a form's reading found (a field keeps its first).
func (f *form) add(errs forms.Errors) {
	for _, name := range slices.Sorted(maps.Keys(errs)) {
		f.Fail(name, errs[name])
	}
}

// capitalArticle is the indefinite article before word at the start of a
// sentence: "An" before a vowel's sound (an invoice, an hour), "A" before a
// consonant's (a bill, a unit, a one-off).
func capitalArticle(word string) string {
	w := strings.ToLower(word)
	for _, p := range []string{"uni", "use", "usa", "eu", "one", "once"} {
		if strings.HasPrefix(w, p) {
			return "A"
		}
	}
	if strings.HasPrefix(w, "hour") || strings.HasPrefix(w, "honest") || strings.HasPrefix(w, "honou") {
		return "An"
	}
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "An"
	}
	return "A"
}

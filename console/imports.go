package console

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/modules/filecheck"
	"larder.dev/larder/internal/modules/reflist"
	"larder.dev/larder/policy"
)

// importRoutes are the imports of products and reference lists from files,
// checked before they are written, and the exports of the same lists.
func (s *Server) importRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/imports", Nav: "Imports", Summary: "read the lists that can be imported from a file (products and reference lists) in one environment (live or test), with their export links; changes nothing", serve: s.imports},
		{Method: "POST", Path: "/console/imports/check", Roles: Operators, Summary: "check a products or reference list file (CSV or JSON Lines) as `larder product import` and `larder list import` do, showing every problem with its line and field; changes nothing", MaxBody: maxUpload, serve: s.importCheck},
		{Method: "POST", Path: "/console/imports/import", Roles: Operators, Summary: "import a file the check found no problem in, all of it in one transaction (created and updated counted), recorded in the audit history", serve: s.importFile},
		{Method: "GET", Path: "/console/imports/template", Summary: "download a list's CSV template: the header row and one example row, from the columns the import reads; changes nothing", serve: s.importTemplate},
		{Method: "GET", Path: "/console/imports/export", Summary: "download a list (reference lists for everyone; products, which hold costs, for the roles that see costs) as CSV or JSON Lines, in the import format; changes nothing", serve: s.importExport},
	}
}

// maxImport is the largest file the console takes.
const maxImport = 4 << 20

// maxUpload bounds the body of a check: the file and the form around it.
const maxUpload = maxImport + 64<<10

// importList is a list a file can hold: the products, or a reference list.
type importList struct {
	Name, Label string
	// ref is the reference list (nil for products).
	ref *reflist.List
	// Costs marks a list whose export holds costs.
	Costs bool
}

// importLists are the lists, products first.
var importLists = func() []importList {
	out := []importList{{Name: "products", Label: "Products", Costs: true}}
	for _, l := range reflist.Lists {
		out = append(out, importList{Name: l.Name, Label: listLabel(l.Name), ref: l})
	}
	return out
}()

// listLabel is a list's name in words: customer-types, Customer types.
func listLabel(name string) string {
	b := []byte(name)
	for i, c := range b {
		if c == '-' {
			b[i] = ' '
		}
	}
	if len(b) > 0 && b[0] >= 'a' && b[0] <= 'z' {
		b[0] -= 'a' - 'A'
	}
	return string(b)
}

// Spec is the list's columns as the import reads them.
func (l importList) Spec() []catalog.ColumnSpec {
	if l.ref == nil {
		return catalog.ColumnSpecs
	}
	return l.ref.Spec()
}

func findList(name string) (importList, bool) {
	for _, l := range importLists {
		if l.Name == name {
			return l, true
		}
	}
	return importList{}, false
}

// importsView is the imports page's own data.
type importsView struct {
	Env   string
	Lists []importExport
	// Operator may check and import files.
	Operator bool
	// Checked is the file just checked: its problems, or the check ready to
	// import.
	Checked *checkedFile
}

// importExport is a list with its export links (empty when the person may
// not read its export).
type importExport struct {
	importList
	CSV, JSONL string
	// Template is the list's CSV template.
	Template string
}

// checkedFile is the outcome of a check.
type checkedFile struct {
	Name, List, ListLabel, Format, Hash string
	// ID is the check waiting for its import (0 when it has problems).
	ID       int
	Records  int
	Problems []catalog.LineError
	// Minutes is how long the check waits for its import.
	Minutes int
	// New, Updated and Unchanged count what the import would do with the
	// records; Outcomes are the first previewShown of them, line by line.
	New, Updated, Unchanged int
	Outcomes                []catalog.Outcome
}

// previewShown bounds the preview's table; the counts cover every record.
const previewShown = 200

// preview fills in what importing the checked records would do in the
// account of ctx, writing nothing.
func (cf *checkedFile) preview(ctx context.Context, c *ent.Client, l importList, p parsed) error {
	var outs []catalog.Outcome
	var err error
	if l.ref == nil {
		outs, err = catalog.Preview(ctx, c, p.products)
	} else {
		outs, err = l.ref.Preview(ctx, c, p.refs)
	}
	if err != nil {
		return err
	}
	for _, o := range outs {
		switch o.Kind {
		case catalog.OutcomeNew:
			cf.New++
		case catalog.OutcomeUpdate:
			cf.Updated++
		default:
			cf.Unchanged++
		}
	}
	cf.Outcomes = outs[:min(len(outs), previewShown)]
	return nil
}

func (s *Server) importsView(c *caller, env string) importsView {
	v := importsView{Env: env, Operator: (Route{Roles: Operators}).Allows(c.Me.Person.Role)}
	for _, l := range importLists {
		x := importExport{importList: l, Template: Prefix + "imports/template?" + url.Values{"list": {l.Name}}.Encode()}
		if !l.Costs || c.Me.Person.Role.SeesCosts() {
			link := func(f string) string {
				return Prefix + "imports/export?" + url.Values{"env": {env}, "list": {l.Name}, "format": {f}}.Encode()
			}
			x.CSV, x.JSONL = link("csv"), link("jsonl")
		}
		v.Lists = append(v.Lists, x)
	}
	return v
}

func (s *Server) imports(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	env, ok := envOf(f)
	status := http.StatusOK
	if !ok {
		f.Fail("", "Choose the live or the test environment.")
		status = http.StatusBadRequest
	}
	importsTemplate.render(s, w, r, c, status, "Imports", f, s.importsView(c, env))
}

// readUpload reads the multipart form of a check: env, list, format and the
// file (errors in f).
func readUpload(w http.ResponseWriter, r *http.Request) (f *form, name string, data []byte) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	if err := r.ParseMultipartForm(maxUpload); err != nil {
		f = newForm(nil)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			f.Fail("file", fmt.Sprintf("The file is larger than %d MB; split it, or import it with the larder command.", maxImport>>20))
		} else {
			f.Fail("file", "The form could not be read; choose the file and send it again.")
		}
		return f, "", nil
	}
	defer r.MultipartForm.RemoveAll()
	f = newForm(url.Values(r.MultipartForm.Value))
	file, hdr, err := r.FormFile("file")
	if err != nil {
		f.Fail("file", "Choose a CSV or JSON Lines file.")
		return f, "", nil
	}
	defer file.Close()
	data, err = io.ReadAll(io.LimitReader(file, maxImport+1))
	switch {
	case err != nil:
		f.Fail("file", "The file could not be read; send it again.")
	case len(data) > maxImport:
		f.Fail("file", fmt.Sprintf("The file is larger than %d MB; split it, or import it with the larder command.", maxImport>>20))
	case len(data) == 0:
		f.Fail("file", "The file is empty.")
	case len(hdr.Filename) > 255 || !utf8.ValidString(hdr.Filename) || strings.ContainsRune(hdr.Filename, 0):
		// The name is kept with the checked file and in the audit history.
		f.Fail("file", "The file's name is not one a check can keep (at most 255 bytes of text); rename the file and choose it again.")
	}
	return f, hdr.Filename, data
}

// parsed is a file read as its list's records.
type parsed struct {
	products []catalog.Line
	refs     []reflist.Line
	perrs    []catalog.LineError
}

func (p parsed) records() int { return len(p.products) + len(p.refs) }

func parse(l importList, data []byte, format catalog.Format) parsed {
	if l.ref == nil {
		lines, perrs := catalog.Read(bytes.NewReader(data), format)
		return parsed{products: lines, perrs: perrs}
	}
	lines, perrs := l.ref.Read(bytes.NewReader(data), format)
	return parsed{refs: lines, perrs: perrs}
}

// problems are every problem of the file in the account of ctx, by line,
// writing nothing.
func problems(ctx context.Context, c *ent.Client, l importList, p parsed) ([]catalog.LineError, error) {
	var errs []catalog.LineError
	if l.ref == nil {
		found, err := catalog.Check(ctx, c, p.products)
		if err != nil {
			return nil, err
		}
		errs = append(slices.Clone(p.perrs), found...)
	} else {
		found, err := l.ref.Check(ctx, c, p.refs, p.perrs)
		if err != nil {
			return nil, err
		}
		errs = found
	}
	slices.SortStableFunc(errs, func(a, b catalog.LineError) int { return a.Line - b.Line })
	return errs, nil
}

// uploadFields reads the env, list and format of a check or import
// (forms.ParseUpload).
func uploadFields(f *form, fileName string) (env string, l importList, format catalog.Format) {
	in, errs := forms.ParseUpload(f.values, fileName, func(name string) bool { _, ok := findList(name); return ok })
	f.add(errs)
	l, _ = findList(in.List)
	return string(in.Env), l, in.Format
}

func (s *Server) importCheck(w http.ResponseWriter, r *http.Request, c *caller) {
	f, name, data := readUpload(w, r)
	env, l, format := uploadFields(f, name)
	v := s.importsView(c, env)
	if !f.OK() {
		importsTemplate.render(s, w, r, c, http.StatusBadRequest, "Imports", f, v)
		return
	}
	ctx, err := tenancy.Actor(c.Context(), s.o.Client, c.orgID(), policy.Environment(env), c.Me.Person.ID)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	p := parse(l, data, format)
	errs, err := problems(ctx, s.o.Client, l, p)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	sum := sha256.Sum256(data)
	v.Checked = &checkedFile{Name: name, List: l.Name, ListLabel: l.Label, Format: string(format), Hash: hex.EncodeToString(sum[:]),
		Records: p.records(), Problems: errs}
	if len(errs) > 0 {
		importsTemplate.render(s, w, r, c, http.StatusUnprocessableEntity, "Imports", f, v)
		return
	}
	if err := v.Checked.preview(ctx, s.o.Client, l, p); err != nil {
		s.fail(w, r, c, err)
		return
	}
	// The browser cannot send a chosen file again without the person choosing
	// it again: the bytes checked wait for the import, which writes exactly
	// them (checking them once more in its transaction).
	kept, err := filecheck.Keep(c.Context(), s.o.Client, c.orgID(), c.Me.Person.ID, filecheck.File{Env: policy.Environment(env), List: l.Name,
		Format: string(format), Name: name, SHA256: v.Checked.Hash, Content: data}, s.o.Now())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v.Checked.ID, v.Checked.Minutes = kept.ID, int(filecheck.Lifetime/time.Minute)
	importsTemplate.render(s, w, r, c, http.StatusOK, "Imports", f, v)
}

func (s *Server) importFile(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	env, ok := envOf(f)
	if !ok {
		f.Fail("", "Choose the live or the test environment.")
	}
	id, err := strconv.Atoi(f.Get("check"))
	if err != nil || id <= 0 {
		f.Fail("file", "Choose the file and check it again.")
	}
	v := s.importsView(c, env)
	if !f.OK() {
		importsTemplate.render(s, w, r, c, http.StatusBadRequest, "Imports", f, v)
		return
	}
	var (
		file                        filecheck.File
		l                           importList
		p                           parsed
		created, updated, unchanged int
	)
	err = s.act(c, env, func(ctx context.Context, tx *ent.Tx) (audit.Entry, error) {
		var err error
		if file, err = filecheck.Take(ctx, tx, c.orgID(), c.Me.Person.ID, id, s.o.Now()); err != nil {
			return audit.Entry{}, err
		}
		var found bool
		if l, found = findList(file.List); !found || string(file.Env) != env {
			// A form naming another environment than the check's was not
			// made by the check's page.
			return audit.Entry{}, filecheck.ErrNotFound
		}
		p = parse(l, file.Content, catalog.Format(file.Format))
		if l.ref == nil {
			if len(p.perrs) > 0 {
				return audit.Entry{}, &catalog.FileError{Problems: p.perrs}
			}
			res, err := catalog.ImportTx(ctx, tx, p.products, nil)
			if err != nil {
				return audit.Entry{}, err
			}
			created, updated, unchanged = res.Created, res.Updated, res.Unchanged
		} else {
			res, err := l.ref.ImportTx(ctx, tx, p.refs, p.perrs)
			if err != nil {
				return audit.Entry{}, err
			}
			created, updated, unchanged = res.Created, res.Updated, res.Unchanged
		}
		action := audit.ReferenceListImported
		if l.ref == nil {
			action = audit.ProductsImported
		}
		return audit.Entry{Action: action, Detail: map[string]any{"list": l.Name, "file": file.Name, "format": file.Format,
			"sha256": file.SHA256, "records": p.records(), "created": created, "updated": updated, "unchanged": unchanged}}, nil
	})
	var fe *catalog.FileError
	switch {
	case errors.Is(err, filecheck.ErrNotFound):
		f.Fail("file", "This file is no longer waiting to be imported (it was imported, checked again, or expired); choose it and check it again.")
		importsTemplate.render(s, w, r, c, http.StatusConflict, "Imports", f, v)
		return
	case errors.Is(err, filecheck.ErrExpired):
		f.Fail("file", fmt.Sprintf("This check expired: a checked file waits %d minutes for its import. Choose the file and check it again.", int(filecheck.Lifetime/time.Minute)))
		importsTemplate.render(s, w, r, c, http.StatusConflict, "Imports", f, v)
		return
	case errors.As(err, &fe):
		// The account changed since the check (a code taken, a reference
		// gone): the file is shown with its problems and checked again.
		if err := filecheck.Discard(c.Context(), s.o.Client, c.orgID(), c.Me.Person.ID, id); err != nil {
			s.fail(w, r, c, err)
			return
		}
		v.Checked = &checkedFile{Name: file.Name, List: l.Name, ListLabel: l.Label, Format: file.Format, Hash: file.SHA256,
			Records: p.records(), Problems: fe.Problems}
		importsTemplate.render(s, w, r, c, http.StatusUnprocessableEntity, "Imports", f, v)
		return
	case err != nil:
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, Prefix+"imports?"+url.Values{"env": {env}}.Encode(),
		fmt.Sprintf("%s imported from %s: %d created, %d updated, %d unchanged.", l.Label, file.Name, created, updated, unchanged))
}

func (s *Server) importExport(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	env, l, format := uploadFields(f, "")
	if f.Get("format") == "" {
		f.Fail("format", "Choose CSV or JSON Lines.")
	}
	if !f.OK() {
		s.showError(w, r, c, http.StatusBadRequest, "The list cannot be downloaded", "Choose a list, its environment and CSV or JSON Lines from the imports page.")
		return
	}
	if l.Costs && !c.Me.Person.Role.SeesCosts() {
		s.forbidden(w, r, c)
		return
	}
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	var buf bytes.Buffer
	if l.ref == nil {
		cw, err := catalog.NewWriter(&buf, format)
		if err == nil {
			_, err = catalog.Export(ctx, s.o.Client, cw)
		}
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
	} else {
		recs, err := l.ref.Export(ctx, s.o.Client)
		if err == nil {
			err = l.ref.Write(&buf, format, recs)
		}
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
	}
	ext, ctype := ".jsonl", "application/jsonl; charset=utf-8"
	if format == catalog.CSV {
		ext, ctype = ".csv", "text/csv; charset=utf-8"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": l.Name + "-" + env + ext}))
	_, _ = w.Write(buf.Bytes())
}

// importTemplate answers a list's CSV template: its header row and an
// example row, from the same columns the import reads.
func (s *Server) importTemplate(w http.ResponseWriter, r *http.Request, c *caller) {
	l, ok := findList(r.URL.Query().Get("list"))
	if !ok {
		s.showError(w, r, c, http.StatusBadRequest, "No such list", "Choose a list's template from the imports page.")
		return
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	var names, example []string
	for _, col := range l.Spec() {
		names, example = append(names, col.Name), append(example, col.Example)
	}
	_ = cw.Write(names)
	_ = cw.Write(example)
	cw.Flush()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": l.Name + "-template.csv"}))
	_, _ = w.Write(buf.Bytes())
}

package console

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"larder.dev/larder/audit"
	"larder.dev/larder/catalog"
	"larder.dev/larder/ent"
	"larder.dev/larder/policy"
	"larder.dev/larder/reflist"
	"larder.dev/larder/tenancy"
)

// importRoutes are the imports of products and reference lists from files,
// checked before they are written, and the exports of the same lists.
func (s *Server) importRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/imports", Nav: "Imports", Summary: "read the lists that can be imported from a file (products and reference lists) in one environment (live or test), with their export links; changes nothing", serve: s.imports},
		{Method: "POST", Path: "/console/imports/check", Roles: Operators, Summary: "check a products or reference list file (CSV or JSON Lines) as `larder product import` and `larder list import` do, showing every problem with its line and field; changes nothing", MaxBody: maxUpload, serve: s.importCheck},
		{Method: "POST", Path: "/console/imports/import", Roles: Operators, Summary: "import a file the check found no problem in, all of it in one transaction (created and updated counted), recorded in the audit history", serve: s.importFile},
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

func findList(name string) (importList, bool) {
	for _, l := range importLists {
		if l.Name == name {
			return l, true
		}
	}
	return importList{}, false
}

// A checked file waits for its import here, keyed by its SHA-256 with the
// person, organization, environment and list it was checked for: the
// browser cannot send a chosen file again without the person choosing it
// again, and the import then writes exactly the bytes that were checked
// (the import checks them once more in its transaction). It is kept a short
// while in this process's memory; a file not found (expired, the server
// restarted) is checked again.
const pendingFor = 30 * time.Minute

// maxPending bounds the files kept at once.
const maxPending = 64

type pendingKey struct {
	org, person int
	env, list   string
	hash        string
}

type pendingFile struct {
	name   string
	format catalog.Format
	data   []byte
	until  time.Time
}

var pending = struct {
	sync.Mutex
	m map[pendingKey]pendingFile
}{m: map[pendingKey]pendingFile{}}

// keep stores a checked file until its import.
func keep(k pendingKey, f pendingFile) {
	pending.Lock()
	defer pending.Unlock()
	now := time.Now()
	for x, p := range pending.m {
		if now.After(p.until) {
			delete(pending.m, x)
		}
	}
	if len(pending.m) >= maxPending {
		var oldest pendingKey
		var at time.Time
		for x, p := range pending.m {
			if at.IsZero() || p.until.Before(at) {
				oldest, at = x, p.until
			}
		}
		delete(pending.m, oldest)
	}
	pending.m[k] = f
}

// take is the checked file of k, if it is still kept.
func take(k pendingKey) (pendingFile, bool) {
	pending.Lock()
	defer pending.Unlock()
	p, ok := pending.m[k]
	if !ok || time.Now().After(p.until) {
		delete(pending.m, k)
		return pendingFile{}, false
	}
	return p, true
}

// forget drops k once imported.
func forget(k pendingKey) {
	pending.Lock()
	defer pending.Unlock()
	delete(pending.m, k)
}

// importsView is the imports page's own data.
type importsView struct {
	Env   string
	Lists []importExport
	// Operator may check and import files.
	Operator bool
	// Checked is the file just checked: its problems, or its hash ready to
	// import.
	Checked *checkedFile
}

// importExport is a list with its export links (empty when the person may
// not read its export).
type importExport struct {
	importList
	CSV, JSONL string
}

// checkedFile is the outcome of a check.
type checkedFile struct {
	Name, List, ListLabel, Format, Hash string
	Records                             int
	Problems                            []catalog.LineError
}

func (s *Server) importsView(c *caller, env string) importsView {
	v := importsView{Env: env, Operator: (Route{Roles: Operators}).Allows(c.Me.Person.Role)}
	for _, l := range importLists {
		x := importExport{importList: l}
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
	s.render(w, r, c, status, "imports", "Imports", f, s.importsView(c, env))
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

// uploadFields reads the env, list and format of a check or import.
func uploadFields(f *form, fileName string) (env string, l importList, format catalog.Format) {
	env, ok := envOf(f)
	if !ok {
		f.Fail("", "Choose the live or the test environment.")
	}
	l, ok = findList(f.Get("list"))
	if !ok {
		f.Fail("list", "Choose the list the file holds.")
	}
	format, err := catalog.ParseFormat(f.Get("format"), fileName)
	if err != nil {
		f.Fail("format", "Choose CSV or JSON Lines.")
	}
	return env, l, format
}

func (s *Server) importCheck(w http.ResponseWriter, r *http.Request, c *caller) {
	f, name, data := readUpload(w, r)
	env, l, format := uploadFields(f, name)
	v := s.importsView(c, env)
	if !f.OK() {
		s.render(w, r, c, http.StatusBadRequest, "imports", "Imports", f, v)
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
		s.render(w, r, c, http.StatusUnprocessableEntity, "imports", "Imports", f, v)
		return
	}
	keep(pendingKey{org: c.orgID(), person: c.Me.Person.ID, env: env, list: l.Name, hash: v.Checked.Hash},
		pendingFile{name: name, format: format, data: data, until: time.Now().Add(pendingFor)})
	s.render(w, r, c, http.StatusOK, "imports", "Imports", f, v)
}

func (s *Server) importFile(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	env, l, _ := uploadFields(f, "")
	hash := f.Get("hash")
	v := s.importsView(c, env)
	if !f.OK() {
		s.render(w, r, c, http.StatusBadRequest, "imports", "Imports", f, v)
		return
	}
	key := pendingKey{org: c.orgID(), person: c.Me.Person.ID, env: env, list: l.Name, hash: hash}
	file, ok := take(key)
	if !ok {
		f.Fail("file", "This file is no longer waiting to be imported (it was imported, or more than 30 minutes went by); choose it and check it again.")
		s.render(w, r, c, http.StatusConflict, "imports", "Imports", f, v)
		return
	}
	p := parse(l, file.data, file.format)
	var created, updated, unchanged int
	err := s.act(c, env, func(ctx context.Context, tx *ent.Tx) (audit.Entry, error) {
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
		return audit.Entry{Action: action, Detail: map[string]any{"list": l.Name, "file": file.name, "format": string(file.format),
			"sha256": hash, "records": p.records(), "created": created, "updated": updated, "unchanged": unchanged}}, nil
	})
	var fe *catalog.FileError
	if errors.As(err, &fe) {
		// The account changed since the check (a code taken, a reference gone).
		v.Checked = &checkedFile{Name: file.name, List: l.Name, ListLabel: l.Label, Format: string(file.format), Hash: hash,
			Records: p.records(), Problems: fe.Problems}
		forget(key)
		s.render(w, r, c, http.StatusUnprocessableEntity, "imports", "Imports", f, v)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	forget(key)
	s.redirect(w, r, c, Prefix+"imports?"+url.Values{"env": {env}}.Encode(),
		fmt.Sprintf("%s imported from %s: %d created, %d updated, %d unchanged.", l.Label, file.name, created, updated, unchanged))
}

func (s *Server) importExport(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	env, l, format := uploadFields(f, "")
	if f.Get("format") == "" {
		f.Fail("format", "Choose CSV or JSON Lines.")
	}
	if !f.OK() {
		s.render(w, r, c, http.StatusBadRequest, "error", "The list cannot be downloaded", nil, "Choose a list, its environment and CSV or JSON Lines from the imports page.")
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

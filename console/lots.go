package console

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/policy"
)

// lotRoutes are the product lots of an environment and a lot's trace:
// where it came from, where it went, and what a recall of it reaches.
func (s *Server) lotRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/lots", Nav: "Lots", Summary: "read the product lots of one environment (live or test), newest first, found by part of the lot number and of the product's code or name; changes nothing", serve: s.lots},
		{Method: "GET", Path: "/console/lots/{id}", Summary: "read one of the organization's product lots and its trace, backward to suppliers and forward to customers (direction and depth chosen), drawn as a graph, with the recall summary: affected lots, customers and their shipments, suppliers and their bills; its quality decision (with the form for operators and admins), the decisions made on it and its stock movements; changes nothing", serve: s.lot},
		{Method: "GET", Path: "/console/lots/{id}/trace.csv", Summary: "download a lot's trace as FSMA 204's sortable spreadsheet (CSV), one row per critical tracking event; changes nothing", serve: s.lotTraceCSV},
	}
}

// lotsPage is the lots a page shows; one more is asked for to know whether
// an older page exists.
const lotsPage = 50

// lotsView is the lots page's own data.
type lotsView struct {
	Env             string
	Rows            []lotRow
	Filtered, Paged bool
	Newest, Older   string
}

// lotRow is a lot as the list shows it.
type lotRow struct {
	*inventory.TraceLot
	Link string
}

// lotFilters are the list's search fields, in the order its links carry
// them.
var lotFilters = []string{"number", "product"}

// reading is the context in which a page reads the env account of the
// signed-in person's organization: the organization comes from the session
// alone, and the account's tenant policy confines every read to it, so
// another organization's rows are not found.
func (s *Server) reading(c *caller, env string) (context.Context, error) {
	return tenancy.Reader(c.ctx, s.o.Client, c.orgID(), policy.Environment(env), c.Me.Person.Role.SeesCosts())
}

// lotPath is the page of lot id in env, with a direction and depth other
// than the defaults.
func lotPath(id int, env string, d inventory.Direction, depth int) string {
	u := url.Values{"env": {env}}
	if d != "" && d != inventory.Both {
		u.Set("direction", string(d))
	}
	if depth != 0 && depth != inventory.DefaultTraceDepth {
		u.Set("depth", strconv.Itoa(depth))
	}
	return Prefix + "lots/" + strconv.Itoa(id) + "?" + u.Encode()
}

// lotsLink is the list with f's search from cursor before ("" for the
// newest page).
func lotsLink(env string, f *form, before string) string {
	u := url.Values{"env": {env}}
	for _, k := range lotFilters {
		if x := f.Get(k); x != "" {
			u.Set(k, x)
		}
	}
	if before != "" {
		u.Set("before", before)
	}
	return Prefix + "lots?" + u.Encode()
}

func (s *Server) lots(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	v := lotsView{Env: string(policy.Live)}
	switch env := f.Get("env"); env {
	case "", string(policy.Live):
	case string(policy.Test):
		v.Env = env
	default:
		f.Fail("", "Choose the live or the test environment.")
	}
	filter := inventory.LotFilter{Number: f.Get("number"), Product: f.Get("product"), Limit: lotsPage + 1}
	if len(filter.Number) > 100 {
		f.Fail("number", "A lot number has at most 100 characters.")
	}
	if len(filter.Product) > 200 {
		f.Fail("product", "Enter at most 200 characters of the product's code or name.")
	}
	if x := f.Get("before"); x != "" {
		id, err := strconv.Atoi(x)
		if err != nil || id <= 0 {
			f.Fail("", "This page's link is damaged; start again from the newest lots.")
		}
		filter.Before = id
	}
	v.Filtered = filter.Number != "" || filter.Product != ""
	v.Paged = filter.Before != 0
	v.Newest = lotsLink(v.Env, f, "")
	if !f.OK() {
		lotsTemplate.render(s, w, r, c, http.StatusBadRequest, "Lots", f, v)
		return
	}
	ctx, err := s.reading(c, v.Env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	rows, err := inventory.ListLots(ctx, s.o.Client, filter)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if len(rows) > lotsPage {
		rows = rows[:lotsPage]
		v.Older = lotsLink(v.Env, f, strconv.Itoa(rows[len(rows)-1].ID))
	}
	v.Rows = make([]lotRow, len(rows))
	for i, l := range rows {
		v.Rows[i] = lotRow{TraceLot: l, Link: lotPath(l.ID, v.Env, "", 0)}
	}
	lotsTemplate.render(s, w, r, c, http.StatusOK, "Lots", f, v)
}

// lotView is the page of one lot and its trace.
type lotView struct {
	Env string
	Lot *inventory.TraceLot
	// Back is the list of the lot's environment; CSV downloads the trace.
	Back, CSV  string
	Directions []choice
	// Trace is nil when the form has errors.
	Trace   *inventory.Trace
	Drawing *drawing
	Recall  recallView
	// Nodes and Edges count the trace's.
	Nodes, Edges int
	// QC is the lot's quality decision, its history and its movements.
	QC qcPanel
	// Unsellable says why the lot may not ship or be consumed now, "" when
	// it may.
	Unsellable string
}

// choice is an option of a select.
type choice struct{ Value, Label string }

// choicesOf are a form's options as the pages list them.
func choicesOf(cs []forms.Choice) []choice {
	out := make([]choice, len(cs))
	for i, c := range cs {
		out[i] = choice(c)
	}
	return out
}

// directions are the direction field's choices.
var directions = []choice{
	{string(inventory.Both), "Both ways"},
	{string(inventory.Backward), "Backward, to suppliers"},
	{string(inventory.Forward), "Forward, to customers"},
}

// lotRequest reads the lot page's path and query: the lot id and its
// environment (not ok when either is not one: 404), and the trace's
// direction and depth (field errors in f, the defaults in their place).
func lotRequest(r *http.Request) (id int, env string, f *form, d inventory.Direction, depth int, ok bool) {
	f = newForm(r.URL.Query())
	id, err := strconv.Atoi(r.PathValue("id"))
	env = f.Get("env")
	if env == "" {
		env = string(policy.Live)
	}
	if err != nil || id <= 0 || (env != string(policy.Live) && env != string(policy.Test)) {
		return 0, "", nil, "", 0, false
	}
	d = inventory.Both
	switch x := inventory.Direction(f.Get("direction")); x {
	case "":
	case inventory.Backward, inventory.Forward, inventory.Both:
		d = x
	default:
		f.Fail("direction", "Choose a direction from the list: both ways, backward or forward.")
	}
	depth = inventory.DefaultTraceDepth
	if x := f.Get("depth"); x != "" {
		n, err := strconv.Atoi(x)
		if err != nil || n < 1 || n > inventory.MaxTraceDepth {
			f.Fail("depth", fmt.Sprintf("Enter a whole number from 1 to %d: the production runs to follow each way.", inventory.MaxTraceDepth))
		} else {
			depth = n
		}
	}
	return id, env, f, d, depth, true
}

func (s *Server) lot(w http.ResponseWriter, r *http.Request, c *caller) {
	s.lotPage(w, r, c, http.StatusOK, nil)
}

// lotPage answers with the lot's page: status for a page whose trace form
// is right, and the quality decision form as sent (nil: the lot's own
// decision in it).
func (s *Server) lotPage(w http.ResponseWriter, r *http.Request, c *caller, status int, qc *form) {
	id, env, f, d, depth, ok := lotRequest(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	// The lot and its trace as of one moment.
	ctx, end := s.o.Snapshot(ctx)
	defer end()
	lot, err := inventory.LotOf(ctx, s.o.Client, id)
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v := lotView{Env: env, Lot: lot, Directions: directions, Back: Prefix + "lots?" + url.Values{"env": {env}}.Encode()}
	if v.QC, err = s.qcPanelOf(ctx, c, lot, env, qc); err != nil {
		s.fail(w, r, c, err)
		return
	}
	v.Unsellable = inventory.Unsellable(&ent.ProductLot{Archived: lot.Archived, ExpirationDate: lot.ExpirationDate,
		QcStatus: productlot.QcStatus(lot.QCStatus), QcReleaseExpiresAt: v.QC.State.ReleaseExpiresAt}, s.o.Now())
	title := "Lot " + lotName(lot)
	if !f.OK() {
		lotTemplate.render(s, w, r, c, http.StatusBadRequest, title, f, v)
		return
	}
	f.values.Set("direction", string(d))
	f.values.Set("depth", strconv.Itoa(depth))
	t, err := inventory.TraceLotOf(ctx, s.o.Client, id, d, depth)
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v.Trace, v.Nodes, v.Edges = t, len(t.Nodes), len(t.Edges)
	v.Drawing = draw(t, env)
	v.Recall = recallOf(t, env)
	v.CSV = Prefix + "lots/" + strconv.Itoa(id) + "/trace.csv?" + url.Values{"env": {env}, "direction": {string(d)}, "depth": {strconv.Itoa(depth)}}.Encode()
	lotTemplate.render(s, w, r, c, status, title, f, v)
}

func (s *Server) lotTraceCSV(w http.ResponseWriter, r *http.Request, c *caller) {
	id, env, f, d, depth, ok := lotRequest(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	if !f.OK() {
		var msgs []string
		for _, k := range []string{"direction", "depth"} {
			if e := f.Error(k); e != "" {
				msgs = append(msgs, e)
			}
		}
		s.showError(w, r, c, http.StatusBadRequest, "The trace cannot be downloaded", strings.Join(msgs, " "))
		return
	}
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	ctx, end := s.o.Snapshot(ctx)
	defer end()
	t, err := inventory.TraceLotOf(ctx, s.o.Client, id, d, depth)
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	var buf bytes.Buffer
	if err := inventory.WriteTraceCSV(&buf, t); err != nil {
		s.fail(w, r, c, err)
		return
	}
	name := "lot-" + strconv.Itoa(id)
	for _, n := range t.Nodes {
		if n.Level == 0 && n.Lot != nil && n.Lot.LotNumber != nil {
			name += "-" + fileSafe(*n.Lot.LotNumber)
		}
	}
	name += "-trace-" + string(d) + ".csv"
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	_, _ = w.Write(buf.Bytes())
}

// fileSafe keeps the letters, digits, dots, dashes and underscores of s
// (ASCII) and makes every other character a dash: a lot number as part of a
// file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '-'
	}, s)
}

// lotName is a lot's number, or says it has none.
func lotName(l *inventory.TraceLot) string {
	if l.LotNumber != nil {
		return *l.LotNumber
	}
	return "(unnumbered) " + strconv.Itoa(l.ID)
}

// productName is a product's code and name as far as known.
func productName(code, name *string) string {
	var parts []string
	if code != nil && *code != "" {
		parts = append(parts, *code)
	}
	if name != nil && *name != "" {
		parts = append(parts, *name)
	}
	return strings.Join(parts, " ")
}

// quantity is a quantity in a unit, when known, its thousands separated
// (275,000 g).
func quantity(q decimal.Decimal, unit *string) string {
	if unit != nil && *unit != "" {
		return grouped(q) + " " + *unit
	}
	return grouped(q)
}

// grouped writes a number with a comma between its thousands, its
// fraction as it is.
func grouped(q decimal.Decimal) string {
	s := q.String()
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// day shows a date (UTC), "—" for none.
func day(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "—"
	}
	return t.UTC().Format(time.DateOnly)
}

// placeName is a lot's location, "—" for none.
func placeName(l *inventory.TraceLot) string {
	if l.LocationCode == nil && l.LocationName == nil {
		return "—"
	}
	return productName(l.LocationCode, l.LocationName)
}

// orDash is s, "—" for nil or empty.
func orDash(s *string) string {
	if s == nil || *s == "" {
		return "—"
	}
	return *s
}

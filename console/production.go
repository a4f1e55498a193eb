package console

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/modules/manufacturing"
	apiproblem "larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
)

// productionRoutes are the production floor: the board of runs by status,
// a run's page, and the actions its status allows.
func (s *Server) productionRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/production", Nav: "Production", Summary: "read the production runs of one environment (live or test) by status: planned, in progress, on hold or in quarantine, recently completed; changes nothing", serve: s.productionBoard},
		{Method: "GET", Path: "/console/production/{id}", Summary: "read one production run: its product, line, lot, dates, planned and consumed steps and output lot; changes nothing", serve: s.productionRun},
		{Method: "POST", Path: "/console/production/{id}/start", Roles: Operators, Summary: "start a planned, held or quarantined production run (IN_PROGRESS)", serve: s.productionStart},
		{Method: "POST", Path: "/console/production/{id}/sign", Roles: Operators, Summary: "sign and lock a completed production run, with the person's password asked again as their signature (audited; a wrong one is signature_failed)", serve: s.productionSign},
	}
}

// boardColumn is a column of the board: the runs of some statuses.
type boardColumn struct {
	Key, Title string
	Statuses   []production.Status
	Runs       []*ent.Production
	// Next and Prev link the column's pages after and before this one,
	// when there are some.
	Next, Prev string
}

// boardColumns are the board's columns, in order.
func boardColumns() []boardColumn {
	return []boardColumn{
		{Key: "planned", Title: "Planned", Statuses: []production.Status{production.StatusPLANNED}},
		{Key: "in_progress", Title: "In progress", Statuses: []production.Status{production.StatusIN_PROGRESS, production.StatusIN_PROGRESS_TRANSFORMATION}},
		{Key: "held", Title: "On hold or in quarantine", Statuses: []production.Status{production.StatusON_HOLD, production.StatusQUARANTINE}},
		{Key: "completed", Title: "Completed", Statuses: []production.Status{production.StatusCOMPLETED}},
		{Key: "cancelled", Title: "Cancelled", Statuses: []production.Status{production.StatusCANCELLED}},
	}
}

// boardPage is the runs a column shows at once.
const boardPage = 50

// runSorts are the board's orders (manufacturing.RunSorts), in words.
var runSorts = []choice{
	{"-id", "Newest first"}, {"id", "Oldest first"},
	{"-production_no", "Run number, highest first"}, {"production_no", "Run number, lowest first"},
	{"-start_date", "Started, latest first"}, {"start_date", "Started, earliest first"},
	{"-end_date", "Completed, latest first"}, {"end_date", "Completed, earliest first"},
	{"status", "Status"},
}

// productionBoardView is the board's own data.
type productionBoardView struct {
	Env      string
	Lines    []choice
	Columns  []boardColumn
	Filtered bool
	// Column is the one column shown, paged, when set; Board links back.
	Column, Board string
	// Cancelled lists the cancelled runs.
	Cancelled string
	Operator  bool
	Sorts     []choice
	// Paged is a page reached by a cursor, not the column's first.
	Paged bool
}

func (s *Server) productionBoard(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	v := productionBoardView{Env: string(policy.Live), Sorts: runSorts}
	if env, ok := planEnv(f); ok {
		v.Env = env
	} else {
		f.Fail("", "Choose the live or the test environment.")
	}
	if len(f.Get("lot")) > 100 {
		f.Fail("lot", "A lot number has at most 100 characters.")
	}
	if len(f.Get("product")) > 200 {
		f.Fail("product", "Enter at most 200 characters of the product's code or name.")
	}
	line, err := strconv.Atoi(f.Get("line"))
	if f.Get("line") != "" && (err != nil || line <= 0) {
		f.Fail("line", "Choose a production line from the list.")
	}
	if x := f.Get("sort"); x != "" && !slices.ContainsFunc(runSorts, func(c choice) bool { return c.Value == x }) {
		f.Fail("sort", "Choose an order from the list.")
	}
	columns := boardColumns()
	if v.Column = f.Get("column"); v.Column != "" {
		i := slices.IndexFunc(columns, func(x boardColumn) bool { return x.Key == v.Column })
		if i < 0 {
			f.Fail("", "The column asked for does not exist; start from the board.")
		} else {
			columns = columns[i : i+1]
		}
	} else {
		// The cancelled are listed only when asked for.
		columns = slices.DeleteFunc(columns, func(x boardColumn) bool { return x.Key == "cancelled" })
	}
	v.Filtered = f.Get("lot") != "" || f.Get("product") != "" || f.Get("line") != "" || f.Get("sort") != ""
	cursor := f.Get("cursor")
	if cursor != "" && v.Column == "" {
		f.Fail("", "This page's link is damaged; start again from the board.")
	}
	v.Paged = cursor != ""
	v.Operator = Route{Roles: Operators}.Allows(c.Me.Person.Role)
	query := url.Values{"env": {v.Env}}
	for _, k := range []string{"lot", "product", "line", "sort"} {
		if x := f.Get(k); x != "" {
			query.Set(k, x)
		}
	}
	v.Board = Prefix + "production?" + query.Encode()
	query.Set("column", "cancelled")
	v.Cancelled = Prefix + "production?" + query.Encode()
	query.Del("column")
	if !f.OK() {
		productionTemplate.render(s, w, r, c, http.StatusBadRequest, "Production", f, v)
		return
	}
	ctx, err := s.reading(c, v.Env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if v.Lines, err = lineChoices(ctx, s.o.Client, "Any line"); err != nil {
		s.fail(w, r, c, err)
		return
	}
	for _, col := range columns {
		page, err := manufacturing.ListRuns(ctx, s.o.Client, manufacturing.RunFilter{Statuses: col.Statuses, Lot: f.Get("lot"),
			Product: f.Get("product"), Line: line, Sort: f.Get("sort"), Cursor: cursor, Limit: boardPage})
		if errors.Is(err, manufacturing.ErrBadCursor) {
			f.Fail("", "This page's link is damaged; start again from the board.")
			productionTemplate.render(s, w, r, c, http.StatusBadRequest, "Production", f, v)
			return
		}
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		link := func(cursor string) string {
			if cursor == "" {
				return ""
			}
			u := maps.Clone(query)
			u.Set("column", col.Key)
			u.Set("cursor", cursor)
			return Prefix + "production?" + u.Encode()
		}
		col.Runs, col.Next, col.Prev = page.Runs, link(page.Next), link(page.Prev)
		v.Columns = append(v.Columns, col)
	}
	title := "Production"
	if v.Column != "" {
		title = "Production: " + strings.ToLower(columns[0].Title)
	}
	productionTemplate.render(s, w, r, c, http.StatusOK, title, f, v)
}

// productionRunView is the page of one run.
type productionRunView struct {
	Env string
	Run *ent.Production
	// OutputLot is the page of the run's output lot, when it has one.
	OutputLot         string
	Back              string
	CanStart, CanSign bool
	// Complete is the completion form's page, when the run can complete.
	Complete string
	Operator bool
	Error    string
	// Sign is the signing form: the password given again, and its error.
	Sign *form
}

// runRequest reads a run page's id and environment; not ok: 404.
func runRequest(r *http.Request) (id int, env string, ok bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	env = r.FormValue("env")
	if env == "" {
		env = string(policy.Live)
	}
	if err != nil || id <= 0 || (env != string(policy.Live) && env != string(policy.Test)) {
		return 0, "", false
	}
	return id, env, true
}

func (s *Server) productionRun(w http.ResponseWriter, r *http.Request, c *caller) {
	id, env, ok := runRequest(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	s.showRun(w, r, c, id, env, http.StatusOK, "", nil)
}

// showRun renders run id of env with status and a form error msg, and the
// signing form sign (nil: an empty one).
func (s *Server) showRun(w http.ResponseWriter, r *http.Request, c *caller, id int, env string, status int, msg string, sign *form) {
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	run, err := manufacturing.RunOf(ctx, s.o.Client, id)
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if sign == nil {
		sign = newForm(url.Values{})
	}
	v := productionRunView{Env: env, Run: run, Error: msg, Sign: sign, Back: Prefix + "production?" + url.Values{"env": {env}}.Encode()}
	for _, rt := range s.productionRoutes() {
		if rt.Method == "POST" {
			v.Operator = rt.Allows(c.Me.Person.Role)
		}
	}
	if run.LotNumber != nil && run.Status == production.StatusCOMPLETED {
		lots, err := s.runLots(r, c, env, *run.LotNumber, run.ProductID)
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		if len(lots) == 1 {
			v.OutputLot = lotPath(lots[0], env, "", 0)
		}
	}
	switch run.Status {
	case production.StatusPLANNED, production.StatusON_HOLD, production.StatusQUARANTINE:
		v.CanStart = !run.Signed
	case production.StatusCOMPLETED:
		v.CanSign = !run.Signed
	}
	if canComplete(run) {
		v.Complete = Prefix + "production/" + strconv.Itoa(run.ID) + "/complete?" + url.Values{"env": {env}}.Encode()
	}
	title := "Production run " + strconv.Itoa(run.ProductionNo)
	productionrunTemplate.render(s, w, r, c, status, title, newForm(url.Values{}), v)
}

// runLots finds the ids of the lots numbered number of product.
func (s *Server) runLots(r *http.Request, c *caller, env, number string, productID int) ([]int, error) {
	ctx, err := s.reading(c, env)
	if err != nil {
		return nil, err
	}
	return manufacturing.OutputLots(ctx, s.o.Client, number, productID)
}

func (s *Server) productionStart(w http.ResponseWriter, r *http.Request, c *caller) {
	s.productionAct(w, r, c, audit.ProductionStarted, func(ctx context.Context, tx *ent.Tx, id int) (*ent.Production, error) {
		return manufacturing.Start(ctx, tx, id, time.Now())
	}, nil)
}

// productionSign signs and locks a completed run once the person has given
// their password again in the form: a wrong one is the form's error at the
// field and nothing changes; the run's audit record carries the signature.
func (s *Server) productionSign(w http.ResponseWriter, r *http.Request, c *caller) {
	id, env, ok := runRequest(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	f := parseForm(w, r)
	if !f.OK() {
		s.showRun(w, r, c, id, env, http.StatusBadRequest, "", f)
		return
	}
	what := map[string]any{"signing": "production_run", "production_id": id, "env": env}
	status, err := s.checkSignature(w, c, f, what)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if status != 0 {
		s.showRun(w, r, c, id, env, status, "", f)
		return
	}
	s.productionAct(w, r, c, audit.ProductionSigned, manufacturing.Sign, signature(c))
}

// productionAct runs a floor action on the run of the path as the signed-in
// person, with its audit record (and the signature that signed it, when
// one did), in one transaction; a refusal is shown on the run's page with
// its 4xx status and nothing is written.
func (s *Server) productionAct(w http.ResponseWriter, r *http.Request, c *caller, action auditrecord.Action, fn func(context.Context, *ent.Tx, int) (*ent.Production, error), signed map[string]any) {
	id, env, ok := runRequest(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	err := s.act(c, env, func(ctx context.Context, tx *ent.Tx) (audit.Entry, error) {
		run, err := fn(ctx, tx, id)
		if err != nil {
			return audit.Entry{}, err
		}
		detail := map[string]any{"production_id": run.ID, "production_no": run.ProductionNo,
			"status": string(run.Status), "signed": run.Signed}
		if signed != nil {
			detail["signature"] = signed
		}
		return audit.Entry{Action: action, Detail: detail}, nil
	})
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return
	}
	var p *apiproblem.Error
	if errors.As(err, &p) {
		s.showRun(w, r, c, id, env, p.Status(), p.Detail, nil)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	http.Redirect(w, r, Prefix+"production/"+strconv.Itoa(id)+"?"+url.Values{"env": {env}}.Encode(), http.StatusSeeOther)
}

package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/inventory"
	apiproblem "larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
)

// qualityRoutes are the quality queue and the quality decision on a lot
// (the lot's page shows the form and the decisions made).
func (s *Server) qualityRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/quality", Nav: "Quality", Summary: "read the quality queue of one environment (live or test): lots ON_HOLD or in QUARANTINE and lots whose release has ended or ends within 7 days, oldest decision first, each linking to its page; changes nothing", serve: s.qualityQueue},
		{Method: "POST", Path: "/console/lots/{id}/qc", Roles: Operators, Summary: "record a quality decision on a lot (AVAILABLE, ON_HOLD, QUARANTINE, RELEASED or REJECTED, a note, a release expiry for RELEASED, and for RELEASED the person's password as their signature), as `larder lot set-qc` does; emits product_lot.qc_status_changed; audited (lot_qc_decided)", serve: s.decideQC},
	}
}

// qcStatuses are the quality statuses a decision chooses from.
var qcStatuses = choicesOf(forms.QCStatuses)

// The lot page's lists are capped at their newest entries.
const (
	qcHistoryShown = 50
	movementsShown = 50
)

// releaseLayout is the release expiry field's format (datetime-local), in
// UTC.
const releaseLayout = forms.ReleaseLayout

// qcPanel is the lot page's quality part: the current decision, the form
// for those who decide, what was decided and the lot's movements.
type qcPanel struct {
	State inventory.QCState
	// Form holds the decision form's values and errors; Action is where it
	// posts. CanDecide is false for roles that only read.
	Form      *form
	Action    string
	CanDecide bool
	Statuses  []choice
	History   []qcRow
	// HistoryTotal and MovesTotal count what the capped lists hold in all.
	HistoryTotal int
	Moves        []moveRow
	MovesTotal   int
}

// qcRow is a decision as the history shows it.
type qcRow struct {
	inventory.QCRecord
	// Who made it, in words.
	Who string
}

// moveRow is a stock movement as the lot page shows it.
type moveRow struct {
	inventory.LotMovement
	Quantity string
	// Document names the record the movement names, in words.
	Document string
	Lots     []lotLink
}

// lotLink is a link to a lot's page.
type lotLink struct{ Name, Link string }

// canDecide reports whether the signed-in person may record quality
// decisions (the POST route's roles).
func canDecide(c *caller) bool { return slices.Contains(Operators, c.Me.Person.Role) }

// qcPanelOf reads the lot's decision, history and movements in ctx (the
// page's snapshot).
func (s *Server) qcPanelOf(ctx context.Context, c *caller, lot *inventory.TraceLot, env string, f *form) (qcPanel, error) {
	p := qcPanel{Form: f, CanDecide: canDecide(c), Statuses: qcStatuses,
		Action: Prefix + "lots/" + strconv.Itoa(lot.ID) + "/qc?" + url.Values{"env": {env}}.Encode()}
	var err error
	if p.State, err = inventory.LotQCOf(ctx, s.o.Client, lot.ID); err != nil {
		return p, err
	}
	if p.Form == nil {
		p.Form = newForm(nil)
		// The current status and release end are where a decision starts;
		// the note is the last decision's reason, not the next one's.
		p.Form.values.Set("status", p.State.Status)
		if p.State.ReleaseExpiresAt != nil {
			p.Form.values.Set("release_expires", p.State.ReleaseExpiresAt.UTC().Format(releaseLayout))
		}
	}
	hist, total, err := inventory.LotQCHistory(ctx, s.o.Client, lot.ID, qcHistoryShown)
	if err != nil {
		return p, err
	}
	p.HistoryTotal = total
	if n := len(hist); n > 0 && hist[n-1].From == "" && hist[n-1].UserID != nil {
		if hist[n-1].From, err = s.qcFromAudit(c, lot.ID, hist[n-1].Status, hist[n-1].At); err != nil {
			return p, err
		}
	}
	names := map[int]string{}
	for _, h := range hist {
		row := qcRow{QCRecord: h, Who: "larder lot set-qc (command line)"}
		if h.UserID != nil {
			name, ok := names[*h.UserID]
			if !ok {
				name, err = s.personName(c, *h.UserID)
				if err != nil {
					return p, err
				}
				names[*h.UserID] = name
			}
			row.Who = name
		} else if h.Source != string(policy.SourceApp) {
			row.Who = "Larder (" + h.Source + ")"
		}
		p.History = append(p.History, row)
	}
	moves, total, err := inventory.LotMovements(ctx, s.o.Client, lot.ID, movementsShown)
	if err != nil {
		return p, err
	}
	p.MovesTotal = total
	for _, m := range moves {
		row := moveRow{LotMovement: m, Quantity: quantity(m.QuantityBase, lot.UnitCode), Document: documentName(m)}
		for _, l := range m.Lots {
			row.Lots = append(row.Lots, lotLink{Name: lotName(l) + " (" + productName(l.ProductCode, l.ProductName) + ")", Link: lotPath(l.ID, env, "", 0)})
		}
		p.Moves = append(p.Moves, row)
	}
	return p, nil
}

// qcFromAudit is the status a lot had before the console's decision of
// status at at,
// as its audit record says (the event of a decision carries the new status
// only, so the oldest decision shown has no event before it to say), ""
// when the newest records of decisions do not hold it.
func (s *Server) qcFromAudit(c *caller, lotID int, status string, at time.Time) (string, error) {
	recs, _, err := audit.Recent(c.ctx, s.o.Client, c.orgID(), audit.Filter{Action: string(audit.LotQCDecided), Limit: audit.MaxPageSize})
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		id, _ := r.Detail["lot_id"].(float64)
		from, _ := r.Detail["from"].(string)
		to, _ := r.Detail["to"].(string)
		// The lot keeps the decision's time to its database's precision.
		if int(id) == lotID && to == status && r.At.Sub(at).Abs() < time.Second {
			return from, nil
		}
	}
	return "", nil
}

// personName names a person of the organization by address; one no longer
// in it by their id.
func (s *Server) personName(c *caller, id int) (string, error) {
	p, err := s.o.People.Get(c.ctx, c.orgID(), id)
	if errors.Is(err, people.ErrNotFound) {
		return "a former member (user " + strconv.Itoa(id) + ")", nil
	}
	if err != nil {
		return "", err
	}
	return p.Email, nil
}

// documentName says which record a movement names.
func documentName(m inventory.LotMovement) string {
	switch {
	case m.Production != nil:
		return "Production run " + strconv.Itoa(m.Production.ProductionNo)
	case m.Bill != nil:
		s := "Bill " + strconv.Itoa(m.Bill.BillNo)
		if m.Bill.SupplierName != nil {
			s += " from " + *m.Bill.SupplierName
		}
		return s
	case m.Shipment != nil:
		s := "Shipment of order " + strconv.Itoa(m.Shipment.SalesOrderNo)
		if m.Shipment.InvoiceNo != nil {
			s += ", invoice " + strconv.Itoa(*m.Shipment.InvoiceNo)
		}
		if m.Shipment.CustomerName != nil {
			s += " to " + *m.Shipment.CustomerName
		}
		return s
	case m.DocumentType == "product_lot" && len(m.Lots) == 0:
		return "This lot, as it was entered"
	case m.DocumentType == "product_lot":
		return "Another lot"
	case m.DocumentType != "":
		return m.DocumentType + " " + strconv.Itoa(m.DocumentID)
	}
	return "—"
}

// decideQC records a quality decision on a lot: the form is read, the
// decision made through inventory.SetLotQC as the person, with its audit
// record, in one transaction; a refusal shows the lot's page with the
// form's errors and changes nothing.
func (s *Server) decideQC(w http.ResponseWriter, r *http.Request, c *caller) {
	id, env, _, _, _, ok := lotRequest(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	f := parseForm(w, r)
	d, errs := forms.ParseQCDecision(f.values)
	if f.OK() {
		f.add(errs)
	}
	if !f.OK() {
		s.lotPage(w, r, c, http.StatusBadRequest, f)
		return
	}
	releasing := d.Status == productlot.QcStatusRELEASED
	if releasing {
		what := map[string]any{"signing": "lot_release", "lot_id": id, "env": env}
		status, err := s.checkSignature(w, c, f, what)
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		if status != 0 {
			s.lotPage(w, r, c, status, f)
			return
		}
	}
	now := s.o.Now()
	var lot *ent.ProductLot
	err := s.act(c, env, func(actx context.Context, tx *ent.Tx) (audit.Entry, error) {
		before, err := tx.ProductLot.Get(actx, id)
		if err != nil {
			return audit.Entry{}, err
		}
		if lot, err = inventory.SetLotQC(actx, tx, id, d, now); err != nil {
			return audit.Entry{}, err
		}
		detail := map[string]any{"lot_id": lot.ID, "lot_number": lot.LotNumber, "from": string(before.QcStatus),
			"to": string(lot.QcStatus), "note": lot.QcStatusNote, "release_expires_at": nil}
		if lot.QcReleaseExpiresAt != nil {
			detail["release_expires_at"] = lot.QcReleaseExpiresAt.UTC().Format(time.RFC3339)
		}
		if releasing {
			detail["signature"] = signature(c)
		}
		// At the decision's time: the lot's history finds the record by it.
		return audit.Entry{Action: audit.LotQCDecided, Detail: detail, At: now}, nil
	})
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return
	}
	if e, ok := apiproblem.As(err); ok {
		switch {
		case len(e.Fields) > 0 && e.Fields[0].Field == "release_expires_at":
			f.Fail("release_expires", "A release expiry applies to RELEASED only: clear it, or choose RELEASED.")
		case e.Code == apiproblem.InvalidState:
			f.Fail("status", fmt.Sprintf("The lot is %s already, with this note and release expiry: change something to record a decision.", d.Status))
		case len(e.Fields) > 0 && e.Fields[0].Field == "status":
			f.Fail("status", "Choose a status from the list.")
		default:
			f.Fail("", e.Detail)
		}
		s.lotPage(w, r, c, e.Status(), f)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, lotPath(id, env, "", 0), fmt.Sprintf("Lot %s is now %s.", lotNumberOr(lot), lot.QcStatus))
}

// lotNumberOr is a lot's number, or its id for the unnumbered lot.
func lotNumberOr(l *ent.ProductLot) string {
	if l.LotNumber != nil {
		return *l.LotNumber
	}
	return "(unnumbered) " + strconv.Itoa(l.ID)
}

// queuePage is the lots the queue shows a page.
const queuePage = 50

// queueView is the quality queue's own data.
type queueView struct {
	Env   string
	Rows  []queueRow
	Paged bool
	// First is the queue's first page, Next the page after this one
	// ("" for none).
	First, Next string
}

// queueRow is a lot of the queue.
type queueRow struct {
	*inventory.QueueLot
	Link string
}

func (s *Server) qualityQueue(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	v := queueView{Env: string(policy.Live)}
	switch env := f.Get("env"); env {
	case "", string(policy.Live):
	case string(policy.Test):
		v.Env = env
	default:
		f.Fail("", "Choose the live or the test environment.")
	}
	link := func(after string) string {
		u := url.Values{"env": {v.Env}}
		if after != "" {
			u.Set("after", after)
		}
		return Prefix + "quality?" + u.Encode()
	}
	v.First = link("")
	filter := inventory.QueueFilter{Now: s.o.Now(), After: f.Get("after"), Limit: queuePage + 1}
	v.Paged = filter.After != ""
	if !f.OK() {
		qualityTemplate.render(s, w, r, c, http.StatusBadRequest, "Quality queue", f, v)
		return
	}
	ctx, err := s.reading(c, v.Env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	rows, err := inventory.QualityQueue(ctx, s.o.Client, filter)
	if errors.Is(err, inventory.ErrBadCursor) {
		f.Fail("", "This page's link is damaged; start again from the first page of the queue.")
		qualityTemplate.render(s, w, r, c, http.StatusBadRequest, "Quality queue", f, v)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if len(rows) > queuePage {
		rows = rows[:queuePage]
		v.Next = link(inventory.QueueCursor(rows[len(rows)-1]))
	}
	for _, l := range rows {
		v.Rows = append(v.Rows, queueRow{QueueLot: l, Link: lotPath(l.ID, v.Env, "", 0)})
	}
	qualityTemplate.render(s, w, r, c, http.StatusOK, "Quality queue", f, v)
}

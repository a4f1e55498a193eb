package inventory

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/bill"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/shipment"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/policy"
)

// QCState is a lot's quality decision as the lot holds it now.
type QCState struct {
	Status string
	// At is when it was decided; nil for a lot never decided on.
	At   *time.Time
	Note *string
	// ReleaseExpiresAt ends a release; nil for none.
	ReleaseExpiresAt *time.Time
}

// LotQCOf is the current quality decision on the lot id of the viewer's
// account in ctx; a lot of another account is not found.
func LotQCOf(ctx context.Context, c *ent.Client, id int) (QCState, error) {
	l, err := c.ProductLot.Get(ctx, id)
	if err != nil {
		return QCState{}, err
	}
	return QCState{Status: string(l.QcStatus), At: l.QcStatusAt, Note: l.QcStatusNote, ReleaseExpiresAt: l.QcReleaseExpiresAt}, nil
}

// QCRecord is one quality decision on a lot, as its
// product_lot.qc_status_changed event reports it. Every decision emits one
// (SetLotQC, whoever calls it: the console or `larder lot set-qc`), in the
// transaction of the change; the event log keeps it for the dispatcher's
// retention (webhooks.EventRetention after its dispatch).
type QCRecord struct {
	EventID string
	// At is when the decision was made (the lot's qc_status_at).
	At time.Time
	// From is the status before, "" when no earlier decision is kept.
	From             string
	Status           string
	Note             *string
	ReleaseExpiresAt *time.Time
	// Source is what made it (app for the console and the CLI); UserID the
	// person signed in to the console, nil for the CLI.
	Source string
	UserID *int
}

// qcSnapshot is what a decision's event snapshot says of it.
type qcSnapshot struct {
	Status           string     `json:"qc_status"`
	At               *time.Time `json:"qc_status_at"`
	Note             *string    `json:"qc_status_note"`
	ReleaseExpiresAt *time.Time `json:"qc_release_expires_at"`
}

// QCStatusChanged is the type of the event every quality decision emits.
const QCStatusChanged = "product_lot.qc_status_changed"

// LotQCHistory lists the quality decisions on the lot id of the viewer's
// account in ctx, newest first: at most limit of them (all when 0), and
// how many the event log keeps. A lot of another account is not found.
func LotQCHistory(ctx context.Context, c *ent.Client, id, limit int) ([]QCRecord, int, error) {
	if limit < 0 {
		return nil, 0, fmt.Errorf("quality history: limit must not be negative")
	}
	v := policy.FromContext(ctx)
	if v == nil || v.AccountID == 0 {
		return nil, 0, fmt.Errorf("quality history: the viewer must be an account's")
	}
	// The lot through the account's policy: another account's is not found.
	if _, err := c.ProductLot.Get(ctx, id); err != nil {
		return nil, 0, err
	}
	// System viewer: events are system-only; these are the viewer's own account's events of a lot it just read.
	sys := policy.System(ctx)
	q := func() *ent.EventQuery {
		return c.Event.Query().Where(event.AccountID(v.AccountID), event.ResourceType("product_lot"),
			event.ResourceID(id), event.Type(QCStatusChanged))
	}
	total, err := q().Count(sys)
	if err != nil {
		return nil, 0, err
	}
	evq := q().Order(event.ByID(sql.OrderDesc()))
	if limit > 0 {
		// One more: the status before the oldest one shown.
		evq.Limit(limit + 1)
	}
	evs, err := evq.All(sys)
	if err != nil {
		return nil, 0, err
	}
	out := make([]QCRecord, 0, len(evs))
	for _, ev := range evs {
		var s qcSnapshot
		if err := json.Unmarshal(ev.Snapshot, &s); err != nil {
			return nil, 0, fmt.Errorf("quality history: event %s: %w", ev.EventID, err)
		}
		r := QCRecord{EventID: ev.EventID, At: ev.CreatedAt, Status: s.Status, Note: s.Note,
			ReleaseExpiresAt: s.ReleaseExpiresAt, Source: string(ev.Source), UserID: ev.UserID}
		if s.At != nil {
			r.At = *s.At
		}
		if n := len(out); n > 0 {
			out[n-1].From = r.Status
		}
		out = append(out, r)
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, total, nil
}

// LotMovement is a stock movement of a lot with the record it names.
type LotMovement struct {
	ID           int
	Type         string
	QuantityBase decimal.Decimal // signed, in the product's base unit
	At           time.Time
	// Source is what made it: api, app or system.
	Source string
	// DocumentType and DocumentID name the record that caused it
	// (product_lot, bill, production, shipment); empty for none.
	DocumentType string
	DocumentID   int
	// The document's record, the one its type names, when the account
	// holds it.
	Production *TraceProduction
	Bill       *TraceBill
	Shipment   *TraceShipment
	// Lots are the lots on the other side of the movement: for a run's
	// consumption its outputs, for a run's output what it consumed, and
	// the lot a product_lot document names when that is another lot.
	Lots []*TraceLot
}

// LotMovements lists the stock movements of the lot id of the viewer's
// account in ctx, newest first: at most limit (all when 0), and how many it
// has. A lot of another account is not found.
func LotMovements(ctx context.Context, c *ent.Client, id, limit int) ([]LotMovement, int, error) {
	if limit < 0 {
		return nil, 0, fmt.Errorf("movements: limit must not be negative")
	}
	if _, err := c.ProductLot.Get(ctx, id); err != nil {
		return nil, 0, err
	}
	total, err := c.StockMovement.Query().Where(stockmovement.LotID(id)).Count(ctx)
	if err != nil {
		return nil, 0, err
	}
	q := c.StockMovement.Query().Where(stockmovement.LotID(id)).Order(stockmovement.ByID(sql.OrderDesc()))
	if limit > 0 {
		q.Limit(limit)
	}
	ms, err := q.All(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]LotMovement, len(ms))
	docs := map[string][]int{}
	for i, m := range ms {
		out[i] = LotMovement{ID: m.ID, Type: string(m.Type), QuantityBase: m.QuantityBase, At: m.CreatedAt, Source: string(m.Source)}
		if m.DocumentType != nil && m.DocumentID != nil {
			out[i].DocumentType, out[i].DocumentID = *m.DocumentType, *m.DocumentID
			docs[*m.DocumentType] = append(docs[*m.DocumentType], *m.DocumentID)
		}
	}
	runs := map[int]*TraceProduction{}
	if ids := docs["production"]; len(ids) > 0 {
		ps, err := c.Production.Query().Where(production.IDIn(uniq(ids)...)).All(ctx)
		if err != nil {
			return nil, 0, err
		}
		for _, p := range ps {
			tp := &TraceProduction{ID: p.ID, ProductionNo: p.ProductionNo, Status: string(p.Status), LotNumber: p.LotNumber,
				StartDate: p.StartDate, EndDate: p.EndDate}
			if p.ProductID != 0 {
				tp.ProductID = &p.ProductID
			}
			runs[p.ID] = tp
		}
	}
	bills := map[int]*TraceBill{}
	if ids := docs["bill"]; len(ids) > 0 {
		bs, err := c.Bill.Query().Where(bill.IDIn(uniq(ids)...)).WithSupplier().All(ctx)
		if err != nil {
			return nil, 0, err
		}
		for _, x := range bs {
			tb := &TraceBill{ID: x.ID, BillNo: x.BillNo, BillDate: x.BillDate, SupplierID: x.SupplierID,
				SupplierReference: x.SupplierReference, IsCancelled: x.IsCancelled}
			if x.Edges.Supplier != nil {
				tb.SupplierName = x.Edges.Supplier.Company
			}
			bills[x.ID] = tb
		}
	}
	ships := map[int]*TraceShipment{}
	if ids := docs["shipment"]; len(ids) > 0 {
		ss, err := c.Shipment.Query().Where(shipment.IDIn(uniq(ids)...)).
			WithSalesOrder(func(q *ent.SalesOrderQuery) { q.WithCustomer() }).WithInvoice().All(ctx)
		if err != nil {
			return nil, 0, err
		}
		for _, x := range ss {
			ts := &TraceShipment{ID: x.ID, ShipDate: x.ShipDate, TrackingNumber: x.TrackingNumber, SalesOrderID: x.SalesOrderID, InvoiceID: x.InvoiceID}
			if o := x.Edges.SalesOrder; o != nil {
				ts.SalesOrderNo, ts.CustomerID = o.SalesOrderNo, o.CustomerID
				if cu := o.Edges.Customer; cu != nil {
					ts.CustomerName = cu.Company
				}
			}
			if inv := x.Edges.Invoice; inv != nil {
				ts.InvoiceNo = &inv.InvoiceNo
			}
			ships[x.ID] = ts
		}
	}
	// The other side of each run's movements: its outputs for a
	// consumption, its consumptions for an output.
	other := map[string][]int{} // "production-<id>-<type>" → lot ids
	lotIDs := []int{}
	if ids := docs["production"]; len(ids) > 0 {
		rms, err := c.StockMovement.Query().
			Where(stockmovement.DocumentType("production"), stockmovement.DocumentIDIn(uniq(ids)...),
				stockmovement.TypeIn(stockmovement.TypePRODUCTION_CONSUMPTION, stockmovement.TypePRODUCTION_OUTPUT)).
			Order(stockmovement.ByID()).All(ctx)
		if err != nil {
			return nil, 0, err
		}
		for _, m := range rms {
			k := "production-" + strconv.Itoa(*m.DocumentID) + "-" + string(m.Type)
			if !containsInt(other[k], m.LotID) {
				other[k] = append(other[k], m.LotID)
				lotIDs = append(lotIDs, m.LotID)
			}
		}
	}
	for _, id := range docs["product_lot"] {
		lotIDs = append(lotIDs, id)
	}
	lots := map[int]*TraceLot{}
	if len(lotIDs) > 0 {
		ls, err := c.ProductLot.Query().Where(productlot.IDIn(uniq(lotIDs)...)).All(ctx)
		if err != nil {
			return nil, 0, err
		}
		tls, err := traceLots(ctx, c, ls)
		if err != nil {
			return nil, 0, err
		}
		for _, tl := range tls {
			lots[tl.ID] = tl
		}
	}
	for i := range out {
		m := &out[i]
		switch m.DocumentType {
		case "production":
			m.Production = runs[m.DocumentID]
			side := stockmovement.TypePRODUCTION_OUTPUT
			if m.Type == string(stockmovement.TypePRODUCTION_OUTPUT) {
				side = stockmovement.TypePRODUCTION_CONSUMPTION
			}
			for _, l := range other["production-"+strconv.Itoa(m.DocumentID)+"-"+string(side)] {
				if tl := lots[l]; tl != nil && l != id {
					m.Lots = append(m.Lots, tl)
				}
			}
		case "bill":
			m.Bill = bills[m.DocumentID]
		case "shipment":
			m.Shipment = ships[m.DocumentID]
		case "product_lot":
			if tl := lots[m.DocumentID]; tl != nil && m.DocumentID != id {
				m.Lots = append(m.Lots, tl)
			}
		}
	}
	return out, total, nil
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// QueueLot is a lot of the quality queue: what it holds, its decision, and
// for a release whether it has ended or ends soon.
type QueueLot struct {
	*TraceLot
	QC QCState
	// ReleaseExpired is true for a release that has ended;
	// ReleaseExpiring for one that ends within the queue's window.
	ReleaseExpired, ReleaseExpiring bool
}

// ReleaseWindow is how soon a release's end puts its lot in the quality
// queue.
const ReleaseWindow = 7 * 24 * time.Hour

// QueueFilter pages the quality queue.
type QueueFilter struct {
	// Now is the time releases are judged at.
	Now time.Time
	// After is the cursor of the previous page's last lot (QueueCursor);
	// empty for the first page.
	After string
	// Limit is the number of lots; 0 means all.
	Limit int
}

// QueueCursor is the cursor of the queue's page after l.
func QueueCursor(l *QueueLot) string {
	at := "-"
	if l.QC.At != nil {
		at = l.QC.At.UTC().Format(time.RFC3339Nano)
	}
	return at + "_" + strconv.Itoa(l.ID)
}

// ErrBadCursor is a queue cursor that is none.
var ErrBadCursor = fmt.Errorf("quality queue: the cursor is not one")

// QualityQueue lists the lots of the viewer's account in ctx that wait for
// a quality decision: those ON_HOLD or in QUARANTINE, and those RELEASED
// whose release has ended or ends within ReleaseWindow of f.Now; the
// oldest decision first (a lot never decided on before any), then by id.
func QualityQueue(ctx context.Context, c *ent.Client, f QueueFilter) ([]*QueueLot, error) {
	if f.Limit < 0 {
		return nil, fmt.Errorf("quality queue: limit must not be negative")
	}
	q := c.ProductLot.Query().Where(productlot.Or(
		productlot.QcStatusIn(productlot.QcStatusON_HOLD, productlot.QcStatusQUARANTINE),
		productlot.And(productlot.QcStatusEQ(productlot.QcStatusRELEASED), productlot.QcReleaseExpiresAtLTE(f.Now.Add(ReleaseWindow))),
	))
	if f.After != "" {
		p, err := afterCursor(f.After)
		if err != nil {
			return nil, err
		}
		q.Where(p)
	}
	q.Order(productlot.ByQcStatusAt(sql.OrderNullsFirst()), productlot.ByID())
	if f.Limit > 0 {
		q.Limit(f.Limit)
	}
	ls, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	tls, err := traceLots(ctx, c, ls)
	if err != nil {
		return nil, err
	}
	out := make([]*QueueLot, len(ls))
	for i, l := range ls {
		ql := &QueueLot{TraceLot: tls[i], QC: QCState{Status: string(l.QcStatus), At: l.QcStatusAt, Note: l.QcStatusNote, ReleaseExpiresAt: l.QcReleaseExpiresAt}}
		if l.QcStatus == productlot.QcStatusRELEASED && l.QcReleaseExpiresAt != nil {
			ql.ReleaseExpired = !l.QcReleaseExpiresAt.After(f.Now)
			ql.ReleaseExpiring = !ql.ReleaseExpired
		}
		out[i] = ql
	}
	return out, nil
}

// afterCursor is the queue's lots after a cursor, in its order.
func afterCursor(s string) (predicate.ProductLot, error) {
	at, idText, ok := strings.Cut(s, "_")
	id, err := strconv.Atoi(idText)
	if !ok || err != nil || id <= 0 {
		return nil, ErrBadCursor
	}
	if at == "-" {
		return productlot.Or(productlot.QcStatusAtNotNil(), productlot.And(productlot.QcStatusAtIsNil(), productlot.IDGT(id))), nil
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return nil, ErrBadCursor
	}
	return productlot.Or(productlot.QcStatusAtGT(t), productlot.And(productlot.QcStatusAt(t), productlot.IDGT(id))), nil
}

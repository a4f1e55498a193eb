package inventory

import (
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"larder.dev/larder/internal/platform/csvcell"
)

// TraceCSVHeader names the columns of WriteTraceCSV: the key data elements
// of FSMA 204's sortable spreadsheet, one row per critical tracking event.
var TraceCSVHeader = []string{
	"event", "date", "traceability_lot_code", "lot_id", "product_code", "product_description",
	"quantity", "unit_of_measure", "location", "reference_document_type", "reference_document_number",
	"party", "level",
}

// WriteTraceCSV writes a trace as FSMA 204's sortable spreadsheet: one row
// per edge, each a critical tracking event of a lot — receiving (a bill),
// transformation input and output (a production run), shipping (a
// shipment), or the origin that is no document (creation, correction,
// adjustment, count) — in order of date, then of the trace. The date is the
// document's own (bill date, run end, ship date) where it has one, else the
// movement's; the quantity is in the product's base unit.
func WriteTraceCSV(w io.Writer, t *Trace) error {
	byID := make(map[string]*Node, len(t.Nodes))
	for i := range t.Nodes {
		byID[t.Nodes[i].ID] = &t.Nodes[i]
	}
	type row struct {
		at   time.Time
		cols []string
	}
	var rows []row
	for _, e := range t.Edges {
		from, to := byID[e.From], byID[e.To]
		lot, other := from, to
		if to.Kind == NodeLot {
			lot, other = to, from
		}
		l := lot.Lot
		if l == nil {
			continue
		}
		at := e.Date
		var event, docType, docNo, party string
		switch other.Kind {
		case NodeBill:
			event, docType, docNo = "receiving", "bill", strconv.Itoa(other.Bill.BillNo)
			if other.Bill.SupplierReference != nil {
				docNo += " (supplier reference " + *other.Bill.SupplierReference + ")"
			}
			party = text(other.Bill.SupplierName)
			at = other.Bill.BillDate
		case NodeProduction:
			// Inputs and output share the transformation's date: the run's
			// end, when it completed.
			event, docType, docNo = "transformation input", "production run", strconv.Itoa(other.Production.ProductionNo)
			if lot == to {
				event = "transformation output"
			}
			if other.Production.EndDate != nil {
				at = *other.Production.EndDate
			}
		case NodeShipment:
			s := other.Shipment
			event, docType = "shipping", "invoice"
			if s.InvoiceNo != nil {
				docNo = strconv.Itoa(*s.InvoiceNo)
			} else {
				docType, docNo = "sales order", strconv.Itoa(s.SalesOrderNo)
			}
			party = text(s.CustomerName)
			if s.ShipDate != nil {
				at = *s.ShipDate
			}
		case NodeOrigin:
			event = "origin: " + string(other.Origin.Kind)
			docType = other.Origin.Source
		}
		loc := strings.TrimSpace(text(l.LocationCode) + " " + text(l.LocationName))
		rows = append(rows, row{at: at, cols: []string{
			event, at.UTC().Format(time.DateOnly), text(l.LotNumber), strconv.Itoa(l.ID), text(l.ProductCode), text(l.ProductName),
			e.QuantityBase.String(), text(l.UnitCode), loc, docType, docNo, party, strconv.Itoa(other.Level),
		}})
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Compare(a.at.UTC().Format(time.DateOnly), b.at.UTC().Format(time.DateOnly))
	})
	cw := csvcell.NewWriter(w)
	if err := cw.Write(TraceCSVHeader); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(r.cols); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

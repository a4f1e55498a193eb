package handlers

import (
	"context"
	"time"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/openapi/oas"
)

// TraceProductLot answers a lot's trace (inventory.TraceLotOf), its
// statements read in one snapshot: the graph and its records as of one
// moment, whatever commits meanwhile.
func (h *Handler) TraceProductLot(ctx context.Context, p oas.TraceProductLotParams) (*oas.ProductLotTraceData, error) {
	ctx, end := h.snapshot(ctx)
	defer end()
	t, err := inventory.TraceLotOf(ctx, h.client, p.LotID, inventory.Direction(p.Direction.Or(oas.TraceDirectionBoth)), p.Depth.Or(inventory.DefaultTraceDepth))
	if err != nil {
		return nil, err
	}
	return &oas.ProductLotTraceData{Data: *ProductLotTraceOf(t)}, nil
}

// ProductLotTraceOf is a trace as the API answers it (the data member of
// GET /v1/product-lots/{lot_id}/trace); `larder lot trace` prints the same.
func ProductLotTraceOf(t *inventory.Trace) *oas.ProductLotTrace {
	out := &oas.ProductLotTrace{
		LotID:     t.LotID,
		Direction: oas.TraceDirection(t.Direction),
		Depth:     t.Depth,
		Truncated: t.Truncated,
		Nodes:     make([]oas.TraceNode, 0, len(t.Nodes)),
		Edges:     make([]oas.TraceEdge, 0, len(t.Edges)),
		Recall: oas.TraceRecall{
			Lots:      make([]oas.TraceLot, 0, len(t.Recall.Lots)),
			Customers: make([]oas.RecallCustomer, 0, len(t.Recall.Customers)),
			Suppliers: make([]oas.RecallSupplier, 0, len(t.Recall.Suppliers)),
		},
	}
	for _, n := range t.Nodes {
		on := oas.TraceNode{ID: n.ID, Kind: oas.TraceNodeKind(n.Kind), Level: n.Level}
		on.Lot.SetToNull()
		on.Production.SetToNull()
		on.Bill.SetToNull()
		on.Shipment.SetToNull()
		on.Origin.SetToNull()
		switch {
		case n.Lot != nil:
			on.Lot.SetTo(traceLot(n.Lot))
		case n.Production != nil:
			p := n.Production
			on.Production.SetTo(oas.TraceProduction{ID: p.ID, ProductionNo: p.ProductionNo, Status: oas.ProductionStatus(p.Status),
				ProductID: nilInt(p.ProductID), LotNumber: nilString(p.LotNumber), StartDate: nilDateTime(p.StartDate), EndDate: nilDateTime(p.EndDate)})
		case n.Bill != nil:
			b := n.Bill
			on.Bill.SetTo(oas.TraceBill{ID: b.ID, BillNo: b.BillNo, BillDate: b.BillDate.UTC(), SupplierID: b.SupplierID,
				SupplierName: nilString(b.SupplierName), SupplierReference: nilString(b.SupplierReference), IsCancelled: b.IsCancelled})
		case n.Shipment != nil:
			s := n.Shipment
			on.Shipment.SetTo(oas.TraceShipment{ID: s.ID, ShipDate: nilDate(s.ShipDate), TrackingNumber: nilString(s.TrackingNumber),
				SalesOrderID: s.SalesOrderID, SalesOrderNo: s.SalesOrderNo, InvoiceID: nilInt(s.InvoiceID), InvoiceNo: nilInt(s.InvoiceNo),
				CustomerID: s.CustomerID, CustomerName: nilString(s.CustomerName)})
		case n.Origin != nil:
			on.Origin.SetTo(oas.TraceOrigin{Kind: oas.TraceOriginKind(n.Origin.Kind), Source: oas.TraceSource(n.Origin.Source), At: n.Origin.At.UTC()})
		}
		out.Nodes = append(out.Nodes, on)
	}
	for _, e := range t.Edges {
		out.Edges = append(out.Edges, oas.TraceEdge{From: e.From, To: e.To, QuantityBase: bounds.NewDecimal(e.QuantityBase), Date: e.Date.UTC()})
	}
	for _, l := range t.Recall.Lots {
		out.Recall.Lots = append(out.Recall.Lots, traceLot(l))
	}
	for _, c := range t.Recall.Customers {
		oc := oas.RecallCustomer{CustomerID: c.CustomerID, CustomerName: nilString(c.CustomerName), Shipments: make([]oas.RecallShipment, 0, len(c.Shipments))}
		for _, s := range c.Shipments {
			os := oas.RecallShipment{ShipmentID: s.Shipment.ID, ShipDate: nilDate(s.Shipment.ShipDate), SalesOrderID: s.Shipment.SalesOrderID,
				SalesOrderNo: s.Shipment.SalesOrderNo, InvoiceID: nilInt(s.Shipment.InvoiceID), InvoiceNo: nilInt(s.Shipment.InvoiceNo),
				Lots: make([]oas.RecallQuantity, 0, len(s.Lots))}
			for _, q := range s.Lots {
				os.Lots = append(os.Lots, oas.RecallQuantity{LotID: q.Lot.ID, LotNumber: nilString(q.Lot.LotNumber), ProductID: q.Lot.ProductID,
					ProductName: nilString(q.Lot.ProductName), QuantityBase: bounds.NewDecimal(q.QuantityBase)})
			}
			oc.Shipments = append(oc.Shipments, os)
		}
		out.Recall.Customers = append(out.Recall.Customers, oc)
	}
	for _, s := range t.Recall.Suppliers {
		osup := oas.RecallSupplier{SupplierID: s.SupplierID, SupplierName: nilString(s.SupplierName), Lots: make([]oas.RecallReceipt, 0, len(s.Lots))}
		for _, r := range s.Lots {
			osup.Lots = append(osup.Lots, oas.RecallReceipt{BillID: r.Bill.ID, BillNo: r.Bill.BillNo, BillDate: r.Bill.BillDate.UTC(),
				SupplierReference: nilString(r.Bill.SupplierReference), LotID: r.Lot.ID, LotNumber: nilString(r.Lot.LotNumber),
				ProductID: r.Lot.ProductID, ProductName: nilString(r.Lot.ProductName), QuantityBase: bounds.NewDecimal(r.QuantityBase)})
		}
		out.Recall.Suppliers = append(out.Recall.Suppliers, osup)
	}
	return out
}

func traceLot(l *inventory.TraceLot) oas.TraceLot {
	return oas.TraceLot{ID: l.ID, ProductID: l.ProductID, ProductCode: nilString(l.ProductCode), ProductName: nilString(l.ProductName),
		UnitCode: nilString(l.UnitCode), LotNumber: nilString(l.LotNumber), ExpirationDate: nilDateTime(l.ExpirationDate),
		QcStatus: oas.ProductLotQcStatus(l.QCStatus), QuantityBase: bounds.NewDecimal(l.QuantityBase), LocationID: nilInt(l.LocationID),
		LocationCode: nilString(l.LocationCode), LocationName: nilString(l.LocationName), Archived: l.Archived}
}

func nilString(s *string) (out oas.NilString) {
	if s == nil {
		out.SetToNull()
	} else {
		out.SetTo(*s)
	}
	return out
}

func nilInt(n *int) (out oas.NilInt) {
	if n == nil {
		out.SetToNull()
	} else {
		out.SetTo(*n)
	}
	return out
}

func nilDateTime(t *time.Time) (out oas.NilDateTime) {
	if t == nil {
		out.SetToNull()
	} else {
		out.SetTo(t.UTC())
	}
	return out
}

func nilDate(t *time.Time) (out oas.NilDate) {
	if t == nil {
		out.SetToNull()
	} else {
		out.SetTo(t.UTC())
	}
	return out
}

package inventory_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/internal/modules/inventory"
)

// The trace's spreadsheet never holds a formula: a supplier name, lot
// number or product name beginning with =, +, -, @, a tab or a carriage
// return is written behind a single quote.
func TestTraceCSVCellsAreNeverFormulas(t *testing.T) {
	s := func(v string) *string { return &v }
	day := time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)
	tr := &inventory.Trace{
		Nodes: []inventory.Node{
			{ID: "lot-1", Kind: inventory.NodeLot, Lot: &inventory.TraceLot{ID: 1, LotNumber: s("-LOT1"), ProductCode: s("@FLOUR"), ProductName: s("\tFlour"), UnitCode: s("g"), LocationCode: s("+A1")}},
			{ID: "bill-2", Kind: inventory.NodeBill, Level: -1, Bill: &inventory.TraceBill{ID: 2, BillNo: 7, BillDate: day, SupplierName: s("=HYPERLINK(\"http://evil.example\",\"Mill\")"), SupplierReference: s("\rPM")}},
		},
		Edges: []inventory.Edge{{From: "bill-2", To: "lot-1", QuantityBase: decimal.NewFromInt(50000), Date: day}},
	}
	var b bytes.Buffer
	if err := inventory.WriteTraceCSV(&b, tr); err != nil {
		t.Fatal(err)
	}
	want := "event,date,traceability_lot_code,lot_id,product_code,product_description,quantity,unit_of_measure,location,reference_document_type,reference_document_number,party,level\n" +
		"receiving,2026-11-06,'-LOT1,1,'@FLOUR,'\tFlour,50000,g,'+A1,bill,\"7 (supplier reference \rPM)\",\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"Mill\"\")\",-1\n"
	if got := b.String(); got != want {
		t.Fatalf("trace CSV\n got %q\nwant %q", got, want)
	}
}

package seed

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/location"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/ent/purchaseorder"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/modules/purchasing"
)

// orderLine is a seeded purchase order or bill line: a quantity of a product
// in its purchase unit at a cost; bills also name the lot, where it goes and
// when it expires (days from the seeding day).
type orderLine struct {
	code, qty, cost, discount string
	lot, site, area           string
	expires                   int
}

// oatsExpiry is the expiry of the oats lot OA-2610-03 (days from the seeding
// day), which the bill topping it up repeats: a bill line's differing expiry
// is refused (LOT_EXPIRY_MISMATCH).
const oatsExpiry = 242

// seedRefs looks up the seeded rows purchasing documents name.
type seedRefs struct {
	ctx context.Context
	tx  *ent.Tx
}

func (r seedRefs) supplier(code string) (int, error) {
	return r.tx.Supplier.Query().Where(supplier.SupplierCode(code)).OnlyID(r.ctx)
}

func (r seedRefs) product(code string) (int, error) {
	return r.tx.Product.Query().Where(entproduct.ProductCode(code)).OnlyID(r.ctx)
}

func (r seedRefs) area(site, code string) (*int, error) {
	if site == "" {
		return nil, nil
	}
	id, err := r.tx.Location.Query().Where(location.Path(site + "/" + code)).OnlyID(r.ctx)
	return &id, err
}

func dec(s string) *decimal.Decimal {
	if s == "" {
		return nil
	}
	d := decimal.RequireFromString(s)
	return &d
}

// seededOrders are purchase orders in every status, each with the moves that
// take it there from OPEN (docs/api-behaviour.md, "Resources", Purchase
// orders), ordered and expected days from the seeding day: the open ones are
// expected in the days to come, the back order is overdue.
var seededOrders = []struct {
	supplier       string
	date, expected int
	reference      string
	moves          []purchaseorder.Status
	lines          []orderLine
}{
	{"MILL", -2, 12, "", nil, []orderLine{{code: "RM-FLOUR", qty: "40", cost: "21.75"}, {code: "RM-OATS", qty: "10", cost: "32.40"}}},
	{"SWEET", -3, 8, "SW-2211", []purchaseorder.Status{purchaseorder.StatusSENT},
		[]orderLine{{code: "RM-SUGAR", qty: "500", cost: "1.18"}, {code: "RM-BROWN", qty: "200", cost: "1.42", discount: "5"}}},
	{"DAIRY", -8, 6, "LC-0931", []purchaseorder.Status{purchaseorder.StatusCONFIRMED},
		[]orderLine{{code: "RM-BUTTER", qty: "6", cost: "162.50"}, {code: "RM-EGG", qty: "4", cost: "58.20"}}},
	{"NUTS", -15, -1, "", []purchaseorder.Status{purchaseorder.StatusCONFIRMED, purchaseorder.StatusBACK_ORDER},
		[]orderLine{{code: "RM-ALMOND", qty: "50", cost: "14.95"}, {code: "RM-HAZEL", qty: "25", cost: "17.30"}}},
	{"OATS", -23, -16, "POC-7781", []purchaseorder.Status{purchaseorder.StatusCONFIRMED, purchaseorder.StatusRECEIVED},
		[]orderLine{{code: "RM-OATS", qty: "8", cost: "32.40"}}},
	{"PACK", -37, -30, "NP-55120", []purchaseorder.Status{purchaseorder.StatusCONFIRMED, purchaseorder.StatusRECEIVED, purchaseorder.StatusCLOSED},
		[]orderLine{{code: "PK-BOX12", qty: "5000", cost: "0.34"}, {code: "PK-CASE", qty: "500", cost: "0.88"}}},
	{"HONEY", -10, 4, "", []purchaseorder.Status{purchaseorder.StatusCANCELLED},
		[]orderLine{{code: "RM-HONEY", qty: "120", cost: "6.90"}}},
}

// seedPurchaseOrders records the orders above through the purchasing
// workflow, so they hold what the API would have written.
func seedPurchaseOrders(ctx context.Context, tx *ent.Tx, cal calendar) error {
	r := seedRefs{ctx, tx}
	for _, o := range seededOrders {
		sup, err := r.supplier(o.supplier)
		if err != nil {
			return fmt.Errorf("supplier %s: %w", o.supplier, err)
		}
		lines := make([]*ent.PurchaseOrderLineCreate, len(o.lines))
		for i, l := range o.lines {
			pid, err := r.product(l.code)
			if err != nil {
				return fmt.Errorf("product %s: %w", l.code, err)
			}
			lines[i] = tx.PurchaseOrderLine.Create().SetProductID(pid).SetQuantity(*dec(l.qty)).
				SetNillableCost(dec(l.cost)).SetNillableDiscountRate(dec(l.discount))
		}
		b := tx.PurchaseOrder.Create().SetSupplierID(sup).
			SetOrderDate(cal.day(o.date)).SetExpectedDate(cal.day(o.expected)).
			SetNillableSupplierReference(optional(o.reference))
		if err := purchasing.PrepareOrder(ctx, tx, b.Mutation(), lines, nil); err != nil {
			return err
		}
		po, err := b.Save(ctx)
		if err != nil {
			return err
		}
		for _, l := range lines {
			l.SetPurchaseOrderID(po.ID)
		}
		if err := tx.PurchaseOrderLine.CreateBulk(lines...).Exec(ctx); err != nil {
			return err
		}
		for _, to := range o.moves {
			// Received on the day expected, not the day seeded.
			if _, err := purchasing.ChangeOrderStatusOn(ctx, tx, po.ID, to, cal.day(o.expected)); err != nil {
				return fmt.Errorf("order for %s to %s: %w", o.supplier, to, err)
			}
		}
	}
	return nil
}

// seededBills receive into new lots and top up a seeded one, at the
// products' own costs (so that the seeded costs stay as the catalog gives
// them); the last is cancelled. The first bills the RECEIVED order. Dates are
// days from the seeding day.
var seededBills = []struct {
	supplier  string
	date      int
	reference string
	order     string // the supplier of the order billed
	cancelled bool
	lines     []orderLine
}{
	{"OATS", -16, "POC-INV-3391", "OATS", false, []orderLine{
		{code: "RM-OATS", qty: "5", cost: "32.40", lot: "OA-2610-03", site: "MAIN", area: "RECEIVING", expires: oatsExpiry},
		{code: "RM-OATS", qty: "3", cost: "32.40", lot: "OA-2610-03", site: "MAIN", area: "RECEIVING", expires: oatsExpiry},
	}},
	{"SWEET", -4, "SW-INV-1208", "", false, []orderLine{
		{code: "RM-HONEY", qty: "60", cost: "6.90", lot: "HO-2611-02", site: "MAIN", area: "STORAGE", expires: 712},
		{code: "RM-HONEY", qty: "40", cost: "6.90", lot: "HO-2611-02", site: "MAIN", area: "STORAGE", expires: 712},
		{code: "RM-MILKPWD", qty: "25", cost: "7.85", discount: "0", lot: "MP-2611-14", site: "MAIN", area: "STORAGE", expires: 359},
	}},
	{"NUTS", -1, "ONG-20417", "", true, []orderLine{
		{code: "RM-HAZEL", qty: "2", cost: "17.30", lot: "HZ-2611-01", site: "MAIN", area: "RECEIVING", expires: 272},
	}},
}

// seedBills records the bills above through the purchasing workflow: lots,
// PURCHASE_ENTRY movements and costs as the API would write them.
func seedBills(ctx context.Context, tx *ent.Tx, cal calendar) error {
	for _, s := range seededBills {
		if _, err := seedBill(ctx, tx, cal, s.supplier, s.date, s.reference, s.order, s.cancelled, s.lines); err != nil {
			return err
		}
	}
	return nil
}

// seedBill records one bill of supplier (a code), dated day (days from the
// seeding day), through the purchasing workflow, billing the RECEIVED order
// of the supplier order unless it is "", and cancels it on the seeding day
// if cancelled.
func seedBill(ctx context.Context, tx *ent.Tx, cal calendar, supplierCode string, day int, reference, order string, cancelled bool, orderLines []orderLine) (*ent.Bill, error) {
	r := seedRefs{ctx, tx}
	sup, err := r.supplier(supplierCode)
	if err != nil {
		return nil, fmt.Errorf("supplier %s: %w", supplierCode, err)
	}
	lines := make([]*ent.BillLineCreate, len(orderLines))
	for i, l := range orderLines {
		pid, err := r.product(l.code)
		if err != nil {
			return nil, fmt.Errorf("product %s: %w", l.code, err)
		}
		loc, err := r.area(l.site, l.area)
		if err != nil {
			return nil, fmt.Errorf("location %s/%s: %w", l.site, l.area, err)
		}
		lines[i] = tx.BillLine.Create().SetProductID(pid).SetQuantity(*dec(l.qty)).SetLotNumber(l.lot).
			SetNillableCost(dec(l.cost)).SetNillableDiscountRate(dec(l.discount)).
			SetNillableLocationID(loc).SetExpirationDate(cal.day(l.expires))
	}
	b := tx.Bill.Create().SetSupplierID(sup).SetBillDate(cal.day(day)).SetSupplierReference(reference)
	if order != "" {
		osup, err := r.supplier(order)
		if err != nil {
			return nil, err
		}
		po, err := tx.PurchaseOrder.Query().Where(purchaseorder.SupplierID(osup), purchaseorder.StatusEQ(purchaseorder.StatusRECEIVED)).OnlyID(ctx)
		if err != nil {
			return nil, fmt.Errorf("the order billed: %w", err)
		}
		b.SetPurchaseOrderID(po)
	}
	if err := purchasing.PrepareBill(ctx, tx, b.Mutation(), lines, nil); err != nil {
		return nil, err
	}
	bill, err := b.Save(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		l.SetBillID(bill.ID)
	}
	rows, err := tx.BillLine.CreateBulk(lines...).Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := purchasing.ReceiveBill(ctx, tx, bill, rows); err != nil {
		return nil, err
	}
	if cancelled {
		if _, err := purchasing.CancelBillOn(ctx, tx, bill.ID, cal.day(0)); err != nil {
			return nil, err
		}
	}
	return bill, nil
}

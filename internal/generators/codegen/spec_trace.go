package codegen

import (
	"encoding/json"
	"fmt"

	"github.com/ogen-go/ogen"

	"larder.dev/larder/internal/generators/annotate"
)

// The lot trace: GET /product-lots/{lot_id}/trace answers a graph that
// belongs to no ent schema (package inventory builds it from stock
// movements), so its schemas are written here, as the organization's are.

// Trace bounds, as package inventory applies them.
const (
	traceDefaultDepth = 20
	traceMaxDepth     = 50
)

const traceDoc = "Follows the lot's stock movements backward to the suppliers its stock came from and forward to the " +
	"customers it reached: a bill brings a lot in, a production run consumes lots and makes its lot, a shipment takes a lot " +
	"to a customer, and a lot created through the API, a correction, an adjustment or a count starts a lot's quantity " +
	"without a document. The answer is a graph (nodes and edges, each path visited once, cycles included) with the recall " +
	"summary drawn from it: the affected lots downstream and what they still hold where, the customers who received them, " +
	"and upstream the suppliers and their lots. `depth` counts production runs followed each way; bills, shipments and " +
	"origins beside a lot reached cost none. No cost field appears. Requires the inventory:read scope."

func (b *specBuilder) trace() {
	sc := b.schemas()
	str := func(desc string) *ogen.Schema { return ogen.String().SetDescription(desc) }
	nstr := func(desc string) *ogen.Schema { return ogen.String().SetDescription(desc).SetNullable(true) }
	integer := func(desc string) *ogen.Schema { return ogen.Int().SetDescription(desc) }
	nint := func(desc string) *ogen.Schema { return ogen.Int().SetDescription(desc).SetNullable(true) }
	quantity := func(desc string) *ogen.Schema {
		return &ogen.Schema{Type: "number", Format: annotate.FormatDecimal, Description: desc}
	}
	enum := func(desc string, values ...string) *ogen.Schema {
		raw := make([]json.RawMessage, len(values))
		for i, v := range values {
			raw[i] = json.RawMessage(fmt.Sprintf("%q", v))
		}
		return ogen.String().SetDescription(desc).AsEnum(nil, raw...)
	}
	nullable := func(name string) *ogen.Schema { return &ogen.Schema{AllOf: []*ogen.Schema{ref(name)}, Nullable: true} }

	sc["TraceDirection"] = enum("Which way a trace goes from its lot: backward (towards suppliers), forward (towards customers) or both.",
		"backward", "forward", "both")
	sc["TraceNodeKind"] = enum("What a node is: a lot, a production run, a bill, a shipment, or an origin that is no document.",
		"lot", "production", "bill", "shipment", "origin")
	sc["TraceOriginKind"] = enum("What started a lot's quantity without a document: created (the lot was created with a quantity), "+
		"correction (a PATCH of quantity_base), adjustment, count (an inventory count).",
		"created", "correction", "adjustment", "count")
	sc["TraceSource"] = enum("What made the change: api (a key), app (the web application) or system.", "api", "app", "system")

	sc["TraceLot"] = ogen.NewSchema().SetDescription("A lot of the trace.").AddRequiredProperties(
		integer("The lot's id.").ToProperty("id"),
		integer("The product the lot holds.").ToProperty("product_id"),
		nstr("The product's code.").ToProperty("product_code"),
		nstr("The product's name.").ToProperty("product_name"),
		nstr("The code of the product's base unit, the unit of every quantity of the lot.").ToProperty("unit_code"),
		nstr("The lot's number; null for the product's unnumbered lot.").ToProperty("lot_number"),
		ogen.DateTime().SetDescription("When the lot expires (UTC).").SetNullable(true).ToProperty("expiration_date"),
		ref("ProductLotQcStatus").ToProperty("qc_status"),
		quantity("On hand now, in the product's base unit.").ToProperty("quantity_base"),
		nint("Where the lot is.").ToProperty("location_id"),
		nstr("The location's code.").ToProperty("location_code"),
		nstr("The location's name.").ToProperty("location_name"),
		ogen.Bool().SetDescription("Whether the lot is archived.").ToProperty("archived"),
	)
	sc["TraceProduction"] = ogen.NewSchema().SetDescription("A production run of the trace.").AddRequiredProperties(
		integer("The run's id.").ToProperty("id"),
		integer("The run's number.").ToProperty("production_no"),
		ref("ProductionStatus").ToProperty("status"),
		nint("The product the run makes.").ToProperty("product_id"),
		nstr("The number of the lot it makes.").ToProperty("lot_number"),
		ogen.DateTime().SetDescription("When it started (UTC).").SetNullable(true).ToProperty("start_date"),
		ogen.DateTime().SetDescription("When it ended (UTC).").SetNullable(true).ToProperty("end_date"),
	)
	sc["TraceBill"] = ogen.NewSchema().SetDescription("A bill of the trace, with its supplier.").AddRequiredProperties(
		integer("The bill's id.").ToProperty("id"),
		integer("The bill's number.").ToProperty("bill_no"),
		ogen.Date().SetDescription("The date on the supplier's invoice.").ToProperty("bill_date"),
		integer("The supplier.").ToProperty("supplier_id"),
		nstr("The supplier's company name.").ToProperty("supplier_name"),
		nstr("The supplier's own reference of the invoice.").ToProperty("supplier_reference"),
		ogen.Bool().SetDescription("Whether the bill is cancelled.").ToProperty("is_cancelled"),
	)
	sc["TraceShipment"] = ogen.NewSchema().SetDescription("A shipment of the trace, with its order, invoice and customer.").AddRequiredProperties(
		integer("The shipment's id.").ToProperty("id"),
		ogen.Date().SetDescription("When the goods left.").SetNullable(true).ToProperty("ship_date"),
		nstr("The carrier's tracking number.").ToProperty("tracking_number"),
		integer("The sales order shipped.").ToProperty("sales_order_id"),
		integer("The sales order's number.").ToProperty("sales_order_no"),
		nint("The invoice the shipment made.").ToProperty("invoice_id"),
		nint("The invoice's number.").ToProperty("invoice_no"),
		integer("The customer who received the goods.").ToProperty("customer_id"),
		nstr("The customer's company name.").ToProperty("customer_name"),
	)
	sc["TraceOrigin"] = ogen.NewSchema().SetDescription("An origin of a lot's quantity that is no document.").AddRequiredProperties(
		ref("TraceOriginKind").ToProperty("kind"),
		ref("TraceSource").ToProperty("source"),
		ogen.DateTime().SetDescription("When it was recorded (UTC).").ToProperty("at"),
	)
	id := example(str("Unique in the trace: the kind and the record's id (an origin's also names its kind)."), `"lot-12"`)
	sc["TraceNode"] = ogen.NewSchema().SetDescription("A record of the trace: the member its kind names is set, the others are null.").AddRequiredProperties(
		id.ToProperty("id"),
		ref("TraceNodeKind").ToProperty("kind"),
		integer("Edges between the node and the traced lot: negative upstream, 0 the traced lot, positive downstream; lots are at even levels.").ToProperty("level"),
		nullable("TraceLot").ToProperty("lot"),
		nullable("TraceProduction").ToProperty("production"),
		nullable("TraceBill").ToProperty("bill"),
		nullable("TraceShipment").ToProperty("shipment"),
		nullable("TraceOrigin").ToProperty("origin"),
	)
	sc["TraceEdge"] = ogen.NewSchema().SetDescription("A link of the trace, the way the goods went: from a bill or an origin to a lot, "+
		"a lot to the run that consumed it, a run to its lot, a lot to a shipment.").AddRequiredProperties(
		example(str("The node the goods came from."), `"bill-3"`).ToProperty("from"),
		example(str("The node they went to."), `"lot-12"`).ToProperty("to"),
		quantity("What went along the link, in the base unit of the lot's product: the sum of its movements. From an origin, the signed change it made.").ToProperty("quantity_base"),
		ogen.DateTime().SetDescription("When the link's first movement was recorded (UTC).").ToProperty("date"),
	)
	lotRef := []*ogen.Property{
		integer("The lot.").ToProperty("lot_id"),
		nstr("Its number.").ToProperty("lot_number"),
		integer("Its product.").ToProperty("product_id"),
		nstr("The product's name.").ToProperty("product_name"),
	}
	sc["RecallQuantity"] = ogen.NewSchema().SetDescription("An affected lot and how much of it, in its product's base unit.").
		AddRequiredProperties(append(append([]*ogen.Property{}, lotRef...), quantity("How much.").ToProperty("quantity_base"))...)
	sc["RecallShipment"] = ogen.NewSchema().SetDescription("A shipment that took affected lots to the customer.").AddRequiredProperties(
		integer("The shipment.").ToProperty("shipment_id"),
		ogen.Date().SetDescription("When the goods left.").SetNullable(true).ToProperty("ship_date"),
		integer("The sales order.").ToProperty("sales_order_id"),
		integer("Its number.").ToProperty("sales_order_no"),
		nint("The invoice.").ToProperty("invoice_id"),
		nint("Its number.").ToProperty("invoice_no"),
		ref("RecallQuantity").AsArray().SetDescription("The affected lots it took and how much of each.").ToProperty("lots"),
	)
	sc["RecallCustomer"] = ogen.NewSchema().SetDescription("A customer who received affected product.").AddRequiredProperties(
		integer("The customer.").ToProperty("customer_id"),
		nstr("The customer's company name.").ToProperty("customer_name"),
		ref("RecallShipment").AsArray().SetDescription("Its shipments of affected lots, by ship date.").ToProperty("shipments"),
	)
	sc["RecallReceipt"] = ogen.NewSchema().SetDescription("A supplier's lot received on a bill, upstream of the traced lot.").
		AddRequiredProperties(append([]*ogen.Property{
			integer("The bill.").ToProperty("bill_id"),
			integer("Its number.").ToProperty("bill_no"),
			ogen.Date().SetDescription("The date on the supplier's invoice.").ToProperty("bill_date"),
			nstr("The supplier's own reference of the invoice.").ToProperty("supplier_reference"),
		}, append(append([]*ogen.Property{}, lotRef...), quantity("How much the bill brought in.").ToProperty("quantity_base"))...)...)
	sc["RecallSupplier"] = ogen.NewSchema().SetDescription("A supplier whose lots are upstream of the traced lot.").AddRequiredProperties(
		integer("The supplier.").ToProperty("supplier_id"),
		nstr("The supplier's company name.").ToProperty("supplier_name"),
		ref("RecallReceipt").AsArray().SetDescription("Its lots, by bill.").ToProperty("lots"),
	)
	sc["TraceRecall"] = ogen.NewSchema().SetDescription("What a recall of the traced lot needs at once.").AddRequiredProperties(
		ref("TraceLot").AsArray().SetDescription("The traced lot and every lot downstream of it, with what each still holds and where.").ToProperty("lots"),
		ref("RecallCustomer").AsArray().SetDescription("The customers who received affected lots, by id.").ToProperty("customers"),
		ref("RecallSupplier").AsArray().SetDescription("The suppliers of the lots upstream, by id.").ToProperty("suppliers"),
	)
	sc["ProductLotTrace"] = ogen.NewSchema().SetDescription("A lot's trace: the graph and the recall summary.").AddRequiredProperties(
		integer("The traced lot.").ToProperty("lot_id"),
		ref("TraceDirection").ToProperty("direction"),
		integer("The depth asked for.").ToProperty("depth"),
		ogen.Bool().SetDescription("True when the depth stopped the trace before a production run that continues it.").ToProperty("truncated"),
		ref("TraceNode").AsArray().SetDescription("Nodes by level, then kind, then id.").ToProperty("nodes"),
		ref("TraceEdge").AsArray().SetDescription("Edges in the order of their nodes.").ToProperty("edges"),
		ref("TraceRecall").ToProperty("recall"),
	)
	sc["ProductLotTraceData"] = ogen.NewSchema().AddRequiredProperties(ref("ProductLotTrace").ToProperty("data"))

	one, maxDepth := int64(1), int64(traceMaxDepth)
	op := ogen.NewOperation().
		SetOperationID(traceOperation.ID).
		SetSummary("Trace a product lot backward and forward").
		SetDescription(traceDoc).
		AddTags("ProductLots").
		AddParameters(
			ogen.NewParameter().InPath().SetName("lot_id").SetRequired(true).
				SetDescription("Id of the lot, an integer greater than 0.").
				SetSchema(ogen.Int().SetMinimum(&one)),
			ogen.NewParameter().InQuery().SetName("direction").
				SetDescription("backward, forward or both (the default).").
				SetSchema(ref("TraceDirection")),
			ogen.NewParameter().InQuery().SetName("depth").
				SetDescription(fmt.Sprintf("How many production runs to follow each way, 1 to %d (default %d).", traceMaxDepth, traceDefaultDepth)).
				SetSchema(ogen.Int().SetMinimum(&one).SetMaximum(&maxDepth)),
		).
		SetResponses(responses("200", "The lot's trace.", "ProductLotTraceData", readErrors...))
	path(b.spec, "/product-lots/{lot_id}/trace").Get = op
}

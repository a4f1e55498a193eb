package annotate

// EventResource is one resource of the webhook event catalogue and the actions
// it reports: the event types are Resource + "." + action.
type EventResource struct {
	// Resource is the webhook resource name, e.g. "sales_order".
	Resource string
	// Actions are its actions, e.g. "created", "cancelled".
	Actions []string
}

// Catalogue is every webhook event type of the API (docs/api-behaviour.md, "Webhooks":
// 60 types over 17 resources, plus ping). It is the contract: the generator
// publishes all of it in the OpenAPI webhooks section, with the resource's
// generated snapshot schema once a schema emits the resource's events and a
// generic object until then, and it refuses a schema whose Emits names an event
// type that is not listed here.
var Catalogue = []EventResource{
	{"sales_order", []string{"created", "updated", "cancelled", "shipped", "closed"}},
	{"invoice", []string{"created", "updated", "cancelled"}},
	{"customer", []string{"created", "updated", "deleted"}},
	{"purchase_order", []string{"created", "updated", "cancelled", "received", "closed"}},
	{"bill", []string{"created", "updated", "cancelled"}},
	{"supplier", []string{"created", "updated", "deleted", "approval_changed"}},
	{"production", []string{"created", "updated", "status_changed", "completed", "cancelled"}},
	{"product_lot", []string{"created", "updated", "archived", "unarchived", "qc_status_changed"}},
	{"product", []string{"created", "updated", "deleted"}},
	{"warehouse", []string{"created", "updated", "deleted"}},
	{"equipment", []string{"created", "updated", "deleted"}},
	{"production_line", []string{"created", "updated", "deleted"}},
	{"operation", []string{"created", "updated", "deleted"}},
	{"tag", []string{"created", "updated", "deleted"}},
	{"unit_of_measure", []string{"created", "updated", "deleted"}},
	{"allergen", []string{"created", "updated", "deleted"}},
	{"food", []string{"created", "updated", "deleted"}},
}

// PingEvent is the event type of the test button.
const PingEvent = "ping"

// LineName is the annotation name of Line.
const LineName = "LarderLine"

// Line declares a schema as a line of a document resource (a sales order line,
// a purchase order line): a change to a line is reported as the parent's
// .updated event, carrying the parent's id and snapshot. Field is the line's
// foreign key to its parent, Parent the parent's ent type.
type Line struct {
	Field  string `json:"field"`
	Parent string `json:"parent"`
}

// Name implements schema.Annotation.
func (Line) Name() string { return LineName }

// LineOf declares a schema a line of parent (an ent type name that emits
// "updated"), linked by the foreign key field, e.g.
// annotate.LineOf("PurchaseOrder", "purchase_order_id").
func LineOf(parent, field string) Line { return Line{Field: field, Parent: parent} }

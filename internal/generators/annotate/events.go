package annotate

// EventResource is one resource of the webhook event catalogue and the actions
// it reports: the event types are Resource + "." + action. The catalogue is
// derived from the schemas: every resource whose schema emits events
// (Resource.Emits) with the actions it emits.
type EventResource struct {
	// Resource is the webhook resource name, e.g. "sales_order".
	Resource string
	// Actions are its actions, e.g. "created", "cancelled".
	Actions []string
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

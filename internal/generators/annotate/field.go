package annotate

import (
	"reflect"

	"entgo.io/ent/schema"
)

// FieldName is the annotation name of Field.
const FieldName = "LarderField"

// Filter kinds of a list query parameter.
const (
	// Exact matches the value exactly.
	Exact = "exact"
	// Partial matches a case-insensitive substring.
	Partial = "partial"
	// AnyOf accepts the parameter repeatedly and matches any of the values.
	AnyOf = "any_of"
	// Between is a pair of date parameters <param>_from and <param>_to,
	// both bounds inclusive.
	Between = "between"
)

// PATCH treatment of an explicit null.
const (
	// NullClears sets the field to null (nillable fields only).
	NullClears = "clear"
	// NullIgnored leaves the field unchanged.
	NullIgnored = "ignore"
	// NullRefused refuses null (400), for a column that may be null only in
	// rows written before the field was required.
	NullRefused = "refuse"
)

// Field formats beyond the ent type.
const (
	// FormatDate is a calendar date (YYYY-MM-DD) stored as a time.
	FormatDate = "date"
	// FormatDecimal is an exact decimal number.
	FormatDecimal = "decimal"
	// FormatAddress is an embedded Address (a JSON column of
	// address.Address): always an object in responses, written whole, null
	// in a body for an address with every part null.
	FormatAddress = "address"
)

// Field describes how a field behaves in the API. Several helpers may be combined
// on one field; they merge.
type Field struct {
	Filter         string   `json:"filter,omitempty"`
	FilterParam    string   `json:"filter_param,omitempty"`
	FilterRequired bool     `json:"filter_required,omitempty"`
	Sort           bool     `json:"sort,omitempty"`
	Search         bool     `json:"search,omitempty"`
	ReadOnly       bool     `json:"read_only,omitempty"`
	Hidden         bool     `json:"hidden,omitempty"`
	ListNull       bool     `json:"list_null,omitempty"`
	Cost           bool     `json:"cost,omitempty"`
	Null           string   `json:"null,omitempty"`
	Locks          bool     `json:"locks,omitempty"`
	Format         string   `json:"format,omitempty"`
	MinLen         *int64   `json:"min_len,omitempty"`
	MaxLen         *int64   `json:"max_len,omitempty"`
	Min            *float64 `json:"min,omitempty"`
	Max            *float64 `json:"max,omitempty"`
	ExclusiveMin   bool     `json:"exclusive_min,omitempty"`
	Required       bool     `json:"required,omitempty"`
	SearchEq       bool     `json:"search_eq,omitempty"`
	Group          string   `json:"group,omitempty"`
	Borrow         []string `json:"borrow,omitempty"`
	Machine        *Machine `json:"machine,omitempty"`
	BorrowSort     []string `json:"borrow_sort,omitempty"`
	FilterNull     bool     `json:"filter_null,omitempty"`
	SoftDelete     bool     `json:"soft_delete,omitempty"`
	Include        string   `json:"include,omitempty"`
	IncludeDefault bool     `json:"include_default,omitempty"`
	RefRoot        bool     `json:"ref_root,omitempty"`
	CheckReads     []string `json:"check_reads,omitempty"`
	// Deprecated announces the field's end (Deprecate).
	Deprecated *Deprecation `json:"deprecated,omitempty"`
}

// Name implements schema.Annotation.
func (Field) Name() string { return FieldName }

// Merge implements schema.Merger so helpers combine on one field: what other
// sets wins, booleans add up and lists append, so a new property of Field is
// declared once, in the struct.
func (f Field) Merge(other schema.Annotation) schema.Annotation {
	o, ok := other.(Field)
	if !ok {
		return f
	}
	return merge(f, o)
}

// merge combines two annotation values of one struct type field by field.
func merge[T any](a, b T) T {
	av, bv := reflect.ValueOf(&a).Elem(), reflect.ValueOf(b)
	for i := range av.NumField() {
		dst, src := av.Field(i), bv.Field(i)
		switch {
		case src.IsZero():
		case dst.Kind() == reflect.Slice:
			dst.Set(reflect.AppendSlice(dst, src))
		default:
			dst.Set(src)
		}
	}
	return a
}

// Filterable exposes the field as an exact-match list filter named after it.
func Filterable() Field { return Field{Filter: Exact} }

// PartialFilter exposes the field as a case-insensitive substring list filter.
func PartialFilter() Field { return Field{Filter: Partial} }

// RepeatableFilter exposes the field as a repeatable filter named param.
func RepeatableFilter(param string) Field { return Field{Filter: AnyOf, FilterParam: param} }

// RequiredFilter exposes the field as an exact filter every list call must give.
func RequiredFilter() Field { return Field{Filter: Exact, FilterRequired: true} }

// Sortable allows the field in `sort`.
func Sortable() Field { return Field{Sort: true} }

// Searchable includes the field in the free-text `search`.
func Searchable() Field { return Field{Search: true} }

// SearchableExactly includes the field in the free-text `search` as an exact,
// case-sensitive match (a unit such as "mg").
func SearchableExactly() Field { return Field{Search: true, SearchEq: true} }

// Output marks a field the API returns but never accepts in a body.
func Output() Field { return Field{ReadOnly: true} }

// Hidden keeps the field out of the API entirely.
func Hidden() Field { return Field{Hidden: true} }

// SingleOnly returns the field on single retrieval and writes; lists carry null.
func SingleOnly() Field { return Field{ListNull: true} }

// Cost marks a cost or price field: null unless the key holds cost:read. A cost
// field can never be sortable, filterable or searchable.
func Cost() Field { return Field{Cost: true} }

// IgnoreNull makes an explicit null in a PATCH body leave the field unchanged.
func IgnoreNull() Field { return Field{Null: NullIgnored} }

// Locks makes a row read-only through the API while the field is true
// (shared rows, supplied units): updates and deletes get 403 READ_ONLY_RECORD.
func Locks() Field { return Field{Locks: true} }

// Date stores a calendar date (YYYY-MM-DD).
func Date() Field { return Field{Format: FormatDate} }

// Len bounds a string's length in bodies.
func Len(min, max int64) Field { return Field{MinLen: &min, MaxLen: &max} }

// MaxLen bounds a string's length in bodies.
func MaxLen(max int64) Field { return Field{MaxLen: &max} }

// Min bounds a number from below (inclusive) in bodies.
func Min(min float64) Field { return Field{Min: &min} }

// Positive requires a number greater than zero in bodies.
func Positive() Field {
	zero := 0.0
	return Field{Min: &zero, ExclusiveMin: true}
}

// Range bounds a number in bodies (inclusive).
func Range(min, max float64) Field { return Field{Min: &min, Max: &max} }

// DateRangeFilter exposes a date field as the list parameters
// <field>_from and <field>_to (YYYY-MM-DD, both inclusive).
func DateRangeFilter() Field { return Field{Filter: Between} }

// Decimal marks an exact decimal number.
func Decimal() Field { return Field{Format: FormatDecimal} }

// NotNull refuses null in an update body although the column is nillable.
func NotNull() Field { return Field{Null: NullRefused} }

// Address marks an embedded address field (spec "Address").
func Address() Field { return Field{Format: FormatAddress} }

// Required makes a nillable field required and non-null in create bodies.
func Required() Field { return Field{Required: true} }

// In places the field inside the resource's named group object (see
// Resource.Group) instead of at the top level. Grouped fields are output only.
func In(group string) Field { return Field{Group: group, ReadOnly: true} }

// Borrow, on a foreign key, copies the named fields of the referenced row into
// the record (or, on a join entity shown as entries, into each entry): a lot
// shows its product's code and name beside its product_id. "name:product_name"
// shows the field name as product_name. Borrowed fields are output only, null
// when there is no referenced row, and loaded with the record.
func Borrow(fields ...string) Field { return Field{Borrow: fields} }

// SortBorrowed lets lists sort by borrowed fields (by their API names); the
// list joins the referenced rows to order them.
func SortBorrowed(names ...string) Field { return Field{BorrowSort: names} }

// FilterOrNull exposes the field as an exact filter that also matches the
// rows where the field is null (lots in a warehouse plus lots with no location).
func FilterOrNull() Field { return Field{Filter: Exact, FilterNull: true} }

// SoftDelete marks the field (an Optional().Nillable() time, kept out of the
// API) that soft-deletes the row: a DELETE sets it instead of removing the
// row, and lists, single retrievals, updates and deletes of the resource, and
// references from other records' bodies, see only rows where it is null. The
// row stays for the records that already reference it, and the update that
// sets it is reported as the resource's .deleted event. Every unique index of
// the schema must then be partial on "<field> IS NULL", so that a deleted
// row's values do not block new rows. SoftDeleteMixin (ent/schema) declares it.
func SoftDelete() Field { return Field{SoftDelete: true, Hidden: true} }

// IncludeParam exposes, on a non-null boolean field, the boolean list
// parameter param that says whether rows whose field is true are listed:
// omitted, it is def; false lists only the rows whose field is false
// (include_out_of_service on out_of_service). Like a filter, it needs an
// (account_id, field) index.
func IncludeParam(param string, def bool) Field { return Field{Include: param, IncludeDefault: def} }

// RefRoot, on a foreign key to a schema exposed with Resource.Roots (warehouses
// among locations), accepts only the roots: a body naming any other row of
// the referenced type is a 400 on the field, as one naming a missing row is.
func RefRoot() Field { return Field{RefRoot: true} }

// CheckReads, on a foreign key, makes the check that it names a row the caller
// can see (ent.CheckReferences) read those fields of the row and keep it for
// the rest of the transaction (ent.CheckedRow), for a hook that copies from
// it: the hook then does not read the row again.
func CheckReads(fields ...string) Field { return Field{CheckReads: fields} }

// EdgeName is the annotation name of Edge.
const EdgeName = "LarderEdge"

// Edge describes how a one-to-many edge to a join entity appears in the API:
// as an array of the ids one join field holds (IDs), or as an array of objects
// made of the join entity's fields (Entries). Edge fields are output only; the
// list and single retrieval load them eagerly.
type Edge struct {
	JSON     string `json:"json"`
	IDField  string `json:"id_field,omitempty"`
	ListNull bool   `json:"list_null,omitempty"`
	Group    string `json:"group,omitempty"`
	// MaxItems > 0 makes an IDs edge writable: create and update bodies may
	// give the whole set (at most MaxItems ids; [] or null removes all).
	MaxItems int `json:"max_items,omitempty"`
	// OfField and OfValue restrict the ids a body may give to rows whose
	// field has the value (tags of ref_type CUSTOMER).
	OfField string `json:"of_field,omitempty"`
	OfValue string `json:"of_value,omitempty"`
	// Doc makes an Entries edge a document's writable lines (Lines).
	Doc *DocLines `json:"doc,omitempty"`
	// ShowID shows each entry's id (a read-only document's lines).
	ShowID bool `json:"show_id,omitempty"`
}

// Name implements schema.Annotation.
func (Edge) Name() string { return EdgeName }

// IDs shows the edge as the array json of the join rows' field values, in join
// row order (tag_ids from the product's tag rows).
func IDs(json, field string) Edge { return Edge{JSON: json, IDField: field} }

// Entries shows the edge as the array json of its join rows, each with the join
// entity's API fields and the fields its foreign keys borrow.
func Entries(json string) Edge { return Edge{JSON: json} }

// Identified shows each entry's id, as a document's lines do (an invoice's).
func (e Edge) Identified() Edge { e.ShowID = true; return e }

// SingleOnly returns the edge on single retrieval only; lists carry null.
func (e Edge) SingleOnly() Edge { e.ListNull = true; return e }

// Writable lets create and update bodies replace an IDs edge's whole set, at
// most max ids, each naming a row the caller can see (400 naming json[i]
// otherwise).
func (e Edge) Writable(max int) Edge { e.MaxItems = max; return e }

// Of restricts a writable edge's ids to rows whose field equals value.
func (e Edge) Of(field, value string) Edge { e.OfField, e.OfValue = field, value; return e }

// In places the edge inside the resource's named group object.
func (e Edge) In(group string) Edge { e.Group = group; return e }

// DocLines makes an Entries edge the writable lines of a document (purchase
// order, bill, sales order): create bodies must give them, update bodies may,
// and the generated handlers write them in the document's transaction.
type DocLines struct {
	// Min and Max bound the number of lines a body gives.
	Min int `json:"min"`
	Max int `json:"max"`
	// Distinct and DistinctMax bound the number of distinct values of one
	// line field (at most 200 different products).
	Distinct    string `json:"distinct,omitempty"`
	DistinctMax int    `json:"distinct_max,omitempty"`
	// KeepByID makes an update keep the lines it names by id (updated),
	// add those without one and remove the others; otherwise lines sent
	// on update replace every line.
	KeepByID bool `json:"keep_by_id,omitempty"`
	// Prepare declares the document's Prepare step, which completes the
	// lines and the document before the document is saved, given the
	// document's mutation and the line builders in body order:
	//
	//	Prepare func(ctx context.Context, tx *ent.Tx, m *ent.<Doc>Mutation, lines []*ent.<Line>Create) error
	//
	// It is a field of the flow type ent.<Doc>Flow, which the generator
	// writes; the module declares the one value of it (package flows).
	Prepare bool `json:"prepare,omitempty"`
	// Record declares the step that runs after the lines are written,
	// given the saved document and its new lines in body order:
	//
	//	Record func(ctx context.Context, tx *ent.Tx, doc *ent.<Doc>, lines []*ent.<Line>) error
	//
	// It may change the document (a create then reads its row again for the
	// answer) but must leave the lines as written: a create whose answer
	// shows nothing else answers with the lines it wrote, unread.
	Record bool `json:"record,omitempty"`
	// Handover makes Prepare return, with its error, what it read and
	// decided, which Record then takes as its last argument (the flow type
	// is then generic in it, ent.<Doc>Flow[T]):
	//
	//	Prepare func(ctx context.Context, tx *ent.Tx, m *ent.<Doc>Mutation, lines []*ent.<Line>Create) (T, error)
	//	Record  func(ctx context.Context, tx *ent.Tx, doc *ent.<Doc>, lines []*ent.<Line>, prepared T) error
	//
	// for a workflow that must decide and lock before the document and its
	// lines are written (a shipment locks the lots it takes from before its
	// lines reference them) and acts on that after. Documents whose lines
	// are written on create only.
	Handover bool `json:"handover,omitempty"`
	// Read, when set, makes the check of the lines' references in
	// Read.Field also read the Read.Columns of the rows they name, and hands
	// those rows, by id, to Prepare, which then need not read them again:
	//
	//	Prepare func(ctx context.Context, tx *ent.Tx, m *ent.<Doc>Mutation, lines []*ent.<Line>Create, rows map[int]*ent.<Ref>) error
	//
	// Code that calls Prepare on builders it made itself (seeding) passes
	// nil rows, and Prepare reads them. A cost column is read as if the
	// caller had cost:read: the rows go to Prepare, never into an answer.
	Read *RefRead `json:"read,omitempty"`
}

// RefRead is what the check of one line reference reads for Prepare.
type RefRead struct {
	// Field is the line's foreign key ("product_id").
	Field string `json:"field"`
	// Columns are the referenced rows' fields Prepare uses (the id is
	// always read).
	Columns []string `json:"columns"`
}

// Lines makes an Entries edge the document's writable lines, between min and
// max of them in a body. Line fields keep their own annotations (bounds,
// Required, Cost, Output); an error inside a line names lines[i].field.
func (e Edge) Lines(min, max int) Edge {
	e.Doc = &DocLines{Min: min, Max: max}
	return e
}

// AtMostDistinct bounds the distinct values of a line field among a body's lines.
func (e Edge) AtMostDistinct(field string, max int) Edge {
	e.Doc.Distinct, e.Doc.DistinctMax = field, max
	return e
}

// KeptByID makes an update keep lines by id (see DocLines.KeepByID).
func (e Edge) KeptByID() Edge { e.Doc.KeepByID = true; return e }

// Prepared declares the document's Prepare step (see DocLines.Prepare).
func (e Edge) Prepared() Edge { e.Doc.Prepare = true; return e }

// Reading makes the check of the lines' field references read columns of
// the named rows for the Prepare function (see DocLines.Read).
func (e Edge) Reading(field string, columns ...string) Edge {
	e.Doc.Read = &RefRead{Field: field, Columns: columns}
	return e
}

// Recorded declares the document's Record step (see DocLines.Record).
func (e Edge) Recorded() Edge { e.Doc.Record = true; return e }

// HandedOver makes Prepare hand what it decided to Record (see
// DocLines.Handover).
func (e Edge) HandedOver() Edge { e.Doc.Handover = true; return e }

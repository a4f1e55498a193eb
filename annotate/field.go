package annotate

import "entgo.io/ent/schema"

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
)

// PATCH treatment of an explicit null.
const (
	// NullClears sets the field to null (nillable fields only).
	NullClears = "clear"
	// NullIgnored leaves the field unchanged.
	NullIgnored = "ignore"
)

// Field formats beyond the ent type.
const (
	// FormatDate is a calendar date (YYYY-MM-DD) stored as a time.
	FormatDate = "date"
	// FormatDecimal is an exact decimal number.
	FormatDecimal = "decimal"
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
}

// Name implements schema.Annotation.
func (Field) Name() string { return FieldName }

// Merge implements schema.Merger so helpers combine on one field.
func (f Field) Merge(other schema.Annotation) schema.Annotation {
	o, ok := other.(Field)
	if !ok {
		return f
	}
	f.Filter = or(f.Filter, o.Filter)
	f.FilterParam = or(f.FilterParam, o.FilterParam)
	f.FilterRequired = f.FilterRequired || o.FilterRequired
	f.Sort = f.Sort || o.Sort
	f.Search = f.Search || o.Search
	f.ReadOnly = f.ReadOnly || o.ReadOnly
	f.Hidden = f.Hidden || o.Hidden
	f.ListNull = f.ListNull || o.ListNull
	f.Cost = f.Cost || o.Cost
	f.Null = or(f.Null, o.Null)
	f.Locks = f.Locks || o.Locks
	f.Format = or(f.Format, o.Format)
	f.ExclusiveMin = f.ExclusiveMin || o.ExclusiveMin
	f.Required = f.Required || o.Required
	if o.MinLen != nil {
		f.MinLen = o.MinLen
	}
	if o.MaxLen != nil {
		f.MaxLen = o.MaxLen
	}
	if o.Min != nil {
		f.Min = o.Min
	}
	if o.Max != nil {
		f.Max = o.Max
	}
	return f
}

func or(a, b string) string {
	if b != "" {
		return b
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

// Decimal marks an exact decimal number.
func Decimal() Field { return Field{Format: FormatDecimal} }

// Required makes a nillable field required and non-null in create bodies.
func Required() Field { return Field{Required: true} }

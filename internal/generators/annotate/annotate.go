// Package annotate is the vocabulary a schema uses to describe its public API:
// which resource a schema is, which operations exist, and how each field behaves
// in bodies, lists and webhooks; and where its table would live on a
// distributed PostgreSQL (Placement). The codegen package reads these
// annotations and generates the OpenAPI description, the converters, the list
// builders, the cost redaction, the scope table, the event catalogue and the
// tables' classes (ent/migrate.Classes) from them.
//
// The package imports nothing but ent/schema so that the server binary, which
// links the schema through ent/runtime, stays free of generator dependencies.
package annotate

import "entgo.io/ent/schema"

// Operation names a REST operation of a resource.
type Operation string

// The operations a resource can expose.
const (
	List   Operation = "list"
	Read   Operation = "read"
	Create Operation = "create"
	Update Operation = "update"
	Delete Operation = "delete"
)

// CRUD is every standard operation.
var CRUD = []Operation{List, Read, Create, Update, Delete}

// ReadOnly operations: list and retrieve.
var ReadOnlyOps = []Operation{List, Read}

// Module scopes (spec Authentication 7).
const (
	Catalog       = "catalog"
	Inventory     = "inventory"
	Manufacturing = "manufacturing"
	Sales         = "sales"
	Purchasing    = "purchasing"
)

// ResourceName is the annotation name of Resource.
const ResourceName = "LarderResource"

// Resource describes how a schema is exposed as a REST resource.
type Resource struct {
	// Path is the collection path without the leading slash ("units-of-measure").
	Path string `json:"path"`
	// Param is the item path parameter ("uom_id").
	Param string `json:"param"`
	// Schema is the API schema name when it differs from the ent type name.
	Schema string `json:"schema,omitempty"`
	// Event is the webhook resource name when it differs from snake(Schema).
	Event string `json:"event,omitempty"`
	// Scope is the module whose read/write scope guards the resource.
	Scope string `json:"scope"`
	// Ops are the exposed operations.
	Ops []Operation `json:"ops"`
	// Custom are operations whose handler is written by hand (behaviour beyond CRUD).
	Custom []Operation `json:"custom,omitempty"`
	// Events are the webhook actions the resource emits ("created", "updated", ...).
	Events []string `json:"events,omitempty"`
	// SearchAlone refuses `search` combined with a named filter (400).
	SearchAlone bool `json:"search_alone,omitempty"`
	// UpdatedSince accepts `updated_since` on the list ((U) lists).
	UpdatedSince bool `json:"updated_since,omitempty"`
	// RootsOnly exposes only rows whose named field is NULL (warehouses are root locations).
	RootsOnly string `json:"roots_only,omitempty"`
	// Description documents the resource (OpenAPI tag description).
	Description string `json:"description,omitempty"`
	// Groups are nested objects of grouped fields, present when a field has a value.
	Groups []Group `json:"groups,omitempty"`
	// SearchID makes a numeric `search` also match the id.
	SearchID bool `json:"search_id,omitempty"`
	// Unpaginated lists return every row in one page, ordered by the named field.
	Unpaginated string `json:"unpaginated,omitempty"`
	// Actions are the resource's POST /{path}/{id}/{action} operations.
	Actions []Action `json:"actions,omitempty"`
	// DeleteDoc describes a delete that does more, or less, than remove the
	// row (a hand-written delete).
	DeleteDoc string `json:"delete_doc,omitempty"`
	// Parent nests the resource under a parent's item path.
	Parent *Parent `json:"parent,omitempty"`
	// Idempotent accepts an Idempotency-Key header on create (package
	// idempotency): a retry with the same body answers the first answer
	// again, with 200.
	Idempotent bool `json:"idempotent,omitempty"`
	// Deprecated are the operations announced as ending (Deprecate).
	Deprecated map[Operation]Deprecation `json:"deprecated,omitempty"`
}

// Deprecation announces that a field or an operation will go: it stays in
// version 1, marked deprecated in the description, and the answers of the
// requests that use it carry Deprecation (and, with a sunset, Sunset)
// headers; the request log records which keys still use it.
type Deprecation struct {
	// Since is the date (2026-12-05) from which it is deprecated.
	Since string `json:"since"`
	// Sunset is the date after which a next major version may drop it; ""
	// for none set.
	Sunset string `json:"sunset,omitempty"`
	// Use names what replaces it, for people ("the field unit_id").
	Use string `json:"use,omitempty"`
}

// Deprecate marks the field deprecated from since (a date, 2026-12-05),
// with its sunset date ("" for none) and its replacement.
func Deprecate(since, sunset, use string) Field {
	return Field{Deprecated: &Deprecation{Since: since, Sunset: sunset, Use: use}}
}

// Deprecate marks operation op deprecated.
func (r Resource) Deprecate(op Operation, d Deprecation) Resource {
	m := make(map[Operation]Deprecation, len(r.Deprecated)+1)
	for k, v := range r.Deprecated {
		m[k] = v
	}
	m[op] = d
	r.Deprecated = m
	return r
}

// Parent is the resource a nested resource lives under: its collection path
// and item parameter, and the child's foreign key to it.
type Parent struct {
	Path  string `json:"path"`
	Param string `json:"param"`
	Field string `json:"field"`
}

// Group is a nested object of the resource's output holding the fields placed
// In it; it is populated when the field When equals Is, and null otherwise.
type Group struct {
	Name        string `json:"name"`
	When        string `json:"when"`
	Is          string `json:"is"`
	Description string `json:"description,omitempty"`
}

// Name implements schema.Annotation.
func (Resource) Name() string { return ResourceName }

// Expose returns a resource served at /path with the item parameter param, guarded
// by the module scope, with the given operations.
func Expose(path, param, scope string, ops ...Operation) Resource {
	return Resource{Path: path, Param: param, Scope: scope, Ops: ops}
}

// Named sets the API schema name.
func (r Resource) Named(schema string) Resource { r.Schema = schema; return r }

// Emits sets the webhook actions the resource emits: its event types
// (<resource>.<action>), which the description publishes and endpoints may
// choose. The schemas' Emits are the whole event catalogue.
func (r Resource) Emits(actions ...string) Resource { r.Events = actions; return r }

// EmitsAs sets the webhook resource name and its actions.
func (r Resource) EmitsAs(event string, actions ...string) Resource {
	r.Event, r.Events = event, actions
	return r
}

// HandWritten marks operations whose handlers are written by hand.
func (r Resource) HandWritten(ops ...Operation) Resource { r.Custom = ops; return r }

// SearchNotCombinable refuses `search` together with a named filter.
func (r Resource) SearchNotCombinable() Resource { r.SearchAlone = true; return r }

// Updated accepts `updated_since` on the list.
func (r Resource) Updated() Resource { r.UpdatedSince = true; return r }

// Roots exposes only rows whose field is NULL.
func (r Resource) Roots(field string) Resource { r.RootsOnly = field; return r }

// Group adds a nested object, populated when field when equals is.
func (r Resource) Group(name, when, is, description string) Resource {
	r.Groups = append(r.Groups, Group{Name: name, When: when, Is: is, Description: description})
	return r
}

// SearchByID makes a numeric `search` also match the record's id.
func (r Resource) SearchByID() Resource { r.SearchID = true; return r }

// All makes the list unpaginated: every row, ordered by field, no paging or sort
// parameters.
func (r Resource) All(field string) Resource { r.Unpaginated = field; return r }

// Describe documents the resource.
func (r Resource) Describe(d string) Resource { r.Description = d; return r }

// Under nests the resource under a parent: /{path}/{param}/{resource path}.
// Every operation answers 404 for a parent the caller cannot see and for a
// child of another parent; field is the child's foreign key, set from the
// path on create.
func (r Resource) Under(path, param, field string) Resource {
	r.Parent = &Parent{Path: path, Param: param, Field: field}
	return r
}

// IdempotentCreate accepts the Idempotency-Key header on create.
func (r Resource) IdempotentCreate() Resource { r.Idempotent = true; return r }

// DescribeDelete documents what the delete operation does (and answers).
func (r Resource) DescribeDelete(d string) Resource { r.DeleteDoc = d; return r }

// Internal marks a schema that has no API of its own. It is the entoas skip
// annotation in wire form, so the generator ignores the schema's fields.
func Internal() schema.Annotation { return oasSkip{Skip: true} }

// oasSkip is wire-compatible with entoas.Skip(true) without importing entoas,
// which would drag the generator into the server binary.
type oasSkip struct {
	Skip bool `json:"Skip,omitempty"`
}

// Name implements schema.Annotation.
func (oasSkip) Name() string { return "EntOAS" }

// Number is the entoas schema annotation, in wire form, for a field whose Go type
// entoas does not know (exact decimals): the API shows it as a JSON number.
func Number() schema.Annotation { return oasSchema{Schema: map[string]string{"type": "number"}} }

// Object gives entoas the type of a JSON field it cannot map (an embedded
// value object); the generator writes the real schema.
func Object() schema.Annotation { return oasSchema{Schema: map[string]string{"type": "object"}} }

type oasSchema struct {
	Schema map[string]string `json:"Schema,omitempty"`
}

// Name implements schema.Annotation.
func (oasSchema) Name() string { return "EntOAS" }

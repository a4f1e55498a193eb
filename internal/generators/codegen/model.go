// Package codegen is the entc extension that turns the schema annotations of
// package annotate into everything the API needs: the OpenAPI description (as
// an entoas spec mutation) and the Go glue between ent and the ogen server
// (converters, request appliers, list builders, CRUD handlers, the scope table,
// the cost redaction and the webhook catalogue). It runs only at generation time.
package codegen

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/internal/generators/flows"
)

// Resource is a schema exposed as a REST resource, with everything the
// generators need to know about it, read from its annotations once.
type Resource struct {
	Type   *gen.Type
	Ann    annotate.Resource
	Schema string   // API schema name, e.g. "Warehouse"
	Event  string   // webhook resource name, e.g. "warehouse"
	Group  string   // ogen operation group and OpenAPI tag, e.g. "Warehouses"
	ID     *Field   // the id
	Fields []*Field // every field the API shows, in schema order
	Edges  []*Edge  // edges the API shows (ids or entries), in schema order
	// Actions are the POST /{path}/{id}/{action} operations.
	Actions []*Action
	// FilterOnly are hidden fields lists filter by (a lot's warehouse).
	FilterOnly []*Field
	// SoftDelete is the field whose value marks a row deleted, if any
	// (annotate.SoftDelete).
	SoftDelete *gen.Field
	// LineID shows an entry's id (the lines of a document, which an update
	// may name).
	LineID bool
	// Flow is the module's declaration of the resource's workflow steps
	// (package flows), when its schema declares any.
	Flow *flows.Flow
}

// Edge is a one-to-many edge to a join entity that the API shows as an array
// of ids or of entries.
type Edge struct {
	Res   *Resource
	E     *gen.Edge
	Ann   annotate.Edge
	Entry *Resource // the join entity viewed as an entry schema (Entries only)
}

// Name is the JSON name.
func (e *Edge) Name() string { return e.Ann.JSON }

// Go is the ogen Go name of the field.
func (e *Edge) Go() string { return pascal(e.Ann.JSON) }

// IDField is the ent struct field of the join field an IDs edge collects.
func (e *Edge) IDField() string {
	for _, f := range e.E.Type.Fields {
		if f.Name == e.Ann.IDField {
			return f.StructField()
		}
	}
	return pascal(e.Ann.IDField)
}

// Borrowed are the fields of the rows a join field references, copied into
// each entry.
type Borrowed struct {
	Via    *Field // the foreign key
	Edge   *gen.Edge
	Fields []*Field // the referenced type's fields, named as the API shows them
	Sorted []*Field // those lists may sort by
}

// Field is one field of a resource.
type Field struct {
	Res  *Resource
	F    *gen.Field // nil for the id
	Name string     // JSON name
	Ann  annotate.Field
}

// loadResources reads every exposed resource of the graph and validates the
// annotations, so a mistake fails generation rather than a request.
func loadResources(g *gen.Graph) ([]*Resource, error) {
	var out []*Resource
	for _, n := range g.Nodes {
		ann, ok, err := resourceAnnotation(n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
		if err := validateNode(n); err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		r := &Resource{Type: n, Ann: ann, Schema: n.Name}
		if ann.Schema != "" {
			r.Schema = ann.Schema
		}
		r.Event = snake(r.Schema)
		if ann.Event != "" {
			r.Event = ann.Event
		}
		r.Group = pascal(strings.ReplaceAll(ann.Path, "-", "_"))
		r.ID = &Field{Res: r, Name: "id"}
		if r.SoftDelete, err = softDeleteField(n); err != nil {
			return nil, err
		}
		for _, f := range n.Fields {
			fa, err := fieldAnnotation(f)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", n.Name, f.Name, err)
			}
			if f.Sensitive() {
				continue
			}
			if fa.Hidden {
				if fa.Filter != "" { // a filter on a column the API does not show
					r.FilterOnly = append(r.FilterOnly, &Field{Res: r, F: f, Name: f.Name, Ann: fa})
				}
				continue
			}
			r.Fields = append(r.Fields, &Field{Res: r, F: f, Name: f.Name, Ann: fa})
		}
		for _, e := range n.Edges {
			ea, ok, err := edgeAnnotation(e)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", n.Name, e.Name, err)
			}
			if !ok {
				continue
			}
			if e.Unique || e.M2M() {
				return nil, fmt.Errorf("%s.%s: an API edge must be one-to-many to a join entity", n.Name, e.Name)
			}
			x := &Edge{Res: r, E: e, Ann: ea}
			if ea.MaxItems > 0 && (ea.IDField == "" || x.Target() == nil) {
				return nil, fmt.Errorf("%s.%s: a writable edge must be an IDs edge whose join field references its rows", n.Name, e.Name)
			}
			if ea.IDField == "" {
				if x.Entry, err = entryOf(e); err != nil {
					return nil, fmt.Errorf("%s.%s: %w", n.Name, e.Name, err)
				}
				x.Entry.LineID = ea.ShowID
			}
			if err := x.validateDoc(); err != nil {
				return nil, fmt.Errorf("%s.%s: %w", n.Name, e.Name, err)
			}
			r.Edges = append(r.Edges, x)
		}
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
		if r.Actions, err = loadActions(r); err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
		if err := checkEvents(r); err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ann.Path < out[j].Ann.Path })
	fs, err := declaredFlows()
	if err != nil {
		return nil, fmt.Errorf("workflows: %w", err)
	}
	if err := bindFlows(out, fs); err != nil {
		return nil, err
	}
	return out, nil
}

// validateNode checks rules that hold for every schema, exposed or not: a
// schema is closed until a privacy policy opens it, and each foreign key states
// what a delete of the referenced row does.
func validateNode(n *gen.Type) error {
	if n.NumPolicy() == 0 {
		return fmt.Errorf("%s has no privacy policy: use AccountMixin or policy.SystemOnly()", n.Name)
	}
	if _, err := softDeleteField(n); err != nil {
		return err
	}
	for _, fk := range n.ForeignKeys {
		// ent reads ON DELETE from the edge that declares the relation (the
		// edge.To), not from its inverse.
		e := fk.Edge
		if e.IsInverse() {
			e = e.Ref
		}
		if onDelete(e) == "" {
			return fmt.Errorf("%s.%s: the foreign key needs an explicit entsql.OnDelete "+
				"(Restrict makes deleting a row in use a 409 IN_USE; Cascade removes the rows)", n.Name, e.Name)
		}
	}
	return nil
}

// softDeleteField returns the soft-delete field of t (annotate.SoftDelete), or
// nil, and refuses one that cannot work: it must be the only one, a nillable
// time kept out of the API, and every unique index must leave deleted rows
// out ("<column> IS NULL"), or a deleted row's name would block a new one.
func softDeleteField(t *gen.Type) (*gen.Field, error) {
	var out *gen.Field
	for _, f := range t.Fields {
		a, err := fieldAnnotation(f)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.Name, f.Name, err)
		}
		if !a.SoftDelete {
			continue
		}
		if out != nil {
			return nil, fmt.Errorf("%s: soft-deleted by both %s and %s; one field marks a row deleted", t.Name, out.Name, f.Name)
		}
		if !f.IsTime() || !f.Optional || !f.Nillable || !a.Hidden {
			return nil, fmt.Errorf("%s.%s: a soft-delete field must be an Optional().Nillable() time, hidden from the API "+
				"(annotate.SoftDelete(), or SoftDeleteMixin)", t.Name, f.Name)
		}
		out = f
	}
	if out == nil {
		return nil, nil
	}
	live := out.StorageKey() + " IS NULL"
	for _, idx := range t.Indexes {
		if idx.Unique && !strings.Contains(indexWhere(idx), live) {
			return nil, fmt.Errorf("%s: unique index on (%s) must be partial on %q (entsql.IndexWhere): "+
				"a soft-deleted row must not block a new row with its values", t.Name, strings.Join(idx.Columns, ", "), live)
		}
	}
	for _, f := range t.Fields {
		if f.Unique {
			return nil, fmt.Errorf("%s.%s: a soft-deleted schema cannot have a Unique() field; use a unique index partial on %q", t.Name, f.Name, live)
		}
	}
	return out, nil
}

// indexWhere is the predicate of a partial index, or "".
func indexWhere(idx *gen.Index) string {
	raw, ok := idx.Annotations[(&entsql.IndexAnnotation{}).Name()]
	if !ok {
		return ""
	}
	var a entsql.IndexAnnotation
	if decode(raw, &a) != nil {
		return ""
	}
	return a.Where
}

func onDelete(e *gen.Edge) string {
	raw, ok := e.Annotations[(&entsql.Annotation{}).Name()]
	if !ok {
		return ""
	}
	var a entsql.Annotation
	if decode(raw, &a) != nil {
		return ""
	}
	return string(a.OnDelete)
}

// entryOf views the join entity of e as an entry: its API fields except the
// foreign key back to the parent, and the fields its other keys borrow.
func entryOf(e *gen.Edge) (*Resource, error) {
	t := e.Type
	r := &Resource{Type: t, Schema: t.Name}
	back := ""
	if e.Ref != nil && e.Ref.Field() != nil {
		back = e.Ref.Field().Name
	}
	for _, f := range t.Fields {
		fa, err := fieldAnnotation(f)
		if err != nil {
			return nil, err
		}
		if fa.Hidden || f.Sensitive() || f.Name == back {
			continue
		}
		r.Fields = append(r.Fields, &Field{Res: r, F: f, Name: f.Name, Ann: fa})
	}
	return r, nil
}

// Borrows are the borrowed fields of an entry, per foreign key.
func (r *Resource) Borrows() ([]*Borrowed, error) {
	var out []*Borrowed
	for _, f := range r.Fields {
		if len(f.Ann.Borrow) == 0 {
			continue
		}
		e := f.Edge()
		if e == nil {
			return nil, fmt.Errorf("%s.%s borrows fields but is not a foreign key", r.Type.Name, f.Name)
		}
		target := &Resource{Type: e.Type, Schema: e.Type.Name}
		b := &Borrowed{Via: f, Edge: e}
		for _, spec := range f.Ann.Borrow {
			name, as, renamed := strings.Cut(spec, ":")
			if !renamed {
				as = name
			}
			var found *gen.Field
			for _, tf := range e.Type.Fields {
				if tf.Name == name {
					found = tf
				}
			}
			if found == nil {
				return nil, fmt.Errorf("%s.%s borrows unknown field %s.%s", r.Type.Name, f.Name, e.Type.Name, name)
			}
			fa, err := fieldAnnotation(found)
			if err != nil {
				return nil, err
			}
			if fa.Cost {
				return nil, fmt.Errorf("%s.%s cannot borrow cost field %s", r.Type.Name, f.Name, name)
			}
			b.Fields = append(b.Fields, &Field{Res: target, F: found, Name: as, Ann: fa})
			if slices.Contains(f.Ann.BorrowSort, as) {
				b.Sorted = append(b.Sorted, b.Fields[len(b.Fields)-1])
			}
		}
		for _, name := range f.Ann.BorrowSort {
			if !slices.ContainsFunc(b.Sorted, func(x *Field) bool { return x.Name == name }) {
				return nil, fmt.Errorf("%s.%s sorts by %s, which it does not borrow", r.Type.Name, f.Name, name)
			}
		}
		out = append(out, b)
	}
	return out, nil
}

func (r *Resource) validate() error {
	if r.Ann.Parent != nil && len(r.Ann.Actions) > 0 {
		return fmt.Errorf("nested under %s: actions on nested resources are not generated yet", r.Ann.Parent.Path)
	}
	if r.Ann.Parent != nil && r.ParentEdge() == nil {
		return fmt.Errorf("nested under %s: no edge with the foreign key %s", r.Ann.Parent.Path, r.Ann.Parent.Field)
	}
	if r.Ann.Path == "" || r.Ann.Param == "" || r.Ann.Scope == "" || len(r.Ann.Ops) == 0 {
		return fmt.Errorf("a resource needs a path, a parameter, a scope and operations")
	}
	groups := map[string]bool{}
	for _, g := range r.Ann.Groups {
		groups[g.Name] = true
		if r.field(g.When) == nil {
			return fmt.Errorf("group %s: unknown field %s", g.Name, g.When)
		}
	}
	for _, f := range r.Fields {
		if f.Ann.Group != "" && !groups[f.Ann.Group] {
			return fmt.Errorf("field %s: unknown group %s", f.Name, f.Ann.Group)
		}
	}
	if _, err := r.Borrows(); err != nil {
		return err
	}
	for _, e := range r.Edges {
		if e.Ann.Group != "" && !groups[e.Ann.Group] {
			return fmt.Errorf("edge %s: unknown group %s", e.E.Name, e.Ann.Group)
		}
		if e.Entry != nil {
			if _, err := e.Entry.Borrows(); err != nil {
				return err
			}
		}
	}
	if len(r.Ann.Groups) > 0 && (r.Has(annotate.Create) || r.Has(annotate.Update)) {
		return fmt.Errorf("grouped fields are output only: a resource with groups cannot be created or updated through the API")
	}
	if r.Ann.Unpaginated != "" && r.Ann.Unpaginated != "id" && r.field(r.Ann.Unpaginated) == nil {
		return fmt.Errorf("unpaginated order: unknown field %s", r.Ann.Unpaginated)
	}
	for _, op := range r.Ann.Custom {
		if !r.Has(op) {
			return fmt.Errorf("hand-written operation %q is not exposed", op)
		}
	}
	indexed := r.indexedColumns()
	for _, f := range append(append([]*Field(nil), r.Fields...), r.FilterOnly...) {
		a := f.Ann
		if a.Cost {
			if a.Sort || a.Filter != "" || a.Search {
				return fmt.Errorf("cost field %s cannot be sortable, filterable or searchable: "+
					"redaction cannot hide what an order or a predicate reveals", f.Name)
			}
			if !f.F.Nillable {
				return fmt.Errorf("cost field %s must be Optional().Nillable() so it can be redacted", f.Name)
			}
		}
		if (a.Sort || a.Filter != "" || a.Include != "") && !indexed[f.Name] {
			return fmt.Errorf("field %s is sortable or filterable but no index starts with (account_id, %s)", f.Name, f.Name)
		}
		if a.Include != "" && (f.Kind() != "bool" || f.F.Nillable || a.Filter != "") {
			return fmt.Errorf("field %s: IncludeParam needs a non-null boolean field that is not also a filter", f.Name)
		}
		if a.RefRoot {
			if err := checkRefRoot(f); err != nil {
				return err
			}
		}
		if a.Null == annotate.NullClears && !f.F.Nillable {
			return fmt.Errorf("field %s: null can only clear a nillable field", f.Name)
		}
		if a.Required && !f.F.Optional {
			return fmt.Errorf("field %s: Required() is for optional (nillable) fields; a non-optional field is required already", f.Name)
		}
	}
	return nil
}

// checkRefRoot refuses RefRoot on a field that is not a foreign key to a
// schema exposed with Roots.
func checkRefRoot(f *Field) error {
	e := f.Edge()
	if e == nil {
		return fmt.Errorf("field %s: RefRoot needs a foreign key", f.Name)
	}
	ann, ok, err := resourceAnnotation(e.Type)
	if err != nil {
		return err
	}
	if !ok || ann.RootsOnly == "" {
		return fmt.Errorf("field %s: RefRoot needs a reference to a schema exposed with Roots, and %s is not", f.Name, e.Type.Name)
	}
	return nil
}

// indexedColumns are the columns that lead an index, after account_id.
func (r *Resource) indexedColumns() map[string]bool {
	out := map[string]bool{}
	for _, idx := range r.Type.Indexes {
		cols := idx.Columns
		if len(cols) > 1 && cols[0] == "account_id" {
			out[cols[1]] = true
		}
		if len(cols) > 0 {
			out[cols[0]] = true
		}
	}
	for _, f := range r.Type.Fields {
		if f.Unique {
			out[f.Name] = true
		}
	}
	return out
}

// Field is the resource field named name, or nil.
func (r *Resource) Field(name string) *Field { return r.field(name) }

// EntTypeName is the Go type of the field in ent.
func (f *Field) EntTypeName() string { return f.entType() }

// field is the resource field named name, or nil.
func (r *Resource) field(name string) *Field {
	for _, f := range r.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Has reports whether the resource exposes op.
func (r *Resource) Has(op annotate.Operation) bool { return slices.Contains(r.Ann.Ops, op) }

// Generated reports whether the handler of op is generated.
func (r *Resource) Generated(op annotate.Operation) bool {
	return r.Has(op) && !slices.Contains(r.Ann.Custom, op)
}

// Shared reports whether the resource has shared (is_global) rows.
func (r *Resource) Shared() bool {
	for _, f := range r.Type.Fields {
		if f.Name == "is_global" {
			return true
		}
	}
	return false
}

// Output are the top-level fields of the response schema: id first, then
// every shown field outside a group.
func (r *Resource) Output() []*Field { return append([]*Field{r.ID}, r.InGroup("")...) }

// InGroup are the fields placed in the named group ("" for the top level).
func (r *Resource) InGroup(name string) []*Field {
	var out []*Field
	for _, f := range r.Fields {
		if f.Ann.Group == name {
			out = append(out, f)
		}
	}
	return out
}

// EdgesInGroup are the edges placed in the named group ("" for the top level).
func (r *Resource) EdgesInGroup(name string) []*Edge {
	var out []*Edge
	for _, e := range r.Edges {
		if e.Ann.Group == name {
			out = append(out, e)
		}
	}
	return out
}

// ListEdges are the edges a list loads (those it does not show as null).
func (r *Resource) ListEdges() []*Edge {
	var out []*Edge
	for _, e := range r.Edges {
		if !e.Ann.ListNull {
			out = append(out, e)
		}
	}
	return out
}

// GroupType is the ogen type name of a group object, e.g. "ProductMaterial".
func (r *Resource) GroupType(name string) string { return r.Schema + pascal(name) }

// WhenField is the field that decides whether group g is populated.
func (r *Resource) WhenField(g annotate.Group) *Field { return r.field(g.When) }

// Writable are the fields a create body accepts.
func (r *Resource) Writable() []*Field {
	var out []*Field
	for _, f := range r.Fields {
		if !f.Ann.ReadOnly {
			out = append(out, f)
		}
	}
	return out
}

// Updatable are the fields an update body accepts.
func (r *Resource) Updatable() []*Field {
	var out []*Field
	for _, f := range r.Writable() {
		if !f.F.Immutable {
			out = append(out, f)
		}
	}
	return out
}

// Immutables are the writable fields an update refuses.
func (r *Resource) Immutables() []*Field {
	var out []*Field
	for _, f := range r.Writable() {
		if f.F.Immutable {
			out = append(out, f)
		}
	}
	return out
}

// Filters are the fields with a list filter.
func (r *Resource) Filters() []*Field {
	var out []*Field
	for _, f := range r.Fields {
		if f.Ann.Filter != "" {
			out = append(out, f)
		}
	}
	return append(out, r.FilterOnly...)
}

// Includes are the fields with an include parameter (annotate.IncludeParam).
func (r *Resource) Includes() []*Field {
	var out []*Field
	for _, f := range r.Fields {
		if f.Ann.Include != "" {
			out = append(out, f)
		}
	}
	return out
}

// Sorts are the sortable fields, id included, in alphabetical order.
func (r *Resource) Sorts() []string {
	out := []string{"id"}
	for _, f := range r.Fields {
		if f.Ann.Sort {
			out = append(out, f.Name)
		}
	}
	bs, _ := r.Borrows()
	for _, b := range bs {
		for _, f := range b.Sorted {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Searched are the fields `search` matches.
func (r *Resource) Searched() []*Field {
	var out []*Field
	for _, f := range r.Fields {
		if f.Ann.Search {
			out = append(out, f)
		}
	}
	return out
}

// Costs are the cost fields.
func (r *Resource) Costs() []*Field {
	var out []*Field
	for _, f := range r.Fields {
		if f.Ann.Cost {
			out = append(out, f)
		}
	}
	return out
}

// Events are the full webhook event types of the resource.
func (r *Resource) Events() []string {
	out := make([]string, len(r.Ann.Events))
	for i, a := range r.Ann.Events {
		out[i] = r.Event + "." + a
	}
	return out
}

// Scope is the scope op needs.
func (r *Resource) Scope(op annotate.Operation) string {
	if op == annotate.List || op == annotate.Read {
		return r.Ann.Scope + ":read"
	}
	return r.Ann.Scope + ":write"
}

// OperationID is the OpenAPI operationId of op (and, in Pascal case, ogen's
// handler method name).
func (r *Resource) OperationID(op annotate.Operation) string {
	switch op {
	case annotate.List:
		return "list" + r.Group
	case annotate.Read:
		return "get" + r.Schema
	default:
		return string(op) + r.Schema
	}
}

// Method is ogen's handler method name of op.
func (r *Resource) Method(op annotate.Operation) string { return pascal(r.OperationID(op)) }

// Param is the Go name of the item path parameter.
func (r *Resource) Param() string { return pascal(r.Ann.Param) }

// Go is the ogen Go name of the field.
func (f *Field) Go() string { return pascal(f.Name) }

// EntGo is the ent struct field name.
func (f *Field) EntGo() string {
	if f.F == nil {
		return "ID"
	}
	return f.F.StructField()
}

// Kind classifies the field's value type.
func (f *Field) Kind() string {
	switch {
	case f.F == nil:
		return "int"
	case f.Ann.Format == annotate.FormatDecimal:
		return "decimal"
	case f.Ann.Format == annotate.FormatDate:
		return "date"
	case f.Ann.Format == annotate.FormatAddress:
		return "address"
	case f.F.IsEnum():
		return "enum"
	case f.F.IsTime():
		return "time"
	case f.F.IsBool():
		return "bool"
	case f.F.IsString():
		return "string"
	case strings.HasPrefix(f.F.Type.String(), "float"):
		return "float"
	case f.F.Type.Numeric():
		return "int"
	}
	return "unknown"
}

// Nillable reports whether the stored value can be null.
func (f *Field) Nillable() bool { return f.F != nil && f.F.Nillable }

// RequiredOnCreate reports whether a create body must give the field.
func (f *Field) RequiredOnCreate() bool {
	return f.Ann.Required || (!f.F.Optional && !f.F.Default)
}

// NullableOnCreate reports whether a create body may give null.
func (f *Field) NullableOnCreate() bool {
	return (f.F.Nillable || (f.Kind() == "address" && f.F.Optional)) && !f.Ann.Required
}

// NullOnUpdate is how an update body treats null: "clear", "ignore" or "" (refused).
func (f *Field) NullOnUpdate() string {
	switch {
	case f.Ann.Null == annotate.NullRefused:
		return ""
	case f.Ann.Null != "":
		return f.Ann.Null
	case f.F.Nillable, f.Kind() == "address":
		return annotate.NullClears
	}
	return ""
}

// EnumType is the name of the enum's API schema, e.g. "TagRefType".
func (f *Field) EnumType() string { return f.Res.Schema + pascal(f.Name) }

// IsID reports whether the field holds an id: the record's own, or a
// reference to another record (a foreign key).
func (f *Field) IsID() bool { return f.F == nil || f.Edge() != nil }

// Edge is the ent edge whose foreign key the field is, if any.
func (f *Field) Edge() *gen.Edge {
	if f.F == nil || !f.F.IsEdgeField() {
		return nil
	}
	e, err := f.F.Edge()
	if err != nil {
		return nil
	}
	return e
}

func resourceAnnotation(n *gen.Type) (annotate.Resource, bool, error) {
	var a annotate.Resource
	raw, ok := n.Annotations[annotate.ResourceName]
	if !ok {
		return a, false, nil
	}
	return a, true, decode(raw, &a)
}

func edgeAnnotation(e *gen.Edge) (annotate.Edge, bool, error) {
	var a annotate.Edge
	raw, ok := e.Annotations[annotate.EdgeName]
	if !ok {
		return a, false, nil
	}
	return a, true, decode(raw, &a)
}

func fieldAnnotation(f *gen.Field) (annotate.Field, error) {
	var a annotate.Field
	raw, ok := f.Annotations[annotate.FieldName]
	if !ok {
		return a, nil
	}
	return a, decode(raw, &a)
}

func decode(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// WritableEdges are the IDs edges create and update bodies may replace.
func (r *Resource) WritableEdges() []*Edge {
	var out []*Edge
	for _, e := range r.Edges {
		if e.Ann.MaxItems > 0 {
			out = append(out, e)
		}
	}
	return out
}

// JoinParentField is the ent struct field of the join row's foreign key to
// the resource (CustomerID of a CustomerTag).
func (e *Edge) JoinParentField() string {
	for _, f := range e.E.Type.Fields {
		if f.Name == e.E.Rel.Column() {
			return f.StructField()
		}
	}
	return pascal(e.E.Rel.Column())
}

// Target is the edge of the join row to the rows an IDs edge names (the tag
// of a CustomerTag).
func (e *Edge) Target() *gen.Edge {
	for _, x := range e.E.Type.Edges {
		if x.Field() != nil && x.Field().Name == e.Ann.IDField {
			return x
		}
	}
	return nil
}

// Setter is the name of the generated function that replaces the edge's set.
func (e *Edge) Setter() string { return "set" + e.Res.Schema + pascal(e.Ann.JSON) }

// Missing words a writable edge's id that names no acceptable row.
func (e *Edge) Missing() string {
	m := "must name " + article(prose(e.Target().Type.Name))
	if e.Ann.OfField != "" {
		m += " with " + e.Ann.OfField + " " + e.Ann.OfValue
	}
	return m + " of the account"
}

// ParentEdge is the edge of a nested resource to its parent, or nil.
func (r *Resource) ParentEdge() *gen.Edge {
	if r.Ann.Parent == nil {
		return nil
	}
	for _, e := range r.Type.Edges {
		if e.Field() != nil && e.Field().Name == r.Ann.Parent.Field {
			return e
		}
	}
	return nil
}

// ParentParam is the Go name of a nested resource's parent path parameter.
func (r *Resource) ParentParam() string { return pascal(r.Ann.Parent.Param) }

// ParentWhere is the predicate restricting a nested resource to the parent
// the path names.
func (r *Resource) ParentWhere() string {
	return r.Type.Package() + "." + r.ParentEdge().Field().StructField() + "(p." + r.ParentParam() + ")"
}

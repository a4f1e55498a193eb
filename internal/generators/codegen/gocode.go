package codegen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/annotate"
)

// This file writes the Go statements the templates paste in: each field knows
// how its value crosses between ent and the ogen types. Every non-integer
// number is a bounds.Decimal in the API; a float column converts through the
// shortest decimal, exact for the 15 significant digits the API accepts.

// toAPI converts an ent value expression to the API type.
func (f *Field) toAPI(v string) string {
	switch f.Kind() {
	case "enum":
		return "oas." + f.EnumType() + "(" + v + ")"
	case "decimal":
		return "bounds.NewDecimal(" + v + ")"
	case "float":
		return "bounds.FromFloat(" + v + ")"
	case "address":
		return "addressToAPI(" + v + ")"
	}
	return v
}

// toEnt converts an API value expression to the ent type.
func (f *Field) toEnt(v string) string {
	switch f.Kind() {
	case "enum":
		return f.Res.Type.Package() + "." + f.F.StructField() + "(" + v + ")"
	case "decimal":
		return v + ".Decimal"
	case "float":
		return v + ".InexactFloat64()"
	case "address":
		return "addressToEnt(" + v + ")"
	}
	return v
}

// bodyToEnt converts a body's value expression to the ent type: toEnt, and
// a timestamp from the bounds.Instant every body decodes it into.
func (f *Field) bodyToEnt(v string) string {
	if f.Kind() == "time" {
		return v + ".Time"
	}
	return f.toEnt(v)
}

// ApplyCreate is the statement that sets the field of create builder b from req.
func (f *Field) ApplyCreate() string {
	set := "b.Set" + f.F.StructField()
	if f.Kind() == "address" && !f.RequiredOnCreate() {
		return f.applyAddress(set)
	}
	if f.RequiredOnCreate() {
		return fmt.Sprintf("%s(%s)", set, f.bodyToEnt("req."+f.Go()))
	}
	return fmt.Sprintf("if v, ok := req.%s.Get(); ok {\n\t%s(%s)\n}", f.Go(), set, f.bodyToEnt("v"))
}

// ApplyUpdate is the statement that sets the field of update builder u from req.
func (f *Field) ApplyUpdate() string {
	set := "u.Set" + f.F.StructField()
	if f.Kind() == "address" {
		return f.applyAddress(set)
	}
	if f.NullOnUpdate() == annotate.NullClears {
		return fmt.Sprintf("if req.%s.IsSet() {\n\tif v, ok := req.%s.Get(); ok {\n\t\t%s(%s)\n\t} else {\n\t\tu.Clear%s()\n\t}\n}",
			f.Go(), f.Go(), set, f.bodyToEnt("v"), f.F.StructField())
	}
	return fmt.Sprintf("if v, ok := req.%s.Get(); ok {\n\t%s(%s)\n}", f.Go(), set, f.bodyToEnt("v"))
}

// applyAddress is the statement that writes an address given in req whole
// (null: every part null) and leaves it unchanged when omitted.
func (f *Field) applyAddress(set string) string {
	return fmt.Sprintf("if req.%s.IsSet() {\n\tv, _ := req.%s.Get()\n\t%s(%s)\n}", f.Go(), f.Go(), set, f.bodyToEnt("v"))
}

// IsDecimal reports whether the API shows the field as an exact decimal.
func (f *Field) IsDecimal() bool { return f.Kind() == "decimal" || f.Kind() == "float" }

// RangeVar is the name of the package variable holding the field's range.
func (f *Field) RangeVar() string { return lowerFirst(f.Res.Schema) + pascal(f.Name) + "Range" }

// Range is the bounds.Range literal of a decimal field's own bounds, or "".
func (f *Field) Range() string {
	a := f.Ann
	if !f.IsDecimal() || (a.Min == nil && a.Max == nil) {
		return ""
	}
	var parts []string
	if a.Min != nil {
		parts = append(parts, fmt.Sprintf("Min: bounds.Bound(%q)", strconv.FormatFloat(*a.Min, 'f', -1, 64)))
		if a.ExclusiveMin {
			parts = append(parts, "MinExcl: true")
		}
	}
	if a.Max != nil {
		parts = append(parts, fmt.Sprintf("Max: bounds.Bound(%q)", strconv.FormatFloat(*a.Max, 'f', -1, 64)))
	}
	return "bounds.Range{" + strings.Join(parts, ", ") + "}"
}

// CheckRange is the statement that records a range violation of the field in
// a body req into fails; onCreate says whether req is a create body.
func (f *Field) CheckRange(onCreate bool) string {
	return f.checkRangeAt(onCreate, strconv.Quote(f.Name))
}

// checkRangeAt is CheckRange naming the field by the Go expression path.
func (f *Field) checkRangeAt(onCreate bool, path string) string {
	record := fmt.Sprintf("if err := %s.Check(%%s); err != nil {\n\tfails = append(fails, problem.FieldError{Field: %s, Message: err.Error()})\n}",
		f.RangeVar(), strings.ReplaceAll(path, "%", "%%"))
	if onCreate && f.RequiredOnCreate() {
		return fmt.Sprintf(record, "req."+f.Go())
	}
	return fmt.Sprintf("if v, ok := req.%s.Get(); ok {\n%s\n}", f.Go(), fmt.Sprintf(record, "v"))
}

// Ranged are the fields among fs with a range of their own.
func Ranged(fs []*Field) []*Field {
	var out []*Field
	for _, f := range fs {
		if f.Range() != "" {
			out = append(out, f)
		}
	}
	return out
}

// Where is the statement that applies the field's list filter from params p.
func (f *Field) Where() string {
	pkg := f.Res.Type.Package()
	param := pascal(filterParam(f))
	col := pkg + "." + f.F.StructField()
	switch f.Ann.Filter {
	case annotate.Between:
		return fmt.Sprintf("if v, ok := p.%sFrom.Get(); ok {\n\tq.Where(%sGTE(v))\n}\nif v, ok := p.%sTo.Get(); ok {\n\tq.Where(%sLTE(v))\n}",
			param, col, param, col)
	case annotate.Partial:
		return fmt.Sprintf("if v, ok := p.%s.Get(); ok {\n\tq.Where(%sContainsFold(v))\n}", param, col)
	case annotate.AnyOf:
		conv := f.toEnt("v")
		typ := f.entType()
		return fmt.Sprintf("if len(p.%s) > 0 {\n\tvs := make([]%s, len(p.%s))\n\tfor i, v := range p.%s {\n\t\tvs[i] = %s\n\t}\n\tq.Where(%sIn(vs...))\n}",
			param, typ, param, param, conv, col)
	}
	if f.KnownFilter() {
		if f.Ann.FilterRequired {
			return fmt.Sprintf("q.WhereKnown(%s, %s)", f.KnownVar(), f.knownValue("p."+param))
		}
		return fmt.Sprintf("if v, ok := p.%s.Get(); ok {\n\tq.WhereKnown(%s, %s)\n}", param, f.KnownVar(), f.knownValue("v"))
	}
	if f.Ann.FilterRequired {
		return fmt.Sprintf("q.Where(%sEQ(%s))", col, f.toEnt("p."+param))
	}
	if f.Ann.FilterNull {
		return fmt.Sprintf("if v, ok := p.%s.Get(); ok {\n\tq.Where(%s.Or(%sEQ(%s), %sIsNil()))\n}", param, pkg, col, f.toEnt("v"), col)
	}
	return fmt.Sprintf("if v, ok := p.%s.Get(); ok {\n\tq.Where(%sEQ(%s))\n}", param, col, f.toEnt("v"))
}

// KnownFilter reports whether the field's list filter is a known predicate
// (ent.Known), so that a list filtered by it can be a compiled statement: an
// exact match of a value the statement takes as its argument as it is (an
// enum's text, a string, an integer, a boolean).
func (f *Field) KnownFilter() bool {
	if f.F == nil || f.Ann.Filter != "" && f.Ann.Filter != annotate.Exact || f.Ann.FilterNull {
		return false
	}
	switch f.Kind() {
	case "enum", "string", "int", "bool":
		return true
	}
	return false
}

// KnownVar names the known predicate of the field's list filter.
func (f *Field) KnownVar() string {
	return "known" + f.Res.Schema + pascal(filterParam(f))
}

// KnownMake is the known predicate's Make: the field's equality on v.
func (f *Field) KnownMake() string {
	return fmt.Sprintf("func(v any) func(*sql.Selector) { return sql.FieldEQ(%s.%s, v) }", f.Res.Type.Package(), f.F.Constant())
}

// knownValue is the argument of the known predicate for the parameter's
// value v: the text of an enum, any other value as it is.
func (f *Field) knownValue(v string) string {
	if f.Kind() == "enum" {
		return "string(" + v + ")"
	}
	return v
}

// KnownFilters are the fields among fs whose list filters are known
// predicates.
func KnownFilters(fs []*Field) []*Field {
	var out []*Field
	for _, f := range fs {
		if f.KnownFilter() {
			out = append(out, f)
		}
	}
	return out
}

// FilterSet is the expression telling whether the filter was given.
func (f *Field) FilterSet() string {
	param := pascal(filterParam(f))
	switch {
	case f.Ann.Filter == annotate.Between:
		return "p." + param + "From.IsSet() || p." + param + "To.IsSet()"
	case f.Ann.Filter == annotate.AnyOf:
		return "len(p." + param + ") > 0"
	case f.Ann.FilterRequired:
		return "true"
	}
	return "p." + param + ".IsSet()"
}

// entType is the Go type of the field in ent.
func (f *Field) entType() string {
	if f.Kind() == "enum" {
		return f.Res.Type.Package() + "." + f.F.StructField()
	}
	return f.F.Type.String()
}

// Search is the statement that restricts q to rows matching the search text v
// in any searched field (and the id, where the resource says so).
func (r *Resource) Search() string {
	pkg := r.Type.Package()
	var ps, numbers []string
	for _, f := range r.Searched() {
		if f.F.Type.Numeric() {
			// A number is found by an exact match of a numeric search text.
			numbers = append(numbers, pkg+"."+f.F.StructField()+"(n)")
			continue
		}
		if f.Ann.SearchEq {
			ps = append(ps, pkg+"."+f.F.StructField()+"EQ(v)")
		} else {
			ps = append(ps, pkg+"."+f.F.StructField()+"ContainsFold(v)")
		}
	}
	if r.Ann.SearchID {
		numbers = append([]string{pkg + ".ID(n)"}, numbers...)
	}
	if len(numbers) > 0 {
		return fmt.Sprintf("ps := []predicate.%s{%s}\nif n, ok := listing.SearchID(v); ok {\n\tps = append(ps, %s)\n}\nq.Where(%s.Or(ps...))",
			r.Type.Name, strings.Join(ps, ", "), strings.Join(numbers, ", "), pkg)
	}
	if len(ps) == 1 {
		return "q.Where(" + ps[0] + ")"
	}
	return "q.Where(" + pkg + ".Or(" + strings.Join(ps, ", ") + "))"
}

// Visible are the predicates, joined by commas, restricting queries to the
// rows the resource shows: roots only (warehouses among locations), rows not
// soft-deleted; "" when it shows every row the caller may see.
func (r *Resource) Visible() string { return strings.Join(visible(r.Type, r.Ann.RootsOnly), ", ") }

// visible are the predicates of Visible for type t exposed with roots.
func visible(t *gen.Type, roots string) []string {
	var out []string
	for _, f := range t.Fields {
		if roots != "" && f.Name == roots {
			out = append(out, t.Package()+"."+f.StructField()+"IsNil()")
		}
	}
	if sd, _ := softDeleteField(t); sd != nil {
		out = append(out, t.Package()+"."+sd.StructField()+"IsNil()")
	}
	return out
}

// SoftDeleteCall is the builder call that soft-deletes a row: it sets the
// soft-delete field to now, at the microsecond precision both databases keep.
func (r *Resource) SoftDeleteCall() string {
	return "Set" + r.SoftDelete.StructField() + "(time.Now().UTC().Truncate(time.Microsecond))"
}

// IncludeWhere is the statement that leaves out the rows whose field is true
// unless the include parameter (default as declared) is true.
func (f *Field) IncludeWhere() string {
	return fmt.Sprintf("if !p.%s.Or(%t) {\n\tq.Where(%s.%s(false))\n}",
		pascal(f.Ann.Include), f.Ann.IncludeDefault, f.Res.Type.Package(), f.F.StructField())
}

// NullInList are the fields lists show as null.
func (r *Resource) NullInList() []*Field {
	var out []*Field
	for _, f := range r.Fields {
		if f.Ann.ListNull {
			out = append(out, f)
		}
	}
	return out
}

// Shown is the column list (ent field constants) of what the converter
// reads of a row, for the query of a single retrieval or, with list, of a
// list (without the fields lists show as null): every field the API shows
// and the fields its groups are chosen by. ent adds the id and the foreign
// keys of the edges the query loads. The other columns (timestamps a
// resource does not show, account_id) would be sent, parsed by lib/pq and
// scanned by ent for nothing: on a 200-row list of tags their two
// timestamps were a tenth of the request's CPU.
func (r *Resource) Shown(list bool) string {
	var cols []string
	seen := map[string]bool{}
	add := func(f *Field) {
		if f == nil || f.F == nil || seen[f.F.Name] {
			return
		}
		seen[f.F.Name] = true
		cols = append(cols, r.Type.Package()+".Field"+f.F.StructField())
	}
	for _, f := range r.Fields {
		if !(list && f.Ann.ListNull) {
			add(f)
		}
	}
	for _, g := range r.Ann.Groups {
		add(r.field(g.When))
	}
	return strings.Join(cols, ", ")
}

// NotInSnapshot are the JSON keys webhook snapshots leave out of a record as
// a single retrieval shows it: its cost fields and its lines. Everything
// else at the top level stays (a snapshot holds the record's top-level
// fields): borrowed fields, groups and every other edge.
func (r *Resource) NotInSnapshot() []string {
	var out []string
	for _, f := range r.Fields {
		if f.Ann.Cost && f.Ann.Group == "" {
			out = append(out, f.Name)
		}
	}
	for _, e := range r.EdgesInGroup("") {
		if e.IsLines() {
			out = append(out, e.Name())
		}
	}
	return out
}

// SnapshotEdges are the edges a webhook snapshot shows: all but the lines.
func (r *Resource) SnapshotEdges() []*Edge {
	var out []*Edge
	for _, e := range r.Edges {
		if !e.IsLines() {
			out = append(out, e)
		}
	}
	return out
}

// IsLines reports whether e is a record's lines, which webhook snapshots
// leave out.
func (e *Edge) IsLines() bool { return e.Ann.Doc != nil || e.Ann.JSON == "lines" }

// SnapshotLoads reports whether a snapshot shows rows beyond the record's
// own: fields it borrows or edges.
func (r *Resource) SnapshotLoads() bool {
	return len(borrows(r)) > 0 || len(r.SnapshotEdges()) > 0
}

// ConvertTo is the statement that sets dst.<field> from the ent value src.
func (f *Field) ConvertTo(src, dst string) string {
	v := src + "." + f.EntGo()
	if !f.Nillable() {
		return fmt.Sprintf("%s.%s = %s", dst, f.Go(), f.toAPI(v))
	}
	return fmt.Sprintf("if %s != nil {\n\t%s.%s.SetTo(%s)\n} else {\n\t%s.%s.SetToNull()\n}",
		v, dst, f.Go(), f.toAPI("(*"+v+")"), dst, f.Go())
}

// ConvertNullable is the statement that sets the nullable dst.<field> from
// the ent value src (a borrowed field: null when there is no referenced row,
// so the API field is nullable whatever the referenced column is).
func (f *Field) ConvertNullable(src, dst string) string {
	v := src + "." + f.EntGo()
	if !f.Nillable() {
		return fmt.Sprintf("%s.%s.SetTo(%s)", dst, f.Go(), f.toAPI(v))
	}
	return fmt.Sprintf("if %s != nil {\n\t%s.%s.SetTo(%s)\n} else {\n\t%s.%s.SetToNull()\n}",
		v, dst, f.Go(), f.toAPI("(*"+v+")"), dst, f.Go())
}

// SortTerm is the listing.Sort of the sortable field name of r: a column of
// its table, or a borrowed field ordered through a join.
func (r *Resource) SortTerm(name string) string {
	for _, f := range r.Type.Fields {
		if f.Name == name && f.Name != "id" {
			// A column of the table, shown or a hidden copy of a borrowed
			// field (an index serves it; a join would not).
			term := fmt.Sprintf("listing.Column(%s.Field%s, %s)", r.Type.Package(), f.StructField(), sortKind(f))
			if f.Optional || f.Nillable {
				term += ".OrNull()"
			}
			return term
		}
	}
	bs, _ := r.Borrows()
	for _, b := range bs {
		for _, f := range b.Sorted {
			if f.Name == name {
				pkg := b.Edge.Type.Package()
				return fmt.Sprintf("listing.Borrowed(func(o ...sql.OrderTermOption) func(*sql.Selector) {\n\treturn %s.By%sField(%s.Field%s, o...)\n}, %s, %s.Table, %s.FieldID, %s.Field%s, %s.Field%s)",
					r.Type.Package(), b.Edge.StructField(), pkg, f.F.StructField(), sortKind(f.F),
					pkg, pkg, pkg, f.F.StructField(), r.Type.Package(), b.Via.F.StructField())
			}
		}
	}
	return fmt.Sprintf("listing.Column(%s.Field%s, listing.Int)", r.Type.Package(), sortField(r, name))
}

// sortKind is the listing.Kind of a sortable column's values, as cursors
// carry them.
func sortKind(gf *gen.Field) string {
	fa, _ := fieldAnnotation(gf)
	f := &Field{F: gf, Ann: fa}
	switch {
	case f.Kind() == "decimal" || strings.Contains(gf.Type.String(), "decimal.Decimal"):
		return "listing.Decimal"
	}
	switch f.Kind() {
	case "date", "time":
		return "listing.Time"
	case "enum", "string":
		return "listing.Text"
	case "bool":
		return "listing.Bool"
	case "float":
		return "listing.Float"
	}
	return "listing.Int"
}

// BorrowImports are the ent packages of the rows r borrows fields from.
func (r *Resource) BorrowImports() []string {
	bs, _ := r.Borrows()
	for _, x := range r.Entries() {
		more, _ := x.Borrows()
		bs = append(bs, more...)
	}
	var out []string
	for _, b := range bs {
		if p := b.Edge.Type.PackageDir(); p != r.Type.PackageDir() && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// With loads the referenced row of b on a query q with only the id and the
// borrowed columns: the row may hold long texts the answer never shows.
func (b *Borrowed) With() string {
	pkg := b.Edge.Type.Package()
	cols := []string{pkg + ".FieldID"}
	for _, f := range b.Fields {
		cols = append(cols, pkg+".Field"+f.F.StructField())
	}
	return fmt.Sprintf("q.With%s(func(q *ent.%sQuery) {\n\tq.Select(%s)\n})",
		b.Edge.StructField(), b.Edge.Type.Name, strings.Join(cols, ", "))
}

// Convert is the statement that sets dst.<edge> from the loaded edge of the
// ent entity e: the ids or the entries, or null (an empty array where null is
// not allowed) when the edge was not loaded.
func (e *Edge) Convert(dst string) string {
	edge := e.E.StructField()
	var build string
	if e.Entry == nil {
		build = fmt.Sprintf("vs := make([]int, len(rows))\nfor i, x := range rows {\n\tvs[i] = x.%s\n}", e.IDField())
	} else {
		build = fmt.Sprintf("vs := make([]oas.%s, len(rows))\nfor i, x := range rows {\n\tvs[i] = %s(x)\n}", e.Entry.Schema, e.Entry.EntryFunc())
	}
	// ogen shows a nil slice of a nullable array as null; vs is never nil.
	set, unset := dst+"."+e.Go()+" = vs", dst+"."+e.Go()+" = "+e.empty()
	if e.Ann.ListNull {
		unset = dst + "." + e.Go() + " = nil"
	}
	return fmt.Sprintf("if rows, err := e.Edges.%sOrErr(); err == nil {\n%s\n%s\n} else {\n%s\n}", edge, build, set, unset)
}

func (e *Edge) empty() string {
	if e.Entry == nil {
		return "[]int{}"
	}
	return "[]oas." + e.Entry.Schema + "{}"
}

// With is the eager-loading call for the edge on a query q, join rows in id
// order with the rows their borrowed fields come from, reading the columns
// the answer shows.
func (e *Edge) With() string {
	join := e.E.Type
	var also []string
	if e.Entry != nil {
		bs, _ := e.Entry.Borrows()
		for _, b := range bs {
			also = append(also, b.With())
		}
	}
	// Only the columns the answer shows: the collected id, or the entry's
	// fields (ent adds the foreign keys to the parent and to the rows the
	// entry borrows from).
	cols := join.Package() + ".Field" + e.IDField()
	if e.Entry != nil {
		cols = e.Entry.Shown(false)
	}
	if cols != "" {
		also = append(also, "q.Select("+cols+")")
	}
	return fmt.Sprintf("q.With%s(func(q *ent.%sQuery) {\n\tq.Order(ent.Asc(%s.FieldID))\n%s\n})",
		e.E.StructField(), join.Name, join.Package(), strings.Join(also, "\n"))
}

// EntryFunc is the name of the converter of a join entity to its entry.
func (r *Resource) EntryFunc() string { return lowerFirst(r.Schema) + "Entry" }

// GroupCond is the condition under which group g is populated.
func (r *Resource) GroupCond(name string) string {
	for _, g := range r.Ann.Groups {
		if g.Name == name {
			return fmt.Sprintf("string(e.%s) == %q", r.field(g.When).EntGo(), g.Is)
		}
	}
	return "false"
}

// Entries are the join entities the resource shows as entries.
func (r *Resource) Entries() []*Resource {
	var out []*Resource
	seen := map[string]bool{}
	for _, e := range r.Edges {
		if e.Entry != nil && !seen[e.Entry.Schema] {
			seen[e.Entry.Schema] = true
			out = append(out, e.Entry)
		}
	}
	return out
}

// Node is the ent type view used by the ent-package template.
type Node struct {
	T *gen.Type
	// Res is the resource the API serves the type as (nil: not served).
	Res      *Resource
	Costs    []*gen.Field
	Locks    []*gen.Field
	Refs     []*Ref
	Events   *EventInfo
	Machines []*MachineField
}

// Lines is the document-lines edge of a node and its place among the node's
// edges (ent's index in Edges.loadedTypes), or nil.
func (n *Node) Lines() *LoadedEdge {
	if n.Res == nil || n.Res.DocEdge() == nil {
		return nil
	}
	d := n.Res.DocEdge().E
	for i, e := range n.T.Edges {
		if e == d {
			return &LoadedEdge{E: e, Index: i}
		}
	}
	return nil
}

// LoadedEdge is an edge and its index in ent's Edges.loadedTypes.
type LoadedEdge struct {
	E     *gen.Edge
	Index int
}

// Ref is a foreign key a mutation may set, and what the row it names must be.
type Ref struct {
	E *gen.Edge
	// Where are the predicates the named row must meet beyond being visible to
	// the caller: a root (RefRoot), not soft-deleted.
	Where []string
	// Noun names the expected row in the refusal ("warehouse").
	Noun string
	// Reads are the field constants of the named row's columns the check
	// reads and keeps for the transaction's hooks (annotate.CheckReads);
	// nil when it only asks whether the row exists.
	Reads []string
}

// refOf describes the foreign key of edge e.
func refOf(e *gen.Edge) (*Ref, error) {
	a, err := fieldAnnotation(e.Field())
	if err != nil {
		return nil, err
	}
	r := &Ref{E: e, Noun: Human(e.Type)}
	roots := ""
	if a.RefRoot {
		ann, _, err := resourceAnnotation(e.Type)
		if err != nil {
			return nil, err
		}
		roots = ann.RootsOnly
		name := e.Type.Name
		if ann.Schema != "" {
			name = ann.Schema
		}
		r.Noun = prose(name)
	}
	r.Where = visible(e.Type, roots)
	for _, name := range a.CheckReads {
		f := refField(e.Type, name)
		if f == nil {
			return nil, fmt.Errorf("%s: CheckReads: %s has no field %s", e.Field().Name, e.Type.Name, name)
		}
		r.Reads = append(r.Reads, e.Type.Package()+"."+f.Constant())
	}
	return r, nil
}

// Select is the list of the columns the check reads (Reads).
func (r *Ref) Select() string { return strings.Join(r.Reads, ", ") }

// Predicates are the predicates of the query that finds the named row.
func (r *Ref) Predicates() string {
	return strings.Join(append([]string{r.E.Type.Package() + ".ID(id)"}, r.Where...), ", ")
}

// EventInfo is what the outbox needs to know about a webhook resource.
type EventInfo struct {
	Resource string
	Actions  []string
	Roots    string // field that must be nil for a row to be the resource
	// Parent is the ent type of the document a line belongs to, and
	// ParentField the line's Go field holding the parent's id ("" unless a line).
	Parent, ParentField string
	// SoftDelete is the field whose setting is reported as .deleted ("" for none).
	SoftDelete string
}

// nodes is the view of every ent type for the ent-package template.
func nodes(g *gen.Graph) ([]*Node, error) {
	rs, err := loadResources(g)
	if err != nil {
		return nil, err
	}
	byType := map[string]*Resource{}
	for _, r := range rs {
		byType[r.Type.Name] = r
	}
	var out []*Node
	for _, t := range g.Nodes {
		n := &Node{T: t, Res: byType[t.Name]}
		for _, f := range t.Fields {
			a, err := fieldAnnotation(f)
			if err != nil {
				return nil, err
			}
			if a.Cost {
				n.Costs = append(n.Costs, f)
			}
			if a.Locks {
				n.Locks = append(n.Locks, f)
			}
			m, err := machineOf(t, f)
			if err != nil {
				return nil, err
			}
			if m != nil {
				n.Machines = append(n.Machines, m)
			}
		}
		for _, e := range t.Edges {
			if !e.OwnFK() || e.Field() == nil {
				continue
			}
			if e.Type.Name == "Account" || e.Type.Name == "Organization" {
				continue
			}
			ref, err := refOf(e)
			if err != nil {
				return nil, err
			}
			n.Refs = append(n.Refs, ref)
		}
		if r := byType[t.Name]; r != nil && len(r.Ann.Events) > 0 {
			n.Events = &EventInfo{Resource: r.Event, Actions: r.Ann.Events, Roots: r.Ann.RootsOnly}
			if r.SoftDelete != nil {
				n.Events.SoftDelete = r.SoftDelete.Name
			}
		}
		line, err := lineEvents(t, byType)
		if err != nil {
			return nil, err
		}
		if line != nil {
			n.Events = line
		}
		out = append(out, n)
	}
	return out, nil
}

// ReachesCost reports whether the type or a type reachable through its edges
// has cost fields, so redaction must descend into it.
func (n *Node) ReachesCost(all []*Node) bool {
	byName := map[string]*Node{}
	for _, x := range all {
		byName[x.T.Name] = x
	}
	seen := map[string]bool{}
	var reach func(t *gen.Type) bool
	reach = func(t *gen.Type) bool {
		if seen[t.Name] {
			return false
		}
		seen[t.Name] = true
		if len(byName[t.Name].Costs) > 0 {
			return true
		}
		for _, e := range t.Edges {
			if reach(e.Type) {
				return true
			}
		}
		return false
	}
	return reach(n.T)
}

// CostEdges are the edges through which cost fields can be reached.
func (n *Node) CostEdges(all []*Node) []*gen.Edge {
	byName := map[string]*Node{}
	for _, x := range all {
		byName[x.T.Name] = x
	}
	var out []*gen.Edge
	for _, e := range n.T.Edges {
		if byName[e.Type.Name].ReachesCost(all) {
			out = append(out, e)
		}
	}
	return out
}

// Human is the type name in words ("unit of measure").
func Human(t *gen.Type) string { return prose(t.Name) }

// UniqueIndex is a unique index and its columns.
type UniqueIndex struct {
	Name    string
	Columns []string
}

// UniqueConflict is the declared answer (annotate.Conflict) to a violation
// of the unique index Name.
type UniqueConflict struct {
	Name string
	annotate.IndexConflict
}

// uniqueConflicts lists the unique indexes whose violation has a declared
// answer, by the name PostgreSQL reports, in the graph's order.
func uniqueConflicts(g *gen.Graph) ([]UniqueConflict, error) {
	var out []UniqueConflict
	for _, t := range g.Nodes {
		for _, idx := range t.Indexes {
			raw, ok := idx.Annotations[annotate.ConflictName]
			if !ok {
				continue
			}
			var c annotate.IndexConflict
			if err := decode(raw, &c); err != nil {
				return nil, fmt.Errorf("%s: index %s: %w", t.Name, idx.Name, err)
			}
			if !idx.Unique {
				return nil, fmt.Errorf("%s: index %s: a conflict answer needs a unique index", t.Name, idx.Name)
			}
			if c.Code == "" || c.Message == "" {
				return nil, fmt.Errorf("%s: index %s: a conflict answer needs a code and a message", t.Name, idx.Name)
			}
			out = append(out, UniqueConflict{Name: idx.Name, IndexConflict: c})
		}
	}
	return out, nil
}

// uniqueIndexes lists every unique index of the graph, as PostgreSQL names them.
func uniqueIndexes(g *gen.Graph) []UniqueIndex {
	var out []UniqueIndex
	for _, t := range g.Nodes {
		for _, idx := range t.Indexes {
			if idx.Unique {
				out = append(out, UniqueIndex{Name: idx.Name, Columns: idx.Columns})
			}
		}
		for _, f := range t.Fields {
			if f.Unique {
				out = append(out, UniqueIndex{Name: t.Table() + "_" + f.StorageKey() + "_key", Columns: []string{f.StorageKey()}})
			}
		}
	}
	return out
}

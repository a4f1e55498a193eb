package codegen

// Document lines (annotate.Edge.Lines): the writable lines of a purchase
// order, a bill or a sales order.

import (
	"fmt"
	"strconv"
	"strings"

	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/annotate"
)

// validateDoc refuses document lines the generator cannot write.
func (e *Edge) validateDoc() error {
	d := e.Ann.Doc
	if d == nil {
		return nil
	}
	if e.Entry == nil {
		return fmt.Errorf("document lines must be an Entries edge")
	}
	e.Entry.LineID = true
	if d.Min < 1 || d.Max < d.Min {
		return fmt.Errorf("document lines need 1 <= min <= max (got %d..%d)", d.Min, d.Max)
	}
	if d.Distinct != "" {
		f := e.Entry.field(d.Distinct)
		if f == nil || f.Ann.ReadOnly || d.DistinctMax < 1 {
			return fmt.Errorf("AtMostDistinct: %s must be a writable line field, with a positive maximum", d.Distinct)
		}
	}
	if d.Handover && (!d.Prepare || !d.Record) {
		return fmt.Errorf("HandedOver hands what Prepare decided to Record: declare both (Prepared, Recorded)")
	}
	if d.Handover && e.Res.Has(annotate.Update) {
		return fmt.Errorf("HandedOver: the lines of a document that is updated cannot be handed over")
	}
	if len(e.Res.DocEdges()) > 0 {
		return fmt.Errorf("a document has one set of lines")
	}
	if r := d.Read; r != nil {
		if !d.Prepare {
			return fmt.Errorf("Reading(%s) hands rows to Prepare: declare it with Prepared", r.Field)
		}
		l := e.ReadRef()
		if l == nil {
			return fmt.Errorf("Reading(%s): not a writable foreign key of the lines", r.Field)
		}
		for _, c := range r.Columns {
			if refField(l.Ref.E.Type, c) == nil {
				return fmt.Errorf("Reading(%s): %s has no field %s", r.Field, l.Ref.E.Type.Name, c)
			}
		}
	}
	if len(e.Entry.Writable()) == 0 {
		return fmt.Errorf("document lines need writable line fields")
	}
	if d.KeepByID && (e.E.Type.ID == nil || !e.E.Type.ID.UserDefined) {
		return fmt.Errorf("lines kept by id need an id field declared on %s (field.Int(\"id\")), so that a kept line is written back with its id", e.E.Type.Name)
	}
	return nil
}

// DocEdge is the resource's document lines, or nil.
func (r *Resource) DocEdge() *Edge {
	if es := r.DocEdges(); len(es) > 0 {
		return es[0]
	}
	return nil
}

// DocEdges are the resource's document lines.
func (r *Resource) DocEdges() []*Edge {
	var out []*Edge
	for _, e := range r.Edges {
		if e.Ann.Doc != nil {
			out = append(out, e)
		}
	}
	return out
}

// AnswersWritten reports whether a create answers with the document and the
// lines it has just written instead of reading them back: the answer shows no
// edge but the lines, and neither the document nor a line borrows a field.
// After a Record workflow, which may change the document (a shipment gets its
// invoice), the document's row is read again; the lines never are (Record
// leaves them as written). What ent returned from the inserts is what a read
// returns: defaults are set in Go, times are truncated to the microsecond the
// databases keep, and decimals are bounded to the columns' scale.
func (r *Resource) AnswersWritten() bool {
	d := r.DocEdge()
	if d == nil || len(r.Edges) != 1 || len(r.WritableEdges()) > 0 {
		return false
	}
	if bs, err := r.Borrows(); err != nil || len(bs) > 0 {
		return false
	}
	bs, err := d.Entry.Borrows()
	return err == nil && len(bs) == 0
}

// InputSchema is the API schema of one line in a body.
func (e *Edge) InputSchema() string { return e.Entry.Schema + "Input" }

// Builder is the name of the generated function that checks a body's lines
// and makes their builders.
func (e *Edge) Builder() string { return "build" + e.Res.Schema + pascal(e.Ann.JSON) }

// Keeper is the name of the generated function that checks the lines an
// update keeps by id.
func (e *Edge) Keeper() string { return "keep" + e.Res.Schema + pascal(e.Ann.JSON) }

// Writer is the name of the generated function that saves a document's lines.
func (e *Edge) Writer() string { return "write" + e.Res.Schema + pascal(e.Ann.JSON) }

// LineType is the ent type name of a line.
func (e *Edge) LineType() string { return e.E.Type.Name }

// Path is the Go expression of the body path of line i's field name.
func (e *Edge) Path(name string) string {
	return fmt.Sprintf("fmt.Sprintf(%q, i)", e.Ann.JSON+"[%d]."+name)
}

// CheckRange is the statement recording a range violation of line field f.
func (e *Edge) CheckRange(f *Field) string { return f.checkRangeAt(true, e.Path(f.Name)) }

// Refs are the line's writable foreign keys, with what the named rows must be.
func (e *Edge) Refs() []*LineRef {
	var out []*LineRef
	for _, f := range e.Entry.Writable() {
		ge := f.Edge()
		if ge == nil {
			continue
		}
		ref, err := refOf(ge)
		if err != nil {
			continue
		}
		l := &LineRef{F: f, Ref: ref}
		if d := e.Ann.Doc; d != nil && d.Read != nil && d.Read.Field == f.Name {
			l.Read = d.Read.Columns
		}
		out = append(out, l)
	}
	return out
}

// LineRef is a foreign key of a line.
type LineRef struct {
	F   *Field
	Ref *Ref
	// Read are the columns of the named rows its check reads for the
	// document's Prepare (DocLines.Read); nil when it reads only ids.
	Read []string
}

// ReadRef is the line reference whose check reads rows for Prepare, or nil.
func (e *Edge) ReadRef() *LineRef {
	if e.Ann.Doc == nil || e.Ann.Doc.Read == nil {
		return nil
	}
	for _, l := range e.Refs() {
		if l.Read != nil {
			return l
		}
	}
	return nil
}

// refField is t's field named name, or nil.
func refField(t *gen.Type, name string) *gen.Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Columns are the Select arguments of the rows' read: the field constants
// of DocLines.Read.Columns.
func (l *LineRef) Columns() string {
	t := l.Ref.E.Type
	var cs []string
	for _, c := range l.Read {
		cs = append(cs, t.Package()+"."+refField(t, c).Constant())
	}
	return strings.Join(cs, ", ")
}

// ReadsCost reports whether the rows' read includes a cost field.
func (l *LineRef) ReadsCost() bool {
	t := l.Ref.E.Type
	for _, c := range l.Read {
		if a, err := fieldAnnotation(refField(t, c)); err == nil && a.Cost {
			return true
		}
	}
	return false
}

// RowType is the ent type of the rows the reference names.
func (l *LineRef) RowType() string { return "ent." + l.Ref.E.Type.Name }

// Getter is the mutation getter of the key.
func (l *LineRef) Getter() string { return l.F.F.MutationGet() }

// Query is the expression that lists the visible named rows among ids.
func (l *LineRef) Query() string {
	t := l.Ref.E.Type
	return fmt.Sprintf("tx.%s.Query().Where(%s)", t.Name,
		strings.Join(append([]string{t.Package() + ".IDIn(ids...)"}, l.Ref.Where...), ", "))
}

// Message is the refusal of a key naming no visible row.
func (l *LineRef) Message() string {
	return strconv.Quote("must name an existing " + l.Ref.Noun + " (%d was not found)")
}

// Prepare is the call of the document's Prepare step, or "": with the
// rows its lines' reference check read (DocLines.Read) last.
func (e *Edge) Prepare(m string) string {
	switch {
	case !e.Ann.Doc.Prepare:
		return ""
	case e.Ann.Doc.Read != nil:
		return e.Res.step("Prepare", "ctx", "tx", m, "lines", "read")
	}
	return e.Res.step("Prepare", "ctx", "tx", m, "lines")
}

// ReadsCost reports whether the resource's line reference check reads a
// cost field for Prepare (the generated file then imports policy).
func (r *Resource) ReadsCost() bool {
	if e := r.DocEdge(); e != nil {
		if l := e.ReadRef(); l != nil {
			return l.ReadsCost()
		}
	}
	return false
}

// Record is the call of the document's Record step, or "": with what
// Prepare handed over (DocLines.Handover) last.
func (e *Edge) Record() string {
	switch {
	case !e.Ann.Doc.Record:
		return ""
	case e.Ann.Doc.Handover:
		return e.Res.step("Record", "ctx", "tx", "out", "rows", "prepared")
	}
	return e.Res.step("Record", "ctx", "tx", "out", "rows")
}

// WorkflowImports is the package of the resource's flow, if it has one.
func (r *Resource) WorkflowImports() []string {
	if r.Flow == nil {
		return nil
	}
	return []string{r.Flow.Package}
}

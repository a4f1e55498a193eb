package codegen

// Schemas of fields, resources and entries, and the paths of the CRUD operations.

import (
	"encoding/json"
	"fmt"
	"strings"

	"entgo.io/contrib/entoas"
	"github.com/ogen-go/ogen"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/internal/platform/address"
)

// fieldSchema is the schema of f's value: entoas' type mapping, then the
// annotations' format and bounds. Enums become one named component each.
func (b *specBuilder) fieldSchema(f *Field, nullable, bodyBounds bool) (*ogen.Schema, error) {
	if bodyBounds && f.Kind() == "time" {
		return instantSchema(f.F.Comment(), nullable), nil
	}
	var s *ogen.Schema
	switch f.Kind() {
	case "address":
		return b.addressSchema(f, nullable, bodyBounds), nil
	case "decimal", "float":
		// Every non-integer number is an exact decimal in the API (docs/api-behaviour.md,
		// "Input bounds"), whatever ent stores: within the bounds a float64
		// column round-trips it digit for digit.
		s = &ogen.Schema{Type: "number", Format: annotate.FormatDecimal}
	case "date":
		s = ogen.Date()
	case "int":
		s = ogen.Int()
	default:
		es, err := entoas.OgenSchema(f.F)
		if err != nil {
			return nil, err
		}
		c := *es // entoas returns shared pointers: copy before changing
		s = &c
	}
	if f.Kind() == "enum" {
		name := f.EnumType()
		enum := *s
		enum.Default = nil
		enum.Description = f.F.Comment()
		b.schemas()[name] = &enum
		s = ref(name)
		if nullable {
			return &ogen.Schema{AllOf: []*ogen.Schema{s}, Nullable: true}, nil
		}
		return s, nil
	}
	if f.F != nil {
		s.Description = f.F.Comment()
	} else {
		s.Description = "Unique per resource type, never reused."
	}
	if s.Format == annotate.FormatDecimal {
		s.Description = strings.TrimSpace(s.Description + " " + bounds.DecimalRule)
	}
	if f.Ann.Cost {
		s.Description = strings.TrimSpace(s.Description + " Cost field: null unless the key holds cost:read.")
	}
	if f.Ann.ListNull {
		s.Description = strings.TrimSpace(s.Description + " " + singleOnlyDoc(f.Res))
	}
	if bodyBounds {
		a := f.Ann
		s.MinLength, s.MaxLength = ptrUint(a.MinLen), ptrUint(a.MaxLen)
		if a.Min != nil {
			s.Minimum = num(*a.Min)
			s.ExclusiveMinimum = a.ExclusiveMin
		}
		if a.Max != nil {
			s.Maximum = num(*a.Max)
		}
	}
	s.Nullable = nullable
	return s, nil
}

// instantSchema is the schema of a timestamp a body writes: a date (midnight
// UTC) or a date-time, as ISO 8601 allows and bounds.Instant reads. ogen's
// input spells it as that type (instants in spec_output.go).
func instantSchema(about string, nullable bool) *ogen.Schema {
	alts := []*ogen.Schema{ogen.Date(), ogen.DateTime()}
	if nullable {
		alts = append(alts, &ogen.Schema{Type: "null"})
	}
	return &ogen.Schema{AnyOf: alts, Description: strings.TrimSpace(about + " " + bounds.InstantRule)}
}

// addressSchema is a reference to the Address component (responses: always an
// object, every part present) or the AddressInput component (bodies: parts
// optional, bounded, the object written whole), registering both once.
func (b *specBuilder) addressSchema(f *Field, nullable, input bool) *ogen.Schema {
	sc := b.schemas()
	if _, ok := sc["Address"]; !ok {
		out := ogen.NewSchema().SetDescription("A postal address. Every part is present; null when not recorded.")
		in := ogen.NewSchema().SetDescription("A postal address, written whole: an omitted part becomes null.")
		closed := false
		in.AdditionalProperties = &ogen.AdditionalProperties{Bool: &closed}
		for _, p := range []struct {
			name, about string
			max         uint64
		}{
			{"city", "City.", address.MaxPart},
			{"line1", "First line of the street address.", address.MaxPart},
			{"line2", "Second line of the street address.", address.MaxPart},
			{"postal_code", "Postal or ZIP code.", address.MaxPostalCode},
			{"state", "State or province.", address.MaxPart},
		} {
			out.AddRequiredProperties(ogen.String().SetDescription(p.about).SetNullable(true).ToProperty(p.name))
			max := p.max
			in.AddOptionalProperties(ogen.String().SetDescription(p.about).SetMaxLength(&max).SetNullable(true).ToProperty(p.name))
		}
		sc["Address"], sc["AddressInput"] = out, in
	}
	name, about := "Address", f.F.Comment()
	if input {
		name = "AddressInput"
		about = strings.TrimSpace(about + " Replaced whole when given; null clears every part; omitted leaves it unchanged.")
	}
	if nullable {
		return &ogen.Schema{AllOf: []*ogen.Schema{ref(name)}, Nullable: true, Description: about}
	}
	return &ogen.Schema{AllOf: []*ogen.Schema{ref(name)}, Description: about}
}

// writableEdges adds the id sets a body may replace to body schema s.
func (b *specBuilder) writableEdges(r *Resource, s *ogen.Schema) {
	for _, e := range r.WritableEdges() {
		one, max := int64(1), uint64(e.Ann.MaxItems)
		about := fmt.Sprintf("Ids of %s of the account, at most %d", prose(e.Target().Type.Name), max)
		if e.Ann.OfField != "" {
			about += fmt.Sprintf(", each with %s %s", e.Ann.OfField, e.Ann.OfValue)
		}
		about += ". Replaces the whole set; [] or null removes all; omitted leaves it unchanged."
		arr := ogen.Int().SetMinimum(&one).AsArray().SetMaxItems(&max).SetDescription(about)
		arr.Nullable = true
		s.AddOptionalProperties(arr.ToProperty(e.Name()))
	}
}

// docLines adds a document's lines to body schema s (required on create),
// registering the schema of one line in a body.
func (b *specBuilder) docLines(r *Resource, s *ogen.Schema, create bool) error {
	for _, e := range r.DocEdges() {
		d := e.Ann.Doc
		in := ogen.NewSchema().SetDescription("One " + Human(e.E.Type) + " in a body.")
		closed := false
		in.AdditionalProperties = &ogen.AdditionalProperties{Bool: &closed}
		for _, f := range e.Entry.Writable() {
			fs, err := b.fieldSchema(f, f.NullableOnCreate(), true)
			if err != nil {
				return err
			}
			if f.RequiredOnCreate() {
				in.AddRequiredProperties(fs.ToProperty(f.Name))
			} else {
				in.AddOptionalProperties(fs.ToProperty(f.Name))
			}
		}
		if d.KeepByID {
			one := int64(1)
			in.AddOptionalProperties(ogen.Int().SetMinimum(&one).
				SetDescription("On an update, the id of a line of this document to keep, updated with this line's fields; omitted, the line is added. A create refuses it.").
				ToProperty("id"))
		}
		b.schemas()[e.InputSchema()] = in
		min, max := uint64(d.Min), uint64(d.Max)
		about := fmt.Sprintf("%d to %d lines", d.Min, d.Max)
		if d.Distinct != "" {
			about += fmt.Sprintf(" with at most %d different %s values", d.DistinctMax, d.Distinct)
		}
		about += "; an error inside a line names it, e.g. " + e.Name() + "[3].quantity."
		arr := ref(e.InputSchema()).AsArray().SetMinItems(&min).SetMaxItems(&max)
		if create {
			s.AddRequiredProperties(arr.SetDescription("The lines, in order: " + about).ToProperty(e.Name()))
			continue
		}
		if d.KeepByID {
			about = "When given, the order's lines become these: a line with an id keeps that line, updated; one without is added; lines left out are removed. " + about
		} else {
			about = "When given, replaces every line. Omitted, the lines are unchanged. " + about
		}
		s.AddOptionalProperties(arr.SetDescription(about).ToProperty(e.Name()))
	}
	return nil
}

func ptrUint(v *int64) *uint64 {
	if v == nil {
		return nil
	}
	u := uint64(*v)
	return &u
}

func num(v float64) ogen.Num {
	b, _ := json.Marshal(v)
	return ogen.Num(b)
}

func (b *specBuilder) resource(r *Resource) error {
	sc := b.schemas()
	name := r.Schema

	out := ogen.NewSchema().SetDescription(r.Ann.Description)
	snapshot := ogen.NewSchema().SetDescription("The record's top-level fields, without lines and cost fields.")
	for _, f := range r.Output() {
		s, err := b.fieldSchema(f, f.Nillable() || f.Ann.ListNull, false)
		if err != nil {
			return err
		}
		out.AddRequiredProperties(s.ToProperty(f.Name))
		if !f.Ann.Cost {
			snapshot.AddRequiredProperties(s.ToProperty(f.Name))
		}
	}
	if err := b.borrowedProperties(r, true, out, snapshot); err != nil {
		return err
	}
	if err := b.edgeProperties(out, r, ""); err != nil {
		return err
	}
	for _, g := range r.Ann.Groups {
		gs := ogen.NewSchema().SetDescription(g.Description)
		for _, f := range r.InGroup(g.Name) {
			s, err := b.fieldSchema(f, f.Nillable() || f.Ann.ListNull, false)
			if err != nil {
				return err
			}
			gs.AddRequiredProperties(s.ToProperty(f.Name))
		}
		if err := b.edgeProperties(gs, r, g.Name); err != nil {
			return err
		}
		sc[r.GroupType(g.Name)] = gs
		group := func() *ogen.Schema {
			return &ogen.Schema{
				AllOf:       []*ogen.Schema{ref(r.GroupType(g.Name))},
				Nullable:    true,
				Description: fmt.Sprintf("Populated only when %s is %s; null otherwise.", g.When, g.Is),
			}
		}
		out.AddRequiredProperties(group().ToProperty(g.Name))
		snapshot.AddRequiredProperties(group().ToProperty(g.Name))
	}
	if err := b.snapshotEdgeProperties(snapshot, r); err != nil {
		return err
	}
	sc[name] = out
	if len(r.Ann.Events) > 0 {
		sc[name+"Snapshot"] = snapshot
	}
	sc[name+"Data"] = ogen.NewSchema().AddRequiredProperties(ref(name).ToProperty("data"))
	pagination := ref("Pagination")
	if r.Ann.Unpaginated != "" {
		pagination = ref("Pagination").SetDescription("Every row is returned in one page.")
	}
	sc[name+"List"] = ogen.NewSchema().AddRequiredProperties(
		ref(name).AsArray().ToProperty("data"),
		pagination.ToProperty("pagination"),
		example(ogen.String().SetDescription(`The order applied, e.g. "name:asc,id:asc".`), `"id:asc"`).ToProperty("order"),
	)

	closed := false
	if r.Has(annotate.Create) {
		create := ogen.NewSchema().SetDescription("Body of a create.")
		create.AdditionalProperties = &ogen.AdditionalProperties{Bool: &closed}
		for _, f := range r.Writable() {
			s, err := b.fieldSchema(f, f.NullableOnCreate(), true)
			if err != nil {
				return err
			}
			if f.RequiredOnCreate() {
				create.AddRequiredProperties(s.ToProperty(f.Name))
			} else {
				create.AddOptionalProperties(s.ToProperty(f.Name))
			}
		}
		b.writableEdges(r, create)
		if err := b.docLines(r, create, true); err != nil {
			return err
		}
		sc[name+"Create"] = create
	}
	if r.Has(annotate.Update) {
		update := ogen.NewSchema().SetDescription(updateDoc(r))
		update.AdditionalProperties = &ogen.AdditionalProperties{Bool: &closed}
		for _, f := range r.Updatable() {
			s, err := b.fieldSchema(f, f.NullOnUpdate() != "", true)
			if err != nil {
				return err
			}
			if f.NullOnUpdate() == annotate.NullIgnored {
				s.Description = strings.TrimSpace(s.Description + " Null is ignored, not cleared.")
			}
			update.AddOptionalProperties(s.ToProperty(f.Name))
		}
		b.writableEdges(r, update)
		if err := b.docLines(r, update, false); err != nil {
			return err
		}
		sc[name+"Update"] = update
	}

	b.spec.Tags = append(b.spec.Tags, ogen.Tag{Name: r.Group, Description: r.Ann.Description})
	coll := "/" + r.Ann.Path
	one := int64(1)
	var parent []*ogen.Parameter // the parent's path parameter of a nested resource
	listErrs := listErrors
	if pa := r.Ann.Parent; pa != nil {
		coll = "/" + pa.Path + "/{" + pa.Param + "}" + coll
		parent = append(parent, ogen.NewParameter().InPath().SetName(pa.Param).SetRequired(true).
			SetDescription("Id of the parent record, an integer greater than 0; 404 when the caller cannot see it.").
			SetSchema(ogen.Int().SetMinimum(&one)))
		listErrs = readErrors
	}
	item := coll + "/{" + r.Ann.Param + "}"
	idParam := ogen.NewParameter().InPath().SetName(r.Ann.Param).SetRequired(true).
		SetDescription("Id of the record, an integer greater than 0.").
		SetSchema(ogen.Int().SetMinimum(&one))
	itemParams := append(append([]*ogen.Parameter{}, parent...), idParam)
	op := func(o annotate.Operation, summary string) *ogen.Operation {
		x := ogen.NewOperation().
			SetOperationID(r.OperationID(o)).
			SetSummary(summary).
			SetDescription(fmt.Sprintf("Requires the %s scope.", r.Scope(o))).
			AddTags(r.Group)
		return x
	}
	body := func(schema string) *ogen.RequestBody {
		return ogen.NewRequestBody().SetRequired(true).SetJSONContent(ref(schema))
	}
	human := pluralProse(r)
	singular := article(prose(name))
	if human == prose(name) { // a mass noun: "Retrieve equipment"
		singular = human
	}
	if r.Has(annotate.List) {
		params, err := b.listParams(r)
		if err != nil {
			return err
		}
		path(b.spec, coll).Get = op(annotate.List, "List "+human).
			SetParameters(append(append([]*ogen.Parameter{}, parent...), params...)).
			SetResponses(responses("200", "A page of "+human+".", name+"List", listErrs...))
	}
	if r.Has(annotate.Create) {
		create := op(annotate.Create, "Create "+singular).
			AddParameters(parent...).
			SetRequestBody(body(name + "Create")).
			SetResponses(responses("201", "Created.", name+"Data", createErrors...))
		if r.Ann.Idempotent {
			// idempotency.Header and MaxLen; the generator cannot import the
			// package, which is built on the code it generates.
			const header, maxLen = "Idempotency-Key", 200
			max := uint64(maxLen)
			create.AddParameters(ogen.NewParameter().InHeader().SetName(header).
				SetDescription(fmt.Sprintf("Makes the create safe to retry: at most %d characters, scoped to the account, kept %s. "+
					"The same key with the same body answers the first answer again with 200 and creates nothing; "+
					"with another body 409 IDEMPOTENCY_KEY_REUSED; while the first request still runs 409 IDEMPOTENCY_KEY_IN_USE. "+
					"A first request that failed leaves the key free.", maxLen, "24 hours")).
				SetSchema(ogen.String().SetMaxLength(&max)))
			create.Responses["200"] = ogen.NewResponse().
				SetDescription("A retry with the same Idempotency-Key and body: the first answer again.").
				SetHeaders(stdHeaders()).SetJSONContent(ref(name + "Data"))
		}
		path(b.spec, coll).Post = create
	}
	if r.Has(annotate.Read) {
		path(b.spec, item).Get = op(annotate.Read, "Retrieve "+singular).
			AddParameters(itemParams...).
			SetResponses(responses("200", "The record.", name+"Data", readErrors...))
	}
	if r.Has(annotate.Update) {
		path(b.spec, item).Patch = op(annotate.Update, "Update "+singular).
			AddParameters(itemParams...).
			SetRequestBody(body(name + "Update")).
			SetResponses(responses("200", "Updated.", name+"Data", writeErrors...))
	}
	if r.Has(annotate.Delete) {
		del := op(annotate.Delete, "Delete "+singular)
		if r.SoftDelete != nil {
			del.Description = "Soft delete: the record leaves lists and single retrievals (404 afterwards) but is kept " +
				"for the records that reference it; its unique values are free for a new record. " + del.Description
		}
		answer := "Deleted; the record as it was."
		if r.Ann.DeleteDoc != "" {
			del.Description = r.Ann.DeleteDoc + " " + del.Description
			answer = "The record, as deleted or as changed."
		}
		path(b.spec, item).Delete = del.
			AddParameters(itemParams...).
			SetResponses(responses("200", answer, name+"Data", writeErrors...))
	}
	for _, a := range r.Actions {
		x := ogen.NewOperation().
			SetOperationID(a.Ann.ID).
			SetSummary(a.Ann.Summary).
			SetDescription(strings.TrimSpace(a.Ann.Description+a.TargetsDoc()) + fmt.Sprintf(" Requires the %s scope.", r.Scope(annotate.Update))).
			AddTags(r.Group).
			AddParameters(itemParams...)
		if len(a.Fields) > 0 {
			req := ogen.NewSchema().SetDescription("Body of the " + a.Ann.Name + " operation.")
			req.AdditionalProperties = &ogen.AdditionalProperties{Bool: &closed}
			for _, f := range a.Fields {
				s, err := b.fieldSchema(f, false, true)
				if err != nil {
					return err
				}
				req.AddRequiredProperties(s.ToProperty(f.Name))
			}
			sc[a.Body()] = req
			x.SetRequestBody(body(a.Body()))
		}
		path(b.spec, item+"/"+a.Ann.Name).Post = x.SetResponses(responses("200", "The record after the operation.", name+"Data", writeErrors...))
	}
	return nil
}

// edgeProperties adds the edges of group (or the top level) to s.
func (b *specBuilder) edgeProperties(s *ogen.Schema, r *Resource, group string) error {
	for _, e := range r.EdgesInGroup(group) {
		var items *ogen.Schema
		if e.Entry == nil {
			items = ogen.Int()
		} else {
			if err := b.entry(e.Entry); err != nil {
				return err
			}
			items = ref(e.Entry.Schema)
		}
		p := items.AsArray().SetDescription(e.E.Comment())
		if e.Ann.ListNull {
			p.Nullable = true
			p.Description = strings.TrimSpace(p.Description + " " + singleOnlyDoc(r))
		}
		s.AddRequiredProperties(p.ToProperty(e.Name()))
	}
	return nil
}

// snapshotEdgeProperties adds to s the top-level edges of r but its lines,
// as a snapshot holds them: always loaded, so never null.
func (b *specBuilder) snapshotEdgeProperties(s *ogen.Schema, r *Resource) error {
	var shown []*Edge
	for _, e := range r.EdgesInGroup("") {
		if !e.IsLines() {
			always := *e
			always.Ann.ListNull = false
			shown = append(shown, &always)
		}
	}
	if len(shown) == 0 {
		return nil
	}
	only := *r
	only.Edges = shown
	return b.edgeProperties(s, &only, "")
}

// entry adds the schema of a join entity shown as entries.
func (b *specBuilder) entry(r *Resource) error {
	s := ogen.NewSchema().SetDescription("One " + Human(r.Type) + ".")
	if r.LineID {
		s.AddRequiredProperties(ogen.Int().SetDescription("The line's id.").ToProperty("id"))
	}
	for _, f := range r.Fields {
		fs, err := b.fieldSchema(f, f.Nillable(), false)
		if err != nil {
			return err
		}
		s.AddRequiredProperties(fs.ToProperty(f.Name))
	}
	if err := b.borrowedProperties(r, false, s); err != nil {
		return err
	}
	b.schemas()[r.Schema] = s
	return nil
}

// borrowedProperties adds the fields r borrows to each of the schemas. On a
// record they are null when it references no row (a lot without location); on
// an entry, whose foreign key is required, they have their own type.
func (b *specBuilder) borrowedProperties(r *Resource, record bool, to ...*ogen.Schema) error {
	borrowed, err := r.Borrows()
	if err != nil {
		return err
	}
	for _, bw := range borrowed {
		for _, f := range bw.Fields {
			s, err := b.fieldSchema(f, record || f.Nillable(), false)
			if err != nil {
				return err
			}
			if record {
				s.Description = strings.TrimSpace(fmt.Sprintf("%s Of the %s %s names; null without one.", s.Description, prose(bw.Edge.Type.Name), bw.Via.Name))
			}
			for _, x := range to {
				x.AddRequiredProperties(s.ToProperty(f.Name))
			}
		}
	}
	return nil
}

// singleOnlyDoc says where a field or an edge that lists show as null
// appears, from the operations r has: nothing when r has no lists (it is
// then always shown).
func singleOnlyDoc(r *Resource) string {
	if !r.Has(annotate.List) {
		return ""
	}
	var on []string
	if r.Has(annotate.Read) {
		on = append(on, "single retrieval")
	}
	if r.Has(annotate.Create) || r.Has(annotate.Update) || r.Has(annotate.Delete) || len(r.Actions) > 0 {
		on = append(on, "writes")
	}
	if len(on) == 0 {
		return "Null in lists."
	}
	return "Only on " + strings.Join(on, " and ") + "; null in lists."
}

// pluralProse is the collection in words, from its path, with the schema
// name's initialisms in capitals ("qc-checkpoints" -> "QC checkpoints").
func pluralProse(r *Resource) string {
	caps := map[string]string{}
	for _, w := range words(r.Schema) {
		if len(w) > 1 && strings.ToUpper(w) == w {
			caps[strings.ToLower(w)] = w
		}
	}
	ws := strings.Split(r.Ann.Path, "-")
	for i, w := range ws {
		if c, ok := caps[w]; ok {
			ws[i] = c
		}
	}
	return strings.Join(ws, " ")
}

func article(s string) string {
	if strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

package codegen

import (
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/internal/generators/flows"
)

// The converters name ogen's Go identifiers, so pascal must agree with ogen.
func TestPascalMatchesOgen(t *testing.T) {
	cases := map[string]string{
		"id":                   "ID",
		"unit_of_measure_id":   "UnitOfMeasureID",
		"is_major_allergen":    "IsMajorAllergen",
		"name_fr":              "NameFr",
		"last4":                "Last4",
		"api_key_id":           "APIKeyID",
		"website_url":          "WebsiteURL",
		"listUnitsOfMeasure":   "ListUnitsOfMeasure",
		"units_of_measure":     "UnitsOfMeasure",
		"rate_limit_per_min":   "RateLimitPerMin",
		"uom_id":               "UomID",
		"regulatory_reference": "RegulatoryReference",
	}
	for in, want := range cases {
		if got := pascal(in); got != want {
			t.Errorf("pascal(%q) = %q, want %q", in, got, want)
		}
	}
}

// Names keep initialisms whole: files, summaries and event names.
func TestSnakeKeepsInitialisms(t *testing.T) {
	cases := map[string]string{
		"UnitOfMeasure":   "unit_of_measure",
		"QCCheckpoint":    "qc_checkpoint",
		"QCUnitOfMeasure": "qc_unit_of_measure",
		"APIKey":          "api_key",
		"ProductLot":      "product_lot",
		"Tag":             "tag",
		"Last4Digits":     "last4_digits",
	}
	for in, want := range cases {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
	if got := prose("QCUnitOfMeasure"); got != "QC unit of measure" {
		t.Errorf("prose(QCUnitOfMeasure) = %q", got)
	}
}

func resourceWith(fields ...*Field) *Resource {
	typ := &gen.Type{Name: "Thing"}
	r := &Resource{Type: typ, Ann: annotate.Expose("things", "thing_id", annotate.Catalog, annotate.CRUD...), Schema: "Thing"}
	for _, f := range fields {
		f.Res = r
		typ.Fields = append(typ.Fields, f.F)
		r.Fields = append(r.Fields, f)
	}
	typ.Indexes = []*gen.Index{{Columns: []string{"account_id", "name"}}}
	return r
}

func costField(a annotate.Field, nillable bool) *Field {
	a.Cost = true
	return &Field{Name: "cost", Ann: a, F: &gen.Field{Name: "cost", Type: &field.TypeInfo{Type: field.TypeFloat64}, Nillable: nillable, Optional: nillable}}
}

// The generator refuses annotations that would leak or break the API.
func TestValidationRefuses(t *testing.T) {
	name := &Field{Name: "name", F: &gen.Field{Name: "name", Type: &field.TypeInfo{Type: field.TypeString}}}
	cases := []struct {
		name string
		r    *Resource
		want string
	}{
		{"sortable cost", resourceWith(costField(annotate.Sortable(), true)), "cannot be sortable"},
		{"filterable cost", resourceWith(costField(annotate.Filterable(), true)), "cannot be sortable, filterable or searchable"},
		{"searchable cost", resourceWith(costField(annotate.Searchable(), true)), "cannot be sortable, filterable or searchable"},
		{"cost that cannot be nil", resourceWith(costField(annotate.Field{}, false)), "Nillable"},
		{"sort without an index", resourceWith(&Field{Name: "code", Ann: annotate.Sortable(), F: &gen.Field{Name: "code", Type: &field.TypeInfo{Type: field.TypeString}}}), "no index"},
		{"null clearing a required field", resourceWith(&Field{Name: "name", Ann: annotate.Field{Null: annotate.NullClears}, F: name.F}), "nillable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("validate: %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	ok := resourceWith(&Field{Name: "name", Ann: annotate.Field{Sort: true, Filter: annotate.Partial}, F: name.F}, costField(annotate.Field{}, true))
	if err := ok.validate(); err != nil {
		t.Fatalf("a valid resource is refused: %v", err)
	}
}

// The event catalogue is the schemas' Emits, by resource name; the
// generator refuses an action that cannot make an event type, one emitted
// twice, and two schemas emitting one resource's events.
func TestEventCatalogue(t *testing.T) {
	emits := func(event string, actions ...string) *Resource {
		r := resourceWith()
		r.Event, r.Ann = event, r.Ann.Emits(actions...)
		return r
	}
	// Snapshots leave out top-level cost fields only: one in a group would
	// reach every subscriber.
	grouped := emits("product", "created")
	grouped.Fields = append(grouped.Fields, costField(annotate.Field{Group: "material"}, true))
	for _, tc := range []struct {
		r    *Resource
		want string
	}{
		{emits("tag", "created", "Archived"), `"Archived"`},
		{emits("tag", "created", "qc status"), `"qc status"`},
		{emits("tag", "created", "created"), "tag.created twice"},
		{emits("widget", "created"), ""},
		{emits("product", "created", "updated", "deleted"), ""},
		{emits("sales_order", "shipped"), ""},
		{grouped, "cost field cost is in group material"},
	} {
		err := checkEvents(tc.r)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %v: %v, want %q", tc.r.Event, tc.r.Ann.Events, err, tc.want)
		}
	}

	tag, lot, quiet := emits("tag", "created", "deleted"), emits("product_lot", "created", "archived"), emits("thing")
	tag.Type, lot.Type = &gen.Type{Name: "Tag"}, &gen.Type{Name: "ProductLot"}
	cat, err := eventCatalogue([]*Resource{tag, quiet, lot})
	if err != nil || len(cat) != 2 || cat[0].Resource != "product_lot" || !slices.Equal(cat[0].Actions, []string{"created", "archived"}) ||
		cat[1].Resource != "tag" || !slices.Equal(cat[1].Actions, []string{"created", "deleted"}) {
		t.Errorf("catalogue %+v, %v; want product_lot (created, archived), then tag (created, deleted)", cat, err)
	}
	again := emits("tag", "updated")
	again.Type = &gen.Type{Name: "Label"}
	if _, err := eventCatalogue([]*Resource{tag, again}); err == nil || !strings.Contains(err.Error(), `Tag and Label both emit events of "tag"`) {
		t.Errorf("two schemas emitting tag events: %v", err)
	}

	order := emits("purchase_order", "created", "updated")
	order.Type = &gen.Type{Name: "PurchaseOrder"}
	byType := map[string]*Resource{"PurchaseOrder": order}
	line := func(ann annotate.Line, f *gen.Field) *gen.Type {
		return &gen.Type{Name: "PurchaseOrderLine", Fields: []*gen.Field{f},
			Annotations: gen.Annotations{annotate.LineName: ann}}
	}
	fk := &gen.Field{Name: "purchase_order_id", Type: &field.TypeInfo{Type: field.TypeInt}}
	info, err := lineEvents(line(annotate.LineOf("PurchaseOrder", "purchase_order_id"), fk), byType)
	if err != nil || info.Resource != "purchase_order" || info.Parent != "PurchaseOrder" ||
		info.ParentField != "PurchaseOrderID" || len(info.Actions) != 1 || info.Actions[0] != "updated" {
		t.Fatalf("line events %+v, %v", info, err)
	}
	for _, tc := range []struct {
		name string
		t    *gen.Type
		want string
	}{
		{"unknown parent", line(annotate.LineOf("Invoice", "purchase_order_id"), fk), "not a resource emitting updated"},
		{"missing field", line(annotate.LineOf("PurchaseOrder", "order_id"), fk), "does not have"},
		{"optional key", line(annotate.LineOf("PurchaseOrder", "purchase_order_id"),
			&gen.Field{Name: "purchase_order_id", Optional: true, Type: &field.TypeInfo{Type: field.TypeInt}}), "required int"},
	} {
		if _, err := lineEvents(tc.t, byType); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if info, err := lineEvents(&gen.Type{Name: "Tag"}, byType); info != nil || err != nil {
		t.Fatalf("a schema without a line annotation: %+v %v", info, err)
	}
}

// softType is a type whose deleted_at carries ann, with the given indexes.
func softType(ann annotate.Field, typ field.Type, idx ...*gen.Index) *gen.Type {
	deleted := &gen.Field{Name: "deleted_at", Type: &field.TypeInfo{Type: typ}, Optional: true, Nillable: true,
		Annotations: gen.Annotations{annotate.FieldName: ann}}
	name := &gen.Field{Name: "name", Type: &field.TypeInfo{Type: field.TypeString}}
	return &gen.Type{Name: "Line", Fields: []*gen.Field{deleted, name}, Indexes: idx}
}

// partial is a unique index on (account_id, name) with the predicate where.
func partial(where string) *gen.Index {
	idx := &gen.Index{Name: "line_account_id_name", Unique: true, Columns: []string{"account_id", "name"}}
	if where != "" {
		idx.Annotations = gen.Annotations{"EntSQLIndexes": map[string]any{"Where": where}}
	}
	return idx
}

// The generator refuses a soft delete that cannot hide rows or that would let a
// deleted row block a new one, and finds the field of a sound one.
func TestSoftDelete(t *testing.T) {
	cases := []struct {
		name string
		t    *gen.Type
		want string
	}{
		{"not a time", softType(annotate.SoftDelete(), field.TypeBool), "nillable() time"},
		{"shown in the API", softType(annotate.Field{SoftDelete: true}, field.TypeTime), "hidden"},
		{"unique index counting deleted rows", softType(annotate.SoftDelete(), field.TypeTime, partial("")), `"deleted_at IS NULL"`},
		{"unique index partial on something else", softType(annotate.SoftDelete(), field.TypeTime, partial("parent_id IS NULL")), "must be partial"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := softDeleteField(tc.t)
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
				t.Fatalf("softDeleteField: %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	typ := softType(annotate.SoftDelete(), field.TypeTime, partial("deleted_at IS NULL"), &gen.Index{Columns: []string{"account_id", "name"}})
	f, err := softDeleteField(typ)
	if err != nil || f == nil || f.Name != "deleted_at" {
		t.Fatalf("a sound soft delete: %v, %v", f, err)
	}
	if f, err := softDeleteField(&gen.Type{Name: "Tag", Fields: typ.Fields[1:]}); f != nil || err != nil {
		t.Fatalf("a schema without soft delete: %v, %v", f, err)
	}
	r := &Resource{Type: typ, SoftDelete: f}
	if got, want := r.Visible(), "line.DeletedAtIsNil()"; got != want {
		t.Fatalf("Visible() = %q, want %q", got, want)
	}
}

// An include parameter belongs on an indexed, non-null boolean, and leaves out
// the flagged rows only when it is false.
func TestIncludeParam(t *testing.T) {
	flag := func(ann annotate.Field, typ field.Type, nillable bool) *Field {
		return &Field{Name: "out_of_service", Ann: ann,
			F: &gen.Field{Name: "out_of_service", Type: &field.TypeInfo{Type: typ}, Nillable: nillable, Optional: nillable}}
	}
	indexed := func(f *Field) *Resource {
		r := resourceWith(f)
		r.Type.Indexes = append(r.Type.Indexes, &gen.Index{Columns: []string{"account_id", "out_of_service"}})
		return r
	}
	include := annotate.IncludeParam("include_out_of_service", true)
	for _, tc := range []struct {
		name string
		r    *Resource
		want string
	}{
		{"not a boolean", indexed(flag(include, field.TypeString, false)), "non-null boolean"},
		{"nullable", indexed(flag(include, field.TypeBool, true)), "non-null boolean"},
		{"not indexed", resourceWith(flag(include, field.TypeBool, false)), "no index"},
	} {
		if err := tc.r.validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
	r := indexed(flag(include, field.TypeBool, false))
	if err := r.validate(); err != nil {
		t.Fatal(err)
	}
	want := "if !p.IncludeOutOfService.Or(true) {\n\tq.Where(thing.OutOfService(false))\n}"
	if got := r.Includes()[0].IncludeWhere(); got != want {
		t.Fatalf("IncludeWhere:\n%s\nwant\n%s", got, want)
	}
	if got := queryParams(r); !strings.Contains(strings.Join(got, ","), "include_out_of_service") {
		t.Fatalf("query parameters %v lack the include parameter", got)
	}
}

// RefRoot needs a foreign key.
func TestRefRootNeedsAForeignKey(t *testing.T) {
	r := resourceWith(&Field{Name: "warehouse_id", Ann: annotate.RefRoot(),
		F: &gen.Field{Name: "warehouse_id", Type: &field.TypeInfo{Type: field.TypeInt}, Optional: true, Nillable: true}})
	if err := r.validate(); err == nil || !strings.Contains(err.Error(), "foreign key") {
		t.Fatalf("validate: %v", err)
	}
}

// Retrievals read the columns the converter reads, lists without those they
// show as null, and nothing the API does not show (here account_id).
func TestShownColumns(t *testing.T) {
	str := func(name string, a annotate.Field) *Field {
		return &Field{Name: name, Ann: a, F: &gen.Field{Name: name, Type: &field.TypeInfo{Type: field.TypeString}}}
	}
	r := resourceWith(
		str("name", annotate.Field{}),
		str("notes", annotate.SingleOnly()),
		str("kind", annotate.Field{}),
		str("grade", annotate.Field{Group: "material"}),
	)
	r.Type.Fields = append(r.Type.Fields, &gen.Field{Name: "account_id", Type: &field.TypeInfo{Type: field.TypeInt}})
	r.Ann.Groups = []annotate.Group{{Name: "material", When: "kind", Is: "material"}}
	if got, want := r.Shown(false), "thing.FieldName, thing.FieldNotes, thing.FieldKind, thing.FieldGrade"; got != want {
		t.Errorf("Shown(false) = %s, want %s", got, want)
	}
	if got, want := r.Shown(true), "thing.FieldName, thing.FieldKind, thing.FieldGrade"; got != want {
		t.Errorf("Shown(true) = %s, want %s", got, want)
	}
	// The field a group is chosen by is read even when it is not shown.
	r.Fields = slices.DeleteFunc(r.Fields, func(f *Field) bool { return f.Name == "kind" })
	r.Fields = append(r.Fields, str("kind", annotate.SingleOnly()))
	if got, want := r.Shown(true), "thing.FieldName, thing.FieldGrade, thing.FieldKind"; got != want {
		t.Errorf("Shown(true) with kind shown only singly = %s, want %s", got, want)
	}
}

// An edge of ids loads only the collected id of its join rows.
func TestEdgeReadsTheCollectedID(t *testing.T) {
	join := &gen.Type{Name: "ThingTag", Fields: []*gen.Field{
		{Name: "tag_id", Type: &field.TypeInfo{Type: field.TypeInt}},
		{Name: "account_id", Type: &field.TypeInfo{Type: field.TypeInt}},
	}}
	e := &Edge{E: &gen.Edge{Name: "tags", Type: join}, Ann: annotate.Edge{IDField: "tag_id"}}
	got := e.With()
	if !strings.Contains(got, "q.Select(thingtag.FieldTagID)") || strings.Contains(got, "FieldAccountID") {
		t.Errorf("With() =\n%s\nwant a Select of thingtag.FieldTagID alone", got)
	}
}

// A create answers with what it wrote only when its answer shows nothing
// else: no other edge, no edge it writes, no borrowed field.
func TestAnswersWritten(t *testing.T) {
	str := func(name string, a annotate.Field) *Field {
		return &Field{Name: name, Ann: a, F: &gen.Field{Name: name, Type: &field.TypeInfo{Type: field.TypeString}}}
	}
	doc := func(lineFields ...*Field) *Resource {
		r := resourceWith(str("notes", annotate.Field{}))
		entry := &Resource{Type: &gen.Type{Name: "ThingLine"}, Schema: "ThingLine", Fields: lineFields}
		r.Edges = []*Edge{{Res: r, E: &gen.Edge{Name: "lines"}, Ann: annotate.Edge{JSON: "lines", Doc: &annotate.DocLines{Min: 1, Max: 10}}, Entry: entry}}
		return r
	}
	if r := doc(str("quantity", annotate.Field{})); !r.AnswersWritten() {
		t.Error("a document whose answer is its row and its lines reads them back")
	}
	r := doc(str("quantity", annotate.Field{}))
	r.Edges = append(r.Edges, &Edge{Res: r, E: &gen.Edge{Name: "tags"}, Ann: annotate.Edge{JSON: "tag_ids", IDField: "tag_id"}})
	if r.AnswersWritten() {
		t.Error("a document that shows another edge answers without reading it")
	}
	r.Edges[1].Ann.MaxItems = 5
	if r.AnswersWritten() {
		t.Error("a document that writes another edge answers without reading it")
	}
	if r := doc(str("product_name", annotate.Field{Borrow: []string{"name"}})); r.AnswersWritten() {
		t.Error("a document whose lines borrow a field answers without reading it")
	}
	r = doc(str("quantity", annotate.Field{}))
	r.Fields = append(r.Fields, str("supplier_name", annotate.Field{Borrow: []string{"name"}}))
	if r.AnswersWritten() {
		t.Error("a document that borrows a field answers without reading it")
	}
}

// Reading hands rows to a Prepare function, from the check of a writable
// foreign key of the lines: without either, generation stops.
func TestReadingNeedsPrepareAndAReference(t *testing.T) {
	str := func(name string) *Field {
		return &Field{Name: name, F: &gen.Field{Name: name, Type: &field.TypeInfo{Type: field.TypeString}}}
	}
	for _, tc := range []struct {
		name string
		doc  annotate.Edge
		want string
	}{
		{"no Prepare", annotate.Entries("lines").Lines(1, 10).Reading("notes", "name"), "declare it with Prepared"},
		{"not a foreign key", annotate.Entries("lines").Lines(1, 10).Prepared().Reading("notes", "name"), "not a writable foreign key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := resourceWith(str("memo"))
			entry := &Resource{Type: &gen.Type{Name: "ThingLine"}, Schema: "ThingLine", Fields: []*Field{str("notes")}}
			e := &Edge{Res: r, E: &gen.Edge{Name: "lines"}, Ann: tc.doc, Entry: entry}
			if err := e.validateDoc(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("validateDoc: %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// HandedOver passes what Prepare decided to Record: it needs both, and a
// document whose lines an update writes cannot use it (the update path
// has no place to keep it).
func TestHandedOverNeedsBothWorkflowsOnCreateOnly(t *testing.T) {
	str := func(name string) *Field {
		return &Field{Name: name, F: &gen.Field{Name: name, Type: &field.TypeInfo{Type: field.TypeString}}}
	}
	lines := func() annotate.Edge {
		return annotate.Entries("lines").Lines(1, 10).Prepared()
	}
	for _, tc := range []struct {
		name string
		doc  annotate.Edge
		want string
	}{
		{"no Record", lines().HandedOver(), "declare both"},
		{"an updated document", lines().Recorded().HandedOver(), "cannot be handed over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := resourceWith(str("memo"))
			entry := &Resource{Type: &gen.Type{Name: "ThingLine"}, Schema: "ThingLine", Fields: []*Field{str("notes")}}
			e := &Edge{Res: r, E: &gen.Edge{Name: "lines"}, Ann: tc.doc, Entry: entry}
			if err := e.validateDoc(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("validateDoc: %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	// On create only, the calls pass it on.
	r := resourceWith(str("memo"))
	r.Ann.Ops = []annotate.Operation{annotate.Create}
	e := &Edge{Res: r, E: &gen.Edge{Name: "lines"}, Ann: lines().Recorded().HandedOver(),
		Entry: &Resource{Type: &gen.Type{Name: "ThingLine"}, Schema: "ThingLine", Fields: []*Field{str("notes")}}}
	if err := e.validateDoc(); err != nil {
		t.Fatal(err)
	}
	r.Edges = []*Edge{e}
	r.Flow = &flows.Flow{Type: "Thing", Package: "example.com/x", Name: "x", Var: "ThingFlow", Steps: []string{"Prepare", "Record"}}
	if got, want := e.Record(), "x.ThingFlow.Record(ctx, tx, out, rows, prepared)"; got != want {
		t.Errorf("Record() = %s, want %s", got, want)
	}
}

// A list's exact-match filter on a scalar is a known predicate, so that the
// list can be a compiled statement (an enum's value as its text); a partial
// match, or a filter that also matches null, stays an ent predicate.
func TestKnownFilters(t *testing.T) {
	f := func(name string, ann annotate.Field, typ field.Type) *Field {
		return &Field{Name: name, Ann: ann, F: &gen.Field{Name: name, Type: &field.TypeInfo{Type: typ}}}
	}
	kind := f("kind", annotate.Field{Filter: annotate.Exact}, field.TypeEnum)
	code := f("code", annotate.Field{Filter: annotate.Exact}, field.TypeString)
	name := f("name", annotate.Field{Filter: annotate.Partial}, field.TypeString)
	owner := f("owner", annotate.Field{Filter: annotate.Exact, FilterNull: true}, field.TypeInt)
	resourceWith(kind, code, name, owner)
	if got := KnownFilters([]*Field{kind, code, name, owner}); len(got) != 2 || got[0] != kind || got[1] != code {
		t.Fatalf("known filters %v, want kind and code", got)
	}
	for _, tc := range []struct {
		f    *Field
		want string
	}{
		{kind, "q.WhereKnown(knownThingKind, string(v))"},
		{code, "q.WhereKnown(knownThingCode, v)"},
		{name, "q.Where(thing.NameContainsFold(v))"},
		{owner, "q.Where(thing.Or(thing.OwnerEQ(v), thing.OwnerIsNil()))"},
	} {
		if got := tc.f.Where(); !strings.Contains(got, tc.want) {
			t.Errorf("%s's filter:\n%s\nwant it to hold %s", tc.f.Name, got, tc.want)
		}
	}
	if got, want := kind.KnownMake(), "sql.FieldEQ(thing.FieldKind, v)"; !strings.Contains(got, want) {
		t.Errorf("the known predicate of kind %s, want %s", got, want)
	}
}

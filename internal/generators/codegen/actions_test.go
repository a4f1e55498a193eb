package codegen

import (
	"strings"
	"testing"

	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/internal/generators/flows"
)

// statusType is a type with an enum status field under machine and a bool.
func statusType(machine annotate.Field, nillable bool) (*gen.Type, *gen.Field) {
	status := &gen.Field{Name: "status", Type: &field.TypeInfo{Type: field.TypeEnum}, Nillable: nillable,
		Enums:       []gen.Enum{{Name: "StatusOpen", Value: "OPEN"}, {Name: "StatusSent", Value: "SENT"}, {Name: "StatusClosed", Value: "CLOSED"}}, // as ent names them
		Annotations: map[string]any{annotate.FieldName: machine}}
	signed := &gen.Field{Name: "signed", Type: &field.TypeInfo{Type: field.TypeBool}}
	note := &gen.Field{Name: "note", Type: &field.TypeInfo{Type: field.TypeString}}
	t := &gen.Type{Name: "Order", Fields: []*gen.Field{status, signed, note}}
	return t, status
}

// The generator refuses a state machine that names what the schema lacks.
func TestMachineRefuses(t *testing.T) {
	cases := []struct {
		name     string
		machine  annotate.Field
		nillable bool
		want     string
	}{
		{"unknown source state", annotate.States(annotate.From("DRAFT").To("OPEN")), false, `"DRAFT"`},
		{"unknown target state", annotate.States(annotate.From("OPEN").To("GONE")), false, `"GONE"`},
		{"unknown editable state", annotate.States(annotate.From("OPEN").To("SENT")).EditableIn("LIMBO"), false, `"LIMBO"`},
		{"lock that is not a boolean", annotate.States(annotate.From("OPEN").To("SENT")).LockedBy("note"), false, "boolean"},
		{"nullable status", annotate.States(annotate.From("OPEN").To("SENT")), true, "non-null enum"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			typ, f := statusType(tc.machine, tc.nillable)
			_, err := machineOf(typ, f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("machineOf: %v, want an error mentioning %s", err, tc.want)
			}
		})
	}
}

// Moves are written per source state in enum order, whatever the declaration's.
func TestMachineMoves(t *testing.T) {
	typ, f := statusType(annotate.States(
		annotate.From("SENT").To("CLOSED", "OPEN"),
		annotate.From("OPEN").To("SENT"),
		annotate.From("OPEN").To("CLOSED", "SENT"),
	).LockedBy("signed"), false)
	typ.ID = &gen.Field{Name: "id"}
	m, err := machineOf(typ, f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"order.StatusOpen: {order.StatusSent, order.StatusClosed}",
		"order.StatusSent: {order.StatusOpen, order.StatusClosed}",
	}
	if got := m.MoveRows(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("moves:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m.Name() != "OrderStatus" || len(m.Locks()) != 1 || m.Locks()[0].Name != "signed" {
		t.Fatalf("name %s, locks %v", m.Name(), m.Locks())
	}
}

// Actions must name a workflow function by import path, their body fields,
// and requested states of a machine.
func TestActionRefuses(t *testing.T) {
	typ, status := statusType(annotate.States(annotate.From("OPEN").To("SENT")), false)
	r := &Resource{Type: typ, Schema: "Order", Ann: annotate.Expose("orders", "order_id", annotate.Sales, annotate.Read)}
	for _, f := range typ.Fields {
		r.Fields = append(r.Fields, &Field{Res: r, F: f, Name: f.Name})
	}
	_ = status
	cases := []struct {
		name string
		a    annotate.Action
		want string
	}{
		{"a document's step", annotate.Act("prepare", "prepareOrder", "Prepare"), "would be the document's"},
		{"unknown body field", annotate.Act("status", "changeOrderStatus", "Change").Taking("state"), "unknown body field"},
		{"targets without a machine", annotate.Act("note", "noteOrder", "Note").Taking("note").Requesting("OPEN"), "state machine"},
		{"target outside the enum", annotate.Act("status", "changeOrderStatus", "Change").Taking("status").Requesting("LOST"), `"LOST"`},
		{"no operationId", annotate.Act("status", "", "Change"), "operationId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r.Ann.Actions = []annotate.Action{tc.a}
			_, err := loadActions(r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("loadActions: %v, want an error mentioning %s", err, tc.want)
			}
		})
	}
	r.Ann.Actions = []annotate.Action{annotate.Act("status", "changeOrderStatus", "Change").Taking("status").Requesting("SENT")}
	as, err := loadActions(r)
	if err != nil {
		t.Fatal(err)
	}
	r.Flow = &flows.Flow{Type: "Order", Package: "larder.dev/larder/internal/modules/sales", Name: "sales", Var: "OrderFlow", Steps: []string{"Status"}}
	if got := as[0].Call(); got != "sales.OrderFlow.Status(ctx, tx, p.OrderID, order.Status(req.Status))" {
		t.Fatalf("call %s", got)
	}
	if !strings.Contains(as[0].TargetCheck(), `[]string{"SENT"}`) {
		t.Fatalf("target check %s", as[0].TargetCheck())
	}
}

// A searched number matches exactly when the search text is a number; text
// fields match within; the id joins the numbers under SearchByID.
func TestSearchNumbers(t *testing.T) {
	no := &gen.Field{Name: "run_no", Type: &field.TypeInfo{Type: field.TypeInt}}
	lot := &gen.Field{Name: "lot", Type: &field.TypeInfo{Type: field.TypeString}}
	typ := &gen.Type{Name: "Run", Fields: []*gen.Field{no, lot}}
	r := &Resource{Type: typ, Schema: "Run", Ann: annotate.Expose("runs", "run_id", annotate.Manufacturing, annotate.List)}
	for _, f := range typ.Fields {
		r.Fields = append(r.Fields, &Field{Res: r, F: f, Name: f.Name, Ann: annotate.Searchable()})
	}
	got := r.Search()
	for _, want := range []string{"run.LotContainsFold(v)", "listing.SearchID(v)", "ps = append(ps, run.RunNo(n))", "q.Where(run.Or(ps...))"} {
		if !strings.Contains(got, want) {
			t.Fatalf("search:\n%s\nlacks %s", got, want)
		}
	}
	if strings.Contains(got, "RunNoContainsFold") {
		t.Fatalf("a number is matched as text:\n%s", got)
	}
	r.Ann.SearchID = true
	if got := r.Search(); !strings.Contains(got, "ps = append(ps, run.ID(n), run.RunNo(n))") {
		t.Fatalf("search by id and number:\n%s", got)
	}
}

package codegen

import (
	"strings"
	"testing"

	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/internal/generators/flows"
)

// flowResource is a document Thing with a Prepare step and an action
// "close", so its flow type is ent.ThingFlow{Prepare, Close}.
func flowResource(t *testing.T) *Resource {
	t.Helper()
	str := func(name string) *Field {
		return &Field{Name: name, F: &gen.Field{Name: name, Type: &field.TypeInfo{Type: field.TypeString}}}
	}
	r := resourceWith(str("memo"))
	r.Ann.Path = "things"
	entry := &Resource{Type: &gen.Type{Name: "ThingLine"}, Schema: "ThingLine", Fields: []*Field{str("notes")}}
	r.Edges = []*Edge{{Res: r, E: &gen.Edge{Name: "lines", Type: entry.Type}, Ann: annotate.Entries("lines").Lines(1, 10).Prepared(), Entry: entry}}
	r.Actions = []*Action{{Res: r, Ann: annotate.Act("close", "closeThing", "Close a thing")}}
	return r
}

func flow(steps ...string) flows.Flow {
	return flows.Flow{Type: "Thing", Package: "example.com/m/internal/modules/things", Name: "things", Var: "ThingFlow",
		Steps: steps, Pos: "internal/modules/things/flows.go:9"}
}

// The flow type has one typed field per step the schema declares, which is
// what the module's functions must be; the handlers call them through the
// module's flow.
func TestFlowSteps(t *testing.T) {
	r := flowResource(t)
	var got []string
	for _, s := range r.FlowSteps() {
		got = append(got, s.Name+" "+s.Func)
	}
	want := []string{
		"Prepare func(ctx context.Context, tx *Tx, m *ThingMutation, lines []*ThingLineCreate) error",
		"Close func(ctx context.Context, tx *Tx, id int) (*Thing, error)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := bindFlows([]*Resource{r}, []flows.Flow{flow("Prepare", "Close")}); err != nil {
		t.Fatal(err)
	}
	if got := r.DocEdge().Prepare("b.Mutation()"); got != "things.ThingFlow.Prepare(ctx, tx, b.Mutation(), lines)" {
		t.Errorf("Prepare call: %s", got)
	}
	if got := r.Actions[0].Call(); got != "things.ThingFlow.Close(ctx, tx, p.ThingID)" {
		t.Errorf("action call: %s", got)
	}
	if got := r.WorkflowImports(); len(got) != 1 || got[0] != "example.com/m/internal/modules/things" {
		t.Errorf("imports: %v", got)
	}
}

// Generation stops, saying where and what to write, when the modules'
// flows do not match the schema's steps.
func TestFlowsRefused(t *testing.T) {
	other := flow("Prepare")
	other.Type, other.Var = "Thin", "ThinFlow"
	second := flow("Prepare", "Close")
	second.Pos = "internal/modules/other/flows.go:3"
	for _, tc := range []struct {
		name string
		fs   []flows.Flow
		want string
	}{
		{"none declared", nil, "Thing: its schema declares workflow steps, but no package under internal/modules declares its flow: add `var ThingFlow = ent.ThingFlow{Prepare: …, Close: …}`"},
		{"a step left out", []flows.Flow{flow("Prepare")}, "internal/modules/things/flows.go:9: ThingFlow leaves out Close, a step the schema of Thing declares"},
		{"a step the schema lacks", []flows.Flow{flow("Prepare", "Close", "Record")}, "ThingFlow sets Record, which is not a step of ent.ThingFlow (its steps: Prepare, Close)"},
		{"a type without steps", []flows.Flow{flow("Prepare", "Close"), other}, "ThinFlow is ent.ThinFlow, which is no resource's flow (the resources with workflow steps: Thing)"},
		{"two flows", []flows.Flow{flow("Prepare", "Close"), second}, "internal/modules/other/flows.go:3: a second flow of Thing (the first is things.ThingFlow, at internal/modules/things/flows.go:9)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := bindFlows([]*Resource{flowResource(t)}, tc.fs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("bindFlows: %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
}

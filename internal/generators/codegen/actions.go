package codegen

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/annotate"
)

// This file reads the state machines of status fields and the actions of
// resources, validates them, and writes the Go the templates paste in: the
// guard of each machine (package ent) and the handler of each action
// (package restapi).

// MachineField is an enum field with a state machine.
type MachineField struct {
	T   *gen.Type
	F   *gen.Field
	Ann annotate.Machine
}

// machineOf reads and validates the state machine of f, or returns nil.
func machineOf(t *gen.Type, f *gen.Field) (*MachineField, error) {
	a, err := fieldAnnotation(f)
	if err != nil || a.Machine == nil {
		return nil, err
	}
	if !f.IsEnum() || f.Nillable {
		return nil, fmt.Errorf("%s.%s: a state machine needs a non-null enum field", t.Name, f.Name)
	}
	m := &MachineField{T: t, F: f, Ann: *a.Machine}
	values := m.values()
	check := func(what string, states []string) error {
		for _, s := range states {
			if !slices.Contains(values, s) {
				return fmt.Errorf("%s.%s: %s names %q, not a value of the enum", t.Name, f.Name, what, s)
			}
		}
		return nil
	}
	for from, tos := range m.Ann.Moves {
		if err := check("a move", append([]string{from}, tos...)); err != nil {
			return nil, err
		}
	}
	if err := check("EditableIn", m.Ann.Edit); err != nil {
		return nil, err
	}
	for _, l := range m.Ann.LockedBy {
		lf := fieldNamed(t, l)
		if lf == nil || !lf.IsBool() || lf.Nillable {
			return nil, fmt.Errorf("%s.%s: LockedBy(%q) must name a non-null boolean field", t.Name, f.Name, l)
		}
	}
	return m, nil
}

func fieldNamed(t *gen.Type, name string) *gen.Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func (m *MachineField) values() []string {
	var out []string
	for _, e := range m.F.Enums {
		out = append(out, e.Value)
	}
	return out
}

// Name is the Go stem of the machine's identifiers ("ProductionStatus").
func (m *MachineField) Name() string { return m.T.Name + m.F.StructField() }

// Const is the ent constant of an enum value ("production.StatusPlanned").
func (m *MachineField) Const(value string) string {
	for _, e := range m.F.Enums {
		if e.Value == value {
			return m.T.Package() + "." + e.Name // ent names the constant StatusPLANNED
		}
	}
	return "<unknown " + value + ">"
}

// EnumType is the ent Go type of the field ("production.Status").
func (m *MachineField) EnumType() string { return m.T.Package() + "." + m.F.StructField() }

// MoveRows are the moves, one line per source state, in enum order.
func (m *MachineField) MoveRows() []string {
	var out []string
	for _, from := range m.values() {
		tos := m.Ann.Moves[from]
		if len(tos) == 0 {
			continue
		}
		var cs []string
		for _, v := range m.values() { // enum order, whatever the declaration's
			if slices.Contains(tos, v) {
				cs = append(cs, m.Const(v))
			}
		}
		out = append(out, m.Const(from)+": {"+strings.Join(cs, ", ")+"}")
	}
	return out
}

// EditConsts are the states that allow edits, as ent constants.
func (m *MachineField) EditConsts() string {
	var cs []string
	for _, s := range m.Ann.Edit {
		cs = append(cs, m.Const(s))
	}
	return strings.Join(cs, ", ")
}

// Locks are the ent struct fields of the LockedBy fields, with their names.
func (m *MachineField) Locks() []*gen.Field {
	var out []*gen.Field
	for _, l := range m.Ann.LockedBy {
		out = append(out, fieldNamed(m.T, l))
	}
	return out
}

// Exempt are the fields an edit check ignores: the machine's own field and
// the update time the time mixin sets on every change.
func (m *MachineField) Exempt() []string {
	out := []string{m.F.Name}
	if fieldNamed(m.T, "updated_at") != nil {
		out = append(out, "updated_at")
	}
	return out
}

// machines lists the state machines of the graph, by type name.
func machines(g *gen.Graph) ([]*MachineField, error) {
	var out []*MachineField
	for _, t := range g.Nodes {
		for _, f := range t.Fields {
			m, err := machineOf(t, f)
			if err != nil {
				return nil, err
			}
			if m != nil {
				out = append(out, m)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// Action is an action of a resource with its body fields resolved.
type Action struct {
	Res    *Resource
	Ann    annotate.Action
	Fields []*Field
	// Machine is the state machine of the body field Targets restricts.
	Machine *MachineField
}

// loadActions resolves and validates the actions of r.
func loadActions(r *Resource) ([]*Action, error) {
	var out []*Action
	seen := map[string]bool{}
	for _, a := range r.Ann.Actions {
		if a.Name == "" || a.ID == "" || a.Summary == "" {
			return nil, fmt.Errorf("action %q needs a name, an operationId and a summary", a.Name)
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("action %q is declared twice", a.Name)
		}
		seen[a.Name] = true
		x := &Action{Res: r, Ann: a}
		if s := x.Step(); s == "Prepare" || s == "Record" {
			return nil, fmt.Errorf("action %q: its workflow step %s would be the document's; name the action otherwise", a.Name, s)
		}
		for _, name := range a.Fields {
			f := r.field(name)
			if f == nil {
				return nil, fmt.Errorf("action %q: unknown body field %s", a.Name, name)
			}
			x.Fields = append(x.Fields, f)
			m, err := machineOf(r.Type, f.F)
			if err != nil {
				return nil, err
			}
			if m != nil {
				x.Machine = m
			}
		}
		if len(a.Targets) > 0 {
			if x.Machine == nil {
				return nil, fmt.Errorf("action %q: Requesting needs a body field with a state machine", a.Name)
			}
			for _, s := range a.Targets {
				if !slices.Contains(x.Machine.values(), s) {
					return nil, fmt.Errorf("action %q: requests %q, not a value of %s", a.Name, s, x.Machine.F.Name)
				}
			}
		}
		out = append(out, x)
	}
	return out, nil
}

// Method is ogen's handler method name.
func (a *Action) Method() string { return pascal(a.Ann.ID) }

// Body is the API schema name of the action's body ("ChangeProductionStatusRequest").
func (a *Action) Body() string { return pascal(a.Ann.ID) + "Request" }

// Call is the call of the action's flow step, with the body fields
// converted to ent's types.
func (a *Action) Call() string {
	args := []string{"ctx", "tx", "p." + a.Res.Param()}
	for _, f := range a.Fields {
		args = append(args, f.bodyToEnt("req."+f.Go()))
	}
	return a.Res.step(a.Step(), args...)
}

// TargetCheck is the statement refusing a requested state the action does
// not allow (409 INVALID_STATE), or "".
func (a *Action) TargetCheck() string {
	if len(a.Ann.Targets) == 0 {
		return ""
	}
	var field *Field
	for _, f := range a.Fields {
		if f.F == a.Machine.F {
			field = f
		}
	}
	var vs []string
	for _, t := range a.Ann.Targets {
		vs = append(vs, fmt.Sprintf("%q", t))
	}
	return fmt.Sprintf("if v := string(req.%s); !slices.Contains([]string{%s}, v) {\n\treturn nil, problem.Conflict(problem.InvalidState, %q, \"%s cannot be requested here; this operation accepts %s\")\n}",
		field.Go(), strings.Join(vs, ", "), field.Name, field.Name, strings.Join(a.Ann.Targets, ", "))
}

// TargetsDoc is the sentence of the API description about Targets, or "".
func (a *Action) TargetsDoc() string {
	if len(a.Ann.Targets) == 0 {
		return ""
	}
	return fmt.Sprintf(" Accepts %s %s; any other value of the enum is refused with 409 INVALID_STATE.",
		a.Machine.F.Name, strings.Join(a.Ann.Targets, ", "))
}

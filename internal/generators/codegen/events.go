package codegen

import (
	"fmt"
	"slices"

	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/annotate"
)

// checkEvents refuses a resource whose Emits names an event type missing from
// the catalogue (annotate.Catalogue): every published type is in the
// catalogue, and nothing is emitted that is not published.
func checkEvents(r *Resource) error {
	if len(r.Ann.Events) == 0 {
		return nil
	}
	i := slices.IndexFunc(annotate.Catalogue, func(c annotate.EventResource) bool { return c.Resource == r.Event })
	if i < 0 {
		return fmt.Errorf("emits events of %q, which the event catalogue (annotate.Catalogue) does not list", r.Event)
	}
	for _, a := range r.Ann.Events {
		if !slices.Contains(annotate.Catalogue[i].Actions, a) {
			return fmt.Errorf("emits %s.%s, which the event catalogue (annotate.Catalogue) does not list", r.Event, a)
		}
	}
	for _, f := range r.Fields {
		if f.Ann.Cost && f.Ann.Group != "" {
			return fmt.Errorf("cost field %s is in group %s: the snapshots of its events would carry it (they leave out top-level cost fields only)", f.Name, f.Ann.Group)
		}
	}
	return nil
}

// lineAnnotation returns the Line annotation of a schema, if it has one.
func lineAnnotation(t *gen.Type) (annotate.Line, bool, error) {
	var l annotate.Line
	raw, ok := t.Annotations[annotate.LineName]
	if !ok {
		return l, false, nil
	}
	return l, true, decode(raw, &l)
}

// lineEvents resolves the Line annotation of t: a line reports its changes as
// the .updated event of its parent, which must be a resource emitting updated,
// through a required foreign key field. It returns nil for other schemas.
func lineEvents(t *gen.Type, byType map[string]*Resource) (*EventInfo, error) {
	l, ok, err := lineAnnotation(t)
	if err != nil || !ok {
		return nil, err
	}
	parent := byType[l.Parent]
	if parent == nil || !slices.Contains(parent.Ann.Events, "updated") {
		return nil, fmt.Errorf("%s is a line of %s, which is not a resource emitting updated", t.Name, l.Parent)
	}
	i := slices.IndexFunc(t.Fields, func(f *gen.Field) bool { return f.Name == l.Field })
	if i < 0 {
		return nil, fmt.Errorf("%s is a line of %s through field %q, which it does not have", t.Name, l.Parent, l.Field)
	}
	f := t.Fields[i]
	if f.Optional || f.Nillable || f.Type == nil || f.Type.Type.String() != "int" {
		return nil, fmt.Errorf("%s.%s must be a required int foreign key to name its parent %s", t.Name, l.Field, l.Parent)
	}
	return &EventInfo{Resource: parent.Event, Actions: []string{"updated"}, Parent: l.Parent, ParentField: f.StructField()}, nil
}

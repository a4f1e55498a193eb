package codegen

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/annotate"
)

// checkEvents refuses event actions that are not lower-case words joined by
// underscores (they make the event types, "product_lot.qc_status_changed")
// and a cost field its events' snapshots would carry.
func checkEvents(r *Resource) error {
	for _, a := range r.Ann.Events {
		if !eventAction.MatchString(a) {
			return fmt.Errorf("emits %q: an event action is lower-case words joined by underscores (qc_status_changed)", a)
		}
	}
	for i, a := range r.Ann.Events {
		if slices.Contains(r.Ann.Events[:i], a) {
			return fmt.Errorf("emits %s.%s twice", r.Event, a)
		}
	}
	if len(r.Ann.Events) == 0 {
		return nil
	}
	for _, f := range r.Fields {
		if f.Ann.Cost && f.Ann.Group != "" {
			return fmt.Errorf("cost field %s is in group %s: the snapshots of its events would carry it (they leave out top-level cost fields only)", f.Name, f.Ann.Group)
		}
	}
	return nil
}

// eventAction is what an event action looks like.
var eventAction = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)

// eventCatalogue is every webhook event type of the API, derived from the
// schemas: each resource whose schema emits events, by resource name, with
// the actions it emits in the order it declares them. Two schemas may not
// emit events of one resource name.
func eventCatalogue(rs []*Resource) ([]annotate.EventResource, error) {
	var out []annotate.EventResource
	by := map[string]string{}
	for _, r := range rs {
		if len(r.Ann.Events) == 0 {
			continue
		}
		if t, ok := by[r.Event]; ok {
			return nil, fmt.Errorf("%s and %s both emit events of %q", t, r.Type.Name, r.Event)
		}
		by[r.Event] = r.Type.Name
		out = append(out, annotate.EventResource{Resource: r.Event, Actions: slices.Clone(r.Ann.Events)})
	}
	slices.SortFunc(out, func(a, b annotate.EventResource) int { return strings.Compare(a.Resource, b.Resource) })
	return out, nil
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

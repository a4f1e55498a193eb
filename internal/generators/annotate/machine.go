package annotate

// Machine is the state machine of an enum field (a status): the moves it
// allows, the states in which the record may be edited, and the boolean
// fields that, once true, refuse every move and edit (signed and locked). The
// generator turns it into one guard in package ent, enforced by a hook on
// every change of the record, from the API or the web application alike: a
// move it does not allow, or an edit in a state that does not allow one, is a
// 409 INVALID_STATE.
type Machine struct {
	// Moves maps a state to the states it may move to.
	Moves map[string][]string `json:"moves"`
	// Edit are the states in which other fields may change; empty: any.
	Edit []string `json:"edit,omitempty"`
	// LockedBy are boolean fields of the record that, when true, refuse
	// every move and edit.
	LockedBy []string `json:"locked_by,omitempty"`
}

// Move is the moves from some states to others.
type Move struct {
	from, to []string
}

// From starts a Move from the given states.
func From(states ...string) Move { return Move{from: states} }

// To completes a Move: each of its From states may move to each of these.
func (m Move) To(states ...string) Move { m.to = states; return m }

// States declares the field's state machine from its moves.
func States(moves ...Move) Field {
	mc := &Machine{Moves: map[string][]string{}}
	for _, m := range moves {
		for _, f := range m.from {
			for _, t := range m.to {
				if !contains(mc.Moves[f], t) {
					mc.Moves[f] = append(mc.Moves[f], t)
				}
			}
		}
	}
	return Field{Machine: mc}
}

// EditableIn restricts edits of the record's other fields to these states.
func (f Field) EditableIn(states ...string) Field { f.Machine.Edit = states; return f }

// LockedBy names boolean fields that, when true, refuse every move and edit.
func (f Field) LockedBy(fields ...string) Field { f.Machine.LockedBy = fields; return f }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Action is an operation POST /{path}/{id}/{name} of a resource: its body is
// made of the resource's own fields (their types and bounds; each required),
// and it runs a workflow of a module package in one transaction, with the
// module's write scope. The workflow is the step of the resource's flow type
// named after the action (package flows: ent.ProductLotFlow's Archive for
// "archive"), of the type
//
//	func(ctx context.Context, tx *ent.Tx, id int, <each body field, as ent stores it>) (*ent.<Type>, error)
//
// and the answer is the record it returns, as a single retrieval shows it
// (edges it did not load are null).
type Action struct {
	// Name is the last path segment ("archive", "status").
	Name string `json:"name"`
	// ID is the operationId ("archiveProductLot").
	ID string `json:"id"`
	// Summary is the one-line description.
	Summary string `json:"summary"`
	// Description says what the action does and when it is refused.
	Description string `json:"description,omitempty"`
	// Fields are the body's fields, names of the resource's fields.
	Fields []string `json:"fields,omitempty"`
	// Targets, for a body field with a state machine, are the states this
	// action may request; the others are refused with 409 INVALID_STATE.
	Targets []string `json:"targets,omitempty"`
}

// Act declares an action: its path segment, operationId and summary. Its
// workflow is the flow step named after it.
func Act(name, id, summary string) Action {
	return Action{Name: name, ID: id, Summary: summary}
}

// Taking sets the body's fields.
func (a Action) Taking(fields ...string) Action { a.Fields = fields; return a }

// Requesting limits the states the action may request.
func (a Action) Requesting(states ...string) Action { a.Targets = states; return a }

// Describe documents the action.
func (a Action) Describe(d string) Action { a.Description = d; return a }

// With adds actions to the resource.
func (r Resource) With(actions ...Action) Resource {
	r.Actions = append(r.Actions, actions...)
	return r
}

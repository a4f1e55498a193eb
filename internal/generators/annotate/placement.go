package annotate

import "entgo.io/ent/schema"

// PlacementName is the annotation name of Placement.
const PlacementName = "LarderPlacement"

// A Class is where a table's rows would live on a distributed PostgreSQL
// such as Citus, distributed by account (docs/scaling.md, "Distributing by
// account"). Its values are the words of that page's table by class.
type Class string

// The classes of a table.
const (
	// Distributed tables are spread over the shards by account_id, NOT NULL:
	// the rows of one account, which every query of them filters by it.
	// AccountMixin gives it to every schema it makes an account's.
	Distributed Class = "distributed"
	// Reference tables have a copy on every node: shared rows, and the rows
	// read before the account is known.
	Reference Class = "reference"
	// Local tables stay on the coordinator: people, sign-ins and counters,
	// which belong to no one account.
	Local Class = "local"
)

// Classes are every class, in the order docs/scaling.md explains them.
var Classes = []Class{Distributed, Reference, Local}

// Placement declares a schema's table's class on a distributed PostgreSQL.
// Every schema has one: AccountMixin gives Distributed (and nothing to a
// shared schema, whose rows belong to no account), and a schema that is not
// an account's, or whose class is not Distributed, declares its own with
// Place. The generator refuses a schema without one, and Distributed for a
// table without account_id NOT NULL; it lists the tables' classes
// in package ent/migrate (migrate.Classes).
type Placement struct {
	Class Class `json:"class"`
}

// Name implements schema.Annotation.
func (Placement) Name() string { return PlacementName }

// Merge implements schema.Merger: the schema's own placement, annotated
// after its mixins', takes the place of theirs.
func (p Placement) Merge(other schema.Annotation) schema.Annotation {
	if o, ok := other.(Placement); ok {
		return o
	}
	if o, ok := other.(*Placement); ok && o != nil {
		return *o
	}
	return p
}

// Place declares the schema's table of class c, e.g.
// annotate.Place(annotate.Reference).
func Place(c Class) Placement { return Placement{Class: c} }

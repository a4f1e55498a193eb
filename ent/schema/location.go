package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// Location is a place stock can be: a warehouse (a site, the root of a tree) or
// an area inside one. The API exposes the roots as warehouses; a warehouse's id
// is its location id, so a lot's location_id may name a warehouse directly.
type Location struct{ ent.Schema }

// Mixin makes locations an account's, with audit timestamps.
func (Location) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a location.
func (Location) Fields() []ent.Field {
	return []ent.Field{
		field.Int("parent_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The enclosing location; null for a warehouse.").
			Annotations(annotate.Hidden()),
		field.String("code").
			Comment("Short code, unique among the account's warehouses.").
			Annotations(annotate.Len(1, 40), annotate.IgnoreNull(), annotate.Sortable(), annotate.Searchable()),
		field.String("description").
			Optional().
			Nillable().
			Comment("Free-text description.").
			Annotations(annotate.MaxLen(500), annotate.IgnoreNull()),
		field.Bool("is_active").
			Default(true).
			Comment("Whether the site is in use.").
			Annotations(annotate.Output()),
		field.String("name").
			Comment("Display name.").
			Annotations(annotate.Len(1, 100), annotate.IgnoreNull(), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.String("path").
			Comment("Codes from the warehouse down, joined by '/'; moves when the warehouse code changes.").
			Annotations(annotate.Hidden()),
	}
}

// Edges of a location: its parent and children.
func (Location) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("children", Location.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)).
			From("parent").
			Field("parent_id").
			Unique().
			Immutable(),
	}
}

// Indexes: warehouse codes are unique per account, area codes per warehouse.
func (Location) Indexes() []ent.Index {
	return append(tenantIndexes("name", "path"),
		index.Fields("account_id", "code").
			Unique().
			Annotations(entsql.IndexWhere("parent_id IS NULL")),
		index.Fields("account_id", "parent_id", "code").Unique(),
	)
}

// Annotations expose the roots at /warehouses.
func (Location) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("warehouses", "warehouse_id", annotate.Inventory, annotate.CRUD...).
			Named("Warehouse").
			Roots("parent_id").
			HandWritten(annotate.Create, annotate.Update, annotate.Delete).
			Emits("created", "updated", "deleted").
			Describe("Warehouses (sites). Creating one also creates its default floor plan."),
	}
}
